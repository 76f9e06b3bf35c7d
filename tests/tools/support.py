"""Small tools and a host for the registry tests (not the built-in tools)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from dsh.approval import APPROVAL, ApprovalBroker, ChannelAnswer, ScriptedChannel
from dsh.context import Context
from dsh.session import AbortCause
from dsh.tools import (
    TOOLS,
    ToolDefinition,
    ToolInvocation,
    ToolRegistry,
    ToolRequest,
    ToolResult,
    Workspace,
)

ECHO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "count": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "meta": {"type": "object"},
    },
    "required": ["text"],
    "additionalProperties": False,
}


@dataclass
class Ledger:
    """What the tool bodies saw, in order."""

    invocations: list[ToolInvocation] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)


class AddInput(BaseModel):
    a: int
    b: int


@dataclass
class FakeAgent:
    """A ``ToolCaller`` that is not an ``Agent``: a session id, a workspace, and its cancels."""

    session_id: str
    workspace: Workspace
    cancels: list[tuple[AbortCause | str, str]] = field(default_factory=list)

    def cancel(self, cause: AbortCause | str, when: Literal["now", "after_step"] = "now") -> None:
        self.cancels.append((cause, when))


def serve_approval(host: Host, *answers: ChannelAnswer) -> ApprovalBroker:
    """Provide an ``APPROVAL`` service whose channel gives ``answers`` (none: no channel)."""
    broker = ApprovalBroker(ScriptedChannel(answers) if answers else None)
    host.ctx.provide(APPROVAL, broker)
    return broker


class Host:
    """A context with a registry provided as TOOLS and a set of small test tools."""

    def __init__(self, cwd: Path | None = None) -> None:
        self.ctx = Context()
        self.registry = ToolRegistry(self.ctx)
        self.ctx.provide(TOOLS, self.registry)
        self.ledger = Ledger()
        self.workspace = Workspace(cwd or Path.cwd())
        self.gate = asyncio.Event()
        ledger = self.ledger

        async def echo(inv: ToolInvocation) -> ToolResult:
            ledger.invocations.append(inv)
            return ToolResult.ok(inv.arguments["text"], output={"echoed": inv.arguments["text"]})

        async def add(inv: ToolInvocation) -> ToolResult:
            ledger.invocations.append(inv)
            total = inv.arguments["a"] + inv.arguments["b"]
            return ToolResult.ok(str(total), output={"sum": total})

        async def sleepy(inv: ToolInvocation) -> ToolResult:
            ledger.invocations.append(inv)
            self.gate.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                ledger.cancelled.append("Sleepy")
                raise
            ledger.finished.append("Sleepy")
            return ToolResult.ok("woke up")

        async def boom(inv: ToolInvocation) -> ToolResult:
            ledger.invocations.append(inv)
            raise RuntimeError("the disk is on fire")

        async def returns(inv: ToolInvocation) -> Any:
            ledger.invocations.append(inv)
            return self.raw

        self.raw: Any = None
        any_schema = {"type": "object"}
        for definition in (
            ToolDefinition("Echo", "Echo the text.", ECHO_SCHEMA, echo),
            ToolDefinition.from_model("Add", "Add two integers.", AddInput, add, read_only=True),
            ToolDefinition("Sleepy", "Sleep until cancelled.", any_schema, sleepy),
            ToolDefinition("Boom", "Always raises.", any_schema, boom),
            ToolDefinition("Returns", "Returns host.raw as is.", any_schema, returns),
        ):
            self.registry.register(definition)

    def agent(self, session_id: str = "sess-1") -> FakeAgent:
        return FakeAgent(session_id, self.workspace)


def echo(text: object = "hi", **more: Any) -> ToolRequest:
    return ToolRequest("Echo", {"text": text, **more}, "toolu_echo")
