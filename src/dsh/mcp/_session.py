"""A session's MCP servers: started together at session start, their tools registered
as each connects, ready before the first prompt, closed with the session.

``start_servers`` starts every connection at once (the SDK imported then, only when a
server is configured) and mounts ``McpPlugin``: the ``MCP`` service (what ``dsh mcp list``,
``/mcp``, ``mcp_tool`` hooks and MCP prompts use) and a ``agent/prompt-submit`` listener,
first in the waterfall, that waits until each server is connected or failed (each within
its ``startup_timeout_sec``) so the first request names every tool, as Claude Code's
``-p`` does; a Codex server only for its ``startup_grace_sec`` (Codex 0.171's
``mcp_optional_startup_grace_ms``). A failed server is one notice, at the next prompt; the
session goes on. A server's ``notifications/elicitation/complete`` (stdio) fires
``agent/notification`` ``elicitation_complete`` as 2.1.332 does. Closing the context
closes every connection and ends every server process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dsh.agent import (
    NOTIFICATION,
    PROMPT_SUBMIT,
    Agent,
    PromptAllow,
    PromptDecision,
    PromptSource,
    calling_agent,
)
from dsh.context import Context, Disposer, Next, ServiceKey
from dsh.mcp._connection import ElicitHandler, McpConnection
from dsh.mcp._elicitation import ELICITATION, ElicitationAnswer, ElicitationRequest
from dsh.mcp._errors import McpCallError
from dsh.mcp._prompts import expand_prompt, find_prompt
from dsh.mcp._tools import mcp_tool_name, server_tools
from dsh.messages import Content

if TYPE_CHECKING:
    from dsh.mcp._spec import McpServer
    from dsh.tools import ToolRegistry

__all__ = ["MCP", "McpServers", "start_servers"]

_SOURCE = "mcp"
_MAX_NOTIFYING = 16
"""Completions told at once; more from a flooding server are dropped."""


class McpServers:
    """Every connection of a session, by server name, in configuration order."""

    def __init__(
        self,
        servers: Sequence[McpServer],
        *,
        registry: ToolRegistry,
        env: Mapping[str, str],
        cwd: str,
        elicit: ElicitHandler | None = None,
    ) -> None:
        self._registry = registry
        self.elicit: ElicitHandler | None = elicit
        self.connections = {
            s.name: McpConnection(s, env=env, cwd=cwd, elicit=self._elicit) for s in servers
        }
        self._registered: dict[str, dict[str, Disposer]] = {}
        """Each server's registered tools: their names and the disposers that remove them."""
        self.notices: list[str] = []
        self._settled: asyncio.Future[list[None]] | None = None
        self._registering: dict[str, asyncio.Future[None]] = {}
        self._started = 0.0
        self._ctx: Context | None = None
        self._announced = 0
        """How many of ``notices`` the session has been told."""
        self._elicited_by: dict[str, Agent] = {}
        """Each server's last elicitation's agent: who a completion notifies on."""
        self._notifying: set[asyncio.Future[None]] = set()

    async def _elicit(
        self, connection: McpConnection, params: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """The ``mcp/elicitation`` seam's answer (none: cancelled, as headless Claude Code)."""
        if self.elicit is not None:
            return await self.elicit(connection, params)
        if self._ctx is None:
            return ElicitationAnswer.cancel().to_json()
        agent = calling_agent(connection.caller)
        if agent is not None:
            self._elicited_by[connection.server.name] = agent
        request = ElicitationRequest(connection.server.name, params)
        answer = await self._ctx.waterfall(ELICITATION, connection.caller, request)
        return answer.to_json()

    def start(self) -> None:
        """Start every connection at once; tools are registered as each connects."""
        for connection in self.connections.values():
            connection.start()
        self._started = asyncio.get_running_loop().time()
        self._registering = {
            name: asyncio.ensure_future(self._register(c)) for name, c in self.connections.items()
        }
        self._settled = asyncio.gather(*self._registering.values())

    async def _register(self, connection: McpConnection) -> None:
        await connection.ready()
        server = connection.server
        if connection.state != "connected":
            self.notices.append(
                f"MCP server {server.name!r} ({server.where}) failed to start: {connection.error}"
            )
            return
        self._add_tools(connection, self.notices)
        connection.on_changed = self._changed
        connection.on_completed = self._completed

    def _completed(self, connection: McpConnection, elicitation_id: str) -> None:
        """A server's ``notifications/elicitation/complete``: 2.1.332's Notification
        ``elicitation_complete`` (read in its binary), on the agent that elicited last from
        it, else the one calling it now (none: nothing to tell)."""
        server = connection.server.name
        agent = calling_agent(connection.caller) or self._elicited_by.get(server)
        if agent is None or len(self._notifying) >= _MAX_NOTIFYING:
            return
        message = f'MCP server "{server}" confirmed elicitation {elicitation_id} complete'
        work = asyncio.ensure_future(
            agent.ctx.emit(NOTIFICATION, agent, message, "elicitation_complete")
        )
        self._notifying.add(work)
        work.add_done_callback(self._notifying.discard)

    def _add_tools(self, connection: McpConnection, notices: list[str]) -> None:
        server = connection.server
        tools, left_out = server_tools(connection)
        notices.extend(left_out)
        mine = self._registered.setdefault(server.name, {})
        for tool in tools:
            try:
                mine[tool.name] = self._registry.register(tool)
            except ValueError as exc:  # a clash with another tool, a schema that is no schema
                notices.append(f"MCP server {server.name!r}: {exc}")

    def _changed(self, connection: McpConnection) -> None:
        """A server's ``tools/list_changed``: its tools as it lists them now, from the next
        request on (what it says of those it leaves out is dropped: nobody is there to see)."""
        for remove in self._registered.pop(connection.server.name, {}).values():
            remove()
        self._add_tools(connection, [])

    async def settled(self) -> None:
        """Return once every server is connected (its tools registered) or failed."""
        if self._settled is not None:
            await asyncio.shield(self._settled)

    async def awaited(self) -> None:
        """Return once every server is connected or failed, or its ``startup_grace_sec``
        since the start has passed (it goes on starting: its tools come later)."""
        loop = asyncio.get_running_loop()
        for name, task in self._registering.items():
            grace = self.connections[name].server.startup_grace_sec
            left = None if grace is None else self._started + grace - loop.time()
            if not task.done() and (left is None or left > 0):
                await asyncio.wait({task}, timeout=left)

    async def required_started(self) -> None:
        """Return once every ``required`` server is connected; ``McpRequiredError`` naming
        each that failed (its start-up timeout bounds the wait), in Codex 0.171's words."""
        required = [n for n, c in self.connections.items() if c.server.required]
        if not required:
            return
        await asyncio.wait([self._registering[n] for n in required])
        failed = sorted(n for n in required if self.connections[n].state != "connected")
        if failed:
            from dsh.mcp._errors import McpRequiredError

            reasons = "; ".join(f"{n}: {self.connections[n].error}" for n in failed)
            raise McpRequiredError(f"required MCP servers failed to initialize: {reasons}")

    def connection(self, server: str) -> McpConnection:
        """The connection of ``server`` (``McpCallError`` for a name not configured)."""
        found = self.connections.get(server)
        if found is None:
            raise McpCallError(f"no MCP server named {server!r} is configured")
        return found

    def statuses(self) -> list[dict[str, str]]:
        """Each server as stream-json's ``init`` lists it: name, status, source."""
        shown = {"pending": "pending", "connected": "connected"}
        return [
            {"name": name, "status": shown.get(c.state, "failed"), "source": c.server.source}
            for name, c in self.connections.items()
        ]

    def report(self) -> list[str]:
        """Each server, where it was declared, its state, its tools and prompts (``/mcp``)."""
        lines: list[str] = []
        for name, c in self.connections.items():
            lines.append(f"{name} ({c.server.source}, {c.server.where}): {c.state}")
            if c.error is not None:
                lines.append(f"  {c.error}")
            if c.state == "connected":
                tools = [mcp_tool_name(name, t.name) for t in c.tools]
                lines.append(f"  tools ({len(tools)}): {', '.join(tools) or '-'}")
                if c.prompts:
                    prompts = ", ".join("/" + mcp_tool_name(name, p.name) for p in c.prompts)
                    lines.append(f"  prompts: {prompts}")
        return lines or ["no MCP servers configured"]

    def tool_names(self, server: str) -> list[str]:
        connection = self.connections[server]
        return [mcp_tool_name(server, t.name) for t in connection.tools]

    async def close(self) -> None:
        await asyncio.gather(*self._notifying, return_exceptions=True)
        if self._settled is not None and not self._settled.done():
            self._settled.cancel()
        await asyncio.gather(*(c.close() for c in self.connections.values()))

    async def _before_prompt(
        self, agent: Agent, content: Content, source: PromptSource, nxt: Next[PromptDecision]
    ) -> PromptDecision:
        await self.awaited()
        if agent.parent is None:  # what failed since the last prompt (a late server's too)
            fresh, self._announced = self.notices[self._announced :], len(self.notices)
            for text in fresh:
                agent.notice(text, source=_SOURCE, level="warning")
        decision = await nxt()
        found = find_prompt(self.connections, content) if isinstance(content, str) else None
        if found is None or not isinstance(decision, PromptAllow) or decision.content is not None:
            return decision
        try:
            expanded = await expand_prompt(*found)
        except McpCallError as exc:
            return PromptDecision.block(str(exc), source=_SOURCE)
        return PromptDecision.allow(expanded, decision.additional_context, source=decision.source)

    def apply(self, ctx: Context) -> None:
        self._ctx = ctx
        ctx.provide(MCP, self)
        ctx.on(PROMPT_SUBMIT, self._before_prompt, prepend=True)
        ctx.add_disposer(self.close)


MCP: ServiceKey[McpServers] = ServiceKey("mcp")
"""The session's MCP servers, for what calls them outside a tool call (``mcp_tool``
hooks, prompts, ``/mcp``)."""


def start_servers(
    ctx: Context,
    servers: Sequence[McpServer],
    *,
    registry: ToolRegistry,
    env: Mapping[str, str],
    cwd: str,
) -> McpServers:
    """Start ``servers`` and mount them on ``ctx`` (scope ``mcp``)."""
    manager = McpServers(servers, registry=registry, env=env, cwd=cwd)
    scope = ctx.plugin(manager.apply, name="mcp")
    manager._registry = registry.bound_to(scope)  # its tools go with the scope
    manager.start()
    return manager
