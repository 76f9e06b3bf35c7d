"""dsh's own MCP client for stdio servers: JSON-RPC 2.0 over a ``StdioProcess``'s lines.

Why not the SDK's: importing its client costs ~0.6 s of CPU (its generated pydantic models
of every protocol version), which every session with a stdio server paid before its first
request; this client imports nothing dsh does not already have. It speaks what dsh uses:
``initialize`` / ``notifications/initialized``, ``tools/list`` and ``prompts/list`` (every
page), ``tools/call``, ``prompts/get``; the server's ``ping``, ``elicitation/create``
(answered by ``on_elicit``, each in its own task so the reader goes on) and its
notifications (``notifications/tools/list_changed`` and ``prompts/list_changed`` call
``on_changed``; ``notifications/elicitation/complete`` calls ``on_completed`` with its
``elicitationId``, bounded; the rest are read and dropped). A request of dsh's that is cancelled or
times out is followed by ``notifications/cancelled``.

A hostile server cannot crash dsh through it: lines are bounded (``_stdio``), a line that
is no message is counted (the first kept for the failure notice) and skipped, a response to
no request of dsh's is dropped, at most ``_MAX_SERVER_REQUESTS`` of its requests run at once
(more are refused), and everything ends in ``McpCallError`` or a closed session.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from dsh.base import thaw_json
from dsh.mcp._errors import McpCallError
from dsh.mcp._stdio import OVERLONG, StdioProcess
from dsh.mcp._wire import (
    MAX_LIST,
    CallResult,
    Failure,
    Notification,
    RemotePrompt,
    RemoteTool,
    Request,
    Response,
    WireError,
    call_result,
    completed_id,
    decode,
    prompt_messages,
    prompts_page,
    tools_page,
)

__all__ = ["PROTOCOL_VERSION", "RpcSession"]

PROTOCOL_VERSION: Final = "2025-11-25"
"""The revision dsh offers in ``initialize`` (the newest one with that handshake)."""
_KNOWN_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
_MAX_SERVER_REQUESTS: Final = 8
_MAX_PAGES: Final = 100

OnElicit = Callable[[Mapping[str, Any]], Awaitable[Mapping[str, Any]]]
OnChanged = Callable[[str], None]
OnCompleted = Callable[[str], None]


class RpcSession:
    """One server's JSON-RPC session (see the module docstring); ``run`` reads until the end."""

    def __init__(
        self,
        process: StdioProcess,
        *,
        name: str,
        on_elicit: OnElicit | None = None,
        on_changed: OnChanged | None = None,
        on_completed: OnCompleted | None = None,
    ) -> None:
        self._process = process
        self._on_completed = on_completed
        self._name = name
        self._on_elicit = on_elicit
        self._on_changed = on_changed
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Mapping[str, Any]]] = {}
        self._serving: set[asyncio.Future[None]] = set()
        self._ended: str | None = None
        self.capabilities: Mapping[str, Any] = {}

    # -- reading ------------------------------------------------------------------------

    async def run(self) -> None:
        """Read the server's lines until it closes its output; then fail what is pending."""
        try:
            while (line := await self._process.read_line()) is not None:
                self._take(line)
        finally:
            self._end("the server closed its output (it exited)")

    def _take(self, line: bytes) -> None:
        if line == OVERLONG:
            self._garbage(b"(a line over 16 MiB)")
            return
        try:
            message = decode(line)
        except WireError:
            self._garbage(line)
            return
        if isinstance(message, Response | Failure):
            future = self._pending.pop(message.id, None) if isinstance(message.id, int) else None
            if future is not None and not future.done():
                if isinstance(message, Response):
                    future.set_result(message.result)
                else:
                    future.set_exception(McpCallError(f"{message.message} ({message.code})"))
        elif isinstance(message, Request):
            self._serve(message)
        elif isinstance(message, Notification):
            self._notified(message)

    def _garbage(self, line: bytes) -> None:
        if self._process.garbage is None:
            self._process.garbage = line[:120].decode("utf-8", "replace").strip()

    def _notified(self, note: Notification) -> None:
        kind = {
            "notifications/tools/list_changed": "tools",
            "notifications/prompts/list_changed": "prompts",
        }.get(note.method)
        if kind is not None and self._on_changed is not None:
            self._on_changed(kind)
        if note.method == "notifications/elicitation/complete" and self._on_completed:
            ident = completed_id(note.params)
            if ident is not None:
                self._on_completed(ident)

    def _serve(self, request: Request) -> None:
        if len(self._serving) >= _MAX_SERVER_REQUESTS:
            self._spawn(self._reply_error(request, -32000, "too many requests at once"))
        elif request.method == "ping":
            self._spawn(self._reply(request, {}))
        elif request.method == "elicitation/create" and self._on_elicit is not None:
            self._spawn(self._elicit(request))
        else:
            self._spawn(self._reply_error(request, -32601, f"method not found: {request.method}"))

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._serving.add(task)
        task.add_done_callback(self._serving.discard)

    async def _elicit(self, request: Request) -> None:
        assert self._on_elicit is not None
        try:
            answer = await self._on_elicit(thaw_json(request.params))
        except Exception:
            answer = {"action": "decline"}
        await self._reply(request, answer)

    async def _reply(self, request: Request, result: Mapping[str, Any]) -> None:
        await self._send({"jsonrpc": "2.0", "id": request.id, "result": dict(result)})

    async def _reply_error(self, request: Request, code: int, message: str) -> None:
        error = {"code": code, "message": message}
        await self._send({"jsonrpc": "2.0", "id": request.id, "error": error})

    # -- writing ------------------------------------------------------------------------

    async def _send(self, message: Mapping[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        if not await self._process.write(data.encode("utf-8", "surrogatepass")):
            self._end("the server no longer reads its input")

    def _end(self, why: str) -> None:
        if self._ended is None:
            self._ended = why
        for future in self._pending.values():
            if not future.done():
                future.set_exception(McpCallError(self._ended))
        self._pending.clear()
        for task in self._serving:
            task.cancel()

    async def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        await self._send(message)

    async def request(self, method: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        """The result of ``method``; ``McpCallError`` for an error response or a server gone.
        Cancelled (a timeout included), the server is told with ``notifications/cancelled``."""
        if self._ended is not None:
            raise McpCallError(self._ended)
        ident = next(self._ids)
        future: asyncio.Future[Mapping[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        try:
            await self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
            return await future
        except asyncio.CancelledError:
            if self._pending.pop(ident, None) is not None and self._ended is None:
                with contextlib.suppress(Exception):
                    cancel = {"requestId": ident, "reason": "cancelled by dsh"}
                    await asyncio.shield(self.notify("notifications/cancelled", cancel))
            raise
        finally:
            self._pending.pop(ident, None)

    # -- what dsh asks ------------------------------------------------------------------

    async def initialize(self, *, elicitation: bool) -> None:
        """The handshake: ``initialize``, its version checked, then ``initialized``."""
        capabilities: dict[str, Any] = {}
        if elicitation:
            capabilities["elicitation"] = {"form": {}}
        result = await self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": capabilities,
                "clientInfo": {"name": "dsh", "version": "1"},
            },
        )
        version = result.get("protocolVersion")
        if version not in _KNOWN_VERSIONS:
            raise McpCallError(f"unsupported protocol version from the server: {version!r}")
        caps = result.get("capabilities")
        self.capabilities = caps if isinstance(caps, dict) else {}
        await self.notify("notifications/initialized")

    async def list_tools(self) -> tuple[RemoteTool, ...]:
        tools: list[RemoteTool] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page, cursor = tools_page(await self.request("tools/list", _page(cursor)))
            tools += page
            if cursor is None or len(tools) >= MAX_LIST:
                break
        return tuple(tools[:MAX_LIST])

    async def list_prompts(self) -> tuple[RemotePrompt, ...]:
        if "prompts" not in self.capabilities:
            return ()
        prompts: list[RemotePrompt] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page, cursor = prompts_page(await self.request("prompts/list", _page(cursor)))
            prompts += page
            if cursor is None or len(prompts) >= MAX_LIST:
                break
        return tuple(prompts[:MAX_LIST])

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> CallResult:
        result = await self.request("tools/call", {"name": name, "arguments": dict(arguments)})
        return call_result(result)

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str]
    ) -> tuple[Mapping[str, Any], ...]:
        result = await self.request("prompts/get", {"name": name, "arguments": dict(arguments)})
        return prompt_messages(result)

    async def close(self) -> None:
        for task in list(self._serving):
            task.cancel()
        await asyncio.gather(*self._serving, return_exceptions=True)


def _page(cursor: str | None) -> dict[str, Any]:
    return {"cursor": cursor} if cursor is not None else {}
