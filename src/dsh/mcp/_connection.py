"""``McpConnection``: one server's connection, for a session, whichever its transport.

Each connection is one long-lived task: the transport (a stdio server: the process and
dsh's own JSON-RPC client, ``_stdio`` and ``_rpc``; HTTP and SSE: the official SDK's
clients, ``_sdk``, imported only then), then ``initialize``, ``tools/list`` and
``prompts/list`` within ``startup_timeout_sec``, then it waits for ``close`` (or the
server's end). Whatever goes wrong (the command is missing, the server crashes, hangs,
answers garbage, asks for OAuth) ends in state ``failed`` with one line saying why, never
an exception out of here. Calls (``call``) run from the caller's task and are bounded by
the tool timeout and the caller's cancellation. A server's ``list_changed`` notification
lists its tools (or prompts) again and tells ``on_changed``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from dsh.mcp._errors import McpCallError
from dsh.mcp._wire import CallResult, RemotePrompt, RemoteTool

if TYPE_CHECKING:
    from dsh.mcp._spec import McpServer
    from dsh.mcp._stdio import StdioProcess

__all__ = ["ConnectionState", "ElicitHandler", "McpClient", "McpConnection"]

ConnectionState: TypeAlias = Literal["pending", "connected", "failed", "closed"]

ElicitHandler: TypeAlias = Callable[
    ["McpConnection", Mapping[str, Any]], Awaitable[Mapping[str, Any]]
]
"""Answers a server's ``elicitation/create`` (its params, as sent) with ``{"action": ...,
"content": ...}``."""

_CLOSE_WAIT = 3.0


class McpClient(Protocol):
    """What a connection asks of its transport's session (``RpcSession``, ``SdkSession``)."""

    async def initialize(self, *, elicitation: bool) -> None: ...
    async def list_tools(self) -> tuple[RemoteTool, ...]: ...
    async def list_prompts(self) -> tuple[RemotePrompt, ...]: ...
    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> CallResult: ...
    async def get_prompt(
        self, name: str, arguments: Mapping[str, str]
    ) -> tuple[Mapping[str, Any], ...]: ...


def _describe(exc: BaseException) -> str:
    """One line for what ended a connection (the first leaf of an exception group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc) or type(exc).__name__
    if "401" in text or "Unauthorized" in text:
        return f"the server asks for OAuth authorization, which dsh does not support yet ({text})"
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or text}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    return text.splitlines()[0][:500] if text.strip() else type(exc).__name__


class McpConnection:
    """One configured server, from start to close (see the module docstring)."""

    def __init__(
        self,
        server: McpServer,
        *,
        env: Mapping[str, str],
        cwd: str,
        elicit: ElicitHandler | None = None,
    ) -> None:
        self.server = server
        self.state: ConnectionState = "pending"
        self.error: str | None = None
        self.tools: tuple[RemoteTool, ...] = ()
        self.prompts: tuple[RemotePrompt, ...] = ()
        self.on_changed: Callable[[McpConnection], None] | None = None
        """Told after a ``list_changed`` notification had the lists read again."""
        self.on_completed: Callable[[McpConnection, str], None] | None = None
        """Told the ``elicitationId`` of a ``notifications/elicitation/complete``."""
        self._env = env
        self._cwd = cwd
        self._elicit = elicit
        self._client: McpClient | None = None
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._task: asyncio.Future[None] | None = None
        self._refreshing: set[asyncio.Future[None]] = set()
        self._process: StdioProcess | None = None
        self._auth_asked = False
        self.caller: Any = None
        """The caller (an agent) of the call in flight, for what the server asks meanwhile."""

    def start(self) -> None:
        """Start connecting (once)."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    async def ready(self) -> None:
        """Return once the server is connected or has failed."""
        await self._ready.wait()

    async def _answer(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        assert self._elicit is not None
        return await self._elicit(self, params)

    @contextlib.asynccontextmanager
    async def _session(self) -> AsyncIterator[tuple[McpClient, asyncio.Future[None] | None]]:
        """The transport's session, and (stdio) the reader whose end is the server's."""
        on_elicit = self._answer if self._elicit is not None else None
        if self.server.transport != "stdio":
            from dsh.mcp._sdk import sdk_session

            def asked() -> None:
                self._auth_asked = True

            async with sdk_session(
                self.server,
                self._env,
                on_elicit=on_elicit,
                on_401=asked,
                on_completed=self._completed,
            ) as sdk:
                yield sdk, None
            return
        from dsh.mcp._rpc import RpcSession
        from dsh.mcp._stdio import stdio_process

        async with stdio_process(self.server, self._env, self._cwd) as process:
            self._process = process
            rpc = RpcSession(
                process,
                name=self.server.name,
                on_elicit=on_elicit,
                on_changed=self._changed,
                on_completed=self._completed,
            )
            reader = asyncio.ensure_future(rpc.run())
            try:
                yield rpc, reader
            finally:
                reader.cancel()
                await rpc.close()
                await asyncio.gather(reader, return_exceptions=True)

    async def _run(self) -> None:
        try:
            async with self._session() as (client, reader):
                await asyncio.wait_for(self._handshake(client), self.server.startup_timeout_sec)
                self._client = client
                self.state = "connected"
                self._ready.set()
                await self._hold(reader)
        except asyncio.CancelledError:
            if not self._closing.is_set():
                raise
        except BaseException as exc:
            if self.state != "connected" or not self._closing.is_set():
                self.error = self._why(exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            self._client = None
            for task in self._refreshing:
                task.cancel()
            self.state = "closed" if self._closing.is_set() and self.error is None else "failed"
            self._ready.set()

    async def _hold(self, reader: asyncio.Future[None] | None) -> None:
        """Wait for ``close``, or for the server's end (``McpCallError``)."""
        closing: asyncio.Future[Any] = asyncio.ensure_future(self._closing.wait())
        try:
            waited: set[asyncio.Future[Any]] = {closing} if reader is None else {closing, reader}
            await asyncio.wait(waited, return_when=asyncio.FIRST_COMPLETED)
        finally:
            closing.cancel()
        if not self._closing.is_set():
            raise McpCallError("the server exited")

    def _why(self, exc: BaseException) -> str:
        """What ended the connection, with what the process said of it."""
        text = _describe(exc)
        if self._auth_asked:
            return (
                f"the server asks for OAuth authorization, which dsh does not support yet ({text})"
            )
        process = self._process
        if process is None:
            return text
        if process.garbage is not None:
            text = f"it wrote what is no MCP message ({process.garbage!r}); {text}"
        tail = process.stderr_tail()
        return text + (f" (stderr: {tail[-300:]})" if tail else "")

    async def _handshake(self, client: McpClient) -> None:
        await client.initialize(elicitation=self._elicit is not None)
        self.tools = await client.list_tools()
        self.prompts = await client.list_prompts()

    def _completed(self, elicitation_id: str) -> None:
        if self.on_completed is not None:
            self.on_completed(self, elicitation_id)

    def _changed(self, kind: str) -> None:
        if len(self._refreshing) < 2:  # one running, one to follow: more would say nothing new
            task = asyncio.ensure_future(self._refresh(kind))
            self._refreshing.add(task)
            task.add_done_callback(self._refreshing.discard)

    async def _refresh(self, kind: str) -> None:
        client = self._client
        if client is None:
            return
        try:
            if kind == "tools":
                self.tools = await client.list_tools()
            else:
                self.prompts = await client.list_prompts()
        except McpCallError:
            return
        if self.on_changed is not None:
            self.on_changed(self)

    def _live(self) -> McpClient:
        if self._client is None:
            why = self.error or f"it is {self.state}"
            raise McpCallError(f"MCP server {self.server.name!r} is not connected: {why}")
        return self._client

    async def call(
        self, tool: str, arguments: Mapping[str, Any], *, caller: Any = None
    ) -> CallResult:
        """The result of ``tool`` (``McpCallError`` when there is none); ``caller`` is who
        asks, should the server ask something back meanwhile."""
        client = self._live()
        timeout = self.server.tool_timeout_sec
        self.caller = caller
        try:
            return await asyncio.wait_for(client.call_tool(tool, arguments), timeout=timeout)
        except TimeoutError:
            raise McpCallError(
                f"MCP server {self.server.name!r} tool {tool!r} timed out after {timeout:g}s"
            ) from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise McpCallError(
                f"MCP server {self.server.name!r} tool {tool!r} failed: {_describe(exc)}"
            ) from None

    async def prompt(
        self, name: str, arguments: Mapping[str, str]
    ) -> tuple[Mapping[str, Any], ...]:
        """The content items of ``prompts/get``'s messages for ``name``."""
        client = self._live()
        try:
            return await client.get_prompt(name, arguments)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise McpCallError(
                f"MCP server {self.server.name!r} prompt {name!r} failed: {_describe(exc)}"
            ) from None

    async def close(self) -> None:
        """End the connection and its process; bounded, whatever state it is in."""
        self._closing.set()
        task = self._task
        if task is None or task.done():
            if self.state == "pending":
                self.state = "closed"
            return
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(task), _CLOSE_WAIT)
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
