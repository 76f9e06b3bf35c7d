"""A real harness for the loop tests: context, registry with the built-in tools, a JSONL
session store and a scripted model, all in ``tmp_path``, assembled by ``dsh.host``."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from dsh.agent import Agent, AgentOptions
from dsh.approval import ApprovalBroker, ApprovalService
from dsh.context import Context
from dsh.host import Assembly, HostOptions, assemble
from dsh.models import ScriptedModel
from dsh.session import JsonlSessionStore, SessionEvent, SessionLog
from dsh.tools import ToolRegistry


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": arguments}


def foreground_agent(prompt: str, **fields: Any) -> dict[str, Any]:
    """An ``Agent`` call that waits for its subagent (``run_in_background: false``)."""
    return tool("Agent", description="d", prompt=prompt, run_in_background=False, **fields)


def bash(command: str) -> dict[str, Any]:
    return tool("Bash", command=command, description="run it")


def http_error(status: int, message: str = "boom") -> dict[str, Any]:
    return {"type": "http_error", "status": status, "body": {"error": {"message": message}}}


def replies(*responses: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A script whose ``i``-th reply answers a history with ``i`` assistant turns."""
    return {"rules": list(extra.pop("rules", [])), "responses": list(responses), **extra}


_AGENT_FIELDS = tuple(f.name for f in dataclasses.fields(AgentOptions))


@dataclass
class Harness:
    """An ``Assembly`` (no approval service unless asked for) and the agents made on it.

    ``model`` is the model each new agent gets (a rig may swap it before making one).
    """

    assembly: Assembly
    model: ScriptedModel
    record: Path

    @property
    def ctx(self) -> Context:
        return self.assembly.ctx

    @property
    def registry(self) -> ToolRegistry:
        return self.assembly.registry

    @property
    def store(self) -> JsonlSessionStore:
        store = self.assembly.store
        assert isinstance(store, JsonlSessionStore)
        return store

    @property
    def project(self) -> Path:
        return self.assembly.project

    def agent(self, session: SessionLog | None = None, **options: Any) -> Agent:
        """An agent on ``session`` (default: a new one); ``options`` are ``Assembly.agent``'s
        keywords, or ``AgentOptions`` fields over the host's (``max_steps=2``, ...)."""
        options.setdefault("model", self.model)
        fields = {k: options.pop(k) for k in _AGENT_FIELDS if k in options}
        if fields:
            options["options"] = dataclasses.replace(self.assembly.options.agent, **fields)
        return self.assembly.agent(
            session if session is not None else self.store.create(), **options
        )

    def requests(self) -> list[dict[str, Any]]:
        """Every request the model received, as recorded."""
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines()]


def make_harness(
    tmp_path: Path, script: dict[str, Any], *, approval: ApprovalService | bool = True
) -> Harness:
    """``approval``: ``True`` an ``APPROVAL`` service with no channel (as ``dsh run`` has),
    ``False`` none at all, or the service to provide."""
    project = tmp_path / "project"
    project.mkdir()
    record = tmp_path / "requests.jsonl"
    model = ScriptedModel(script, record_to=record)
    options = HostOptions(
        project=project,
        model=model,
        store=JsonlSessionStore(tmp_path / "sessions"),
        approval=ApprovalBroker() if approval is True else approval or None,
        # The rigs mount the Agent tool where a test wants it, and test no system prompt.
        subagents=False,
        system=None,
    )
    return Harness(assembly=assemble(options), model=model, record=record)


def types(events: Sequence[SessionEvent]) -> list[str]:
    return [e.type for e in events]


def of_type(events: Sequence[SessionEvent], cls: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def _read(path: Path) -> str:
    return path.read_text().strip() if path.exists() else ""


async def wait_for_file(path: Path) -> str:
    """The stripped text of a file a tool writes, once it has some (bounded by the test timeout)."""
    while not (found := _read(path)):
        await asyncio.sleep(0.01)
    return found


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def wait_until_gone(pid: int) -> None:
    """Return once ``pid`` has exited (bounded by the test timeout, not asserted on time)."""
    while not _gone(pid):
        await asyncio.sleep(0.01)
