"""``McpConnection``: one server's connection on the official ``mcp`` SDK, for a session.

Each connection is one long-lived task (the SDK's session lives in the task that opened
it): transport (``stdio_streams``, the SDK's streamable HTTP or HTTP+SSE client), then
``initialize``, ``tools/list`` and ``prompts/list`` within ``startup_timeout_sec``, then it
waits for ``close``. Whatever goes wrong (the command is missing, the server crashes,
hangs, answers garbage, asks for OAuth) ends in state ``failed`` with one line saying
why, never an exception out of here. Calls (``call``) run from the caller's task and are
bounded by the tool timeout and the caller's cancellation.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import DshError, freeze_json

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

    from dsh.mcp._spec import McpServer
    from dsh.mcp._stdio import StdioProcess

__all__ = [
    "ConnectionState",
    "ElicitHandler",
    "McpCallError",
    "McpConnection",
    "RemotePrompt",
    "RemoteTool",
]

ConnectionState: TypeAlias = Literal["pending", "connected", "failed", "closed"]

ElicitHandler: TypeAlias = Callable[
    ["McpConnection", Mapping[str, Any]], Awaitable[Mapping[str, Any]]
]
"""Answers a server's ``elicitation/create`` (its params, as sent) with ``{"action": ...,
"content": ...}``."""

_CLOSE_WAIT = 3.0
_MAX_TOOLS = 1000
"""The most tools (and prompts) one server may put on the surface."""


class McpCallError(DshError, RuntimeError):
    """A call that did not get a result: the server is gone, it timed out, it failed."""


@final
@frozen
class RemoteTool:
    """One of a server's tools as ``tools/list`` gave it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    read_only: bool = False


@final
@frozen
class RemotePrompt:
    """One of a server's prompts: its name, description and arguments (name, required)."""

    name: str
    description: str
    arguments: tuple[tuple[str, bool], ...] = ()


def _as_parsed(schema: Any) -> dict[str, Any]:
    """A tool's input schema in the key order Claude Code holds it (the TypeScript SDK's parse:
    ``type``, ``properties``, ``required`` first, the rest as sent; ``mcp-tool-error``)."""
    if not isinstance(schema, dict):
        return {"type": "object"}
    known = {k: schema[k] for k in ("type", "properties", "required") if k in schema}
    return {**known, **{k: v for k, v in schema.items() if k not in known}}


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
    return text.splitlines()[0][:500]


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
        self._env = env
        self._cwd = cwd
        self._elicit = elicit
        self._session: ClientSession | None = None
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._task: asyncio.Future[None] | None = None
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

    @contextlib.asynccontextmanager
    async def _transport(self) -> AsyncIterator[tuple[Any, Any]]:
        server = self.server
        if server.transport == "stdio":
            from dsh.mcp._stdio import stdio_streams

            async with stdio_streams(server, self._env, self._cwd) as (read, write, process):
                self._process = process
                yield read, write
            return
        import httpx2
        from mcp.shared._httpx_utils import create_mcp_http_client

        headers = dict(server.headers)
        token = server.bearer_token_env_var
        if token is not None:
            if token not in self._env:
                raise DshError(f"bearer_token_env_var {token} is not set")
            headers["Authorization"] = f"Bearer {self._env[token]}"
        if server.transport == "sse":
            from mcp.client.sse import sse_client

            async with sse_client(server.url, headers=headers) as (read, write):
                yield read, write
            return
        from mcp.client.streamable_http import streamable_http_client

        client = create_mcp_http_client(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))

        async def seen(response: httpx2.Response) -> None:
            if response.status_code == 401:  # the SDK's error no longer says which status
                self._auth_asked = True

        client.event_hooks = {**client.event_hooks, "response": [seen]}
        async with client, streamable_http_client(server.url, http_client=client) as streams:
            yield streams[0], streams[1]

    async def _run(self) -> None:
        try:
            from mcp.client.session import ClientSession
            from mcp_types import Implementation

            callback = self._elicitation if self._elicit is not None else None
            async with (
                self._transport() as (read, write),
                ClientSession(
                    read,
                    write,
                    elicitation_callback=callback,
                    client_info=Implementation(name="dsh", version="1"),
                ) as session,
            ):
                await asyncio.wait_for(self._handshake(session), self.server.startup_timeout_sec)
                self._session = session
                self.state = "connected"
                self._ready.set()
                await self._closing.wait()
        except asyncio.CancelledError:
            if not self._closing.is_set():
                raise
        except BaseException as exc:
            if self.state != "connected" or not self._closing.is_set():
                self.error = self._why(exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            self._session = None
            self.state = "closed" if self._closing.is_set() and self.error is None else "failed"
            self._ready.set()

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

    async def _handshake(self, session: ClientSession) -> None:
        result = await session.initialize()
        tools: list[RemoteTool] = []
        cursor: str | None = None
        from mcp_types import PaginatedRequestParams

        while len(tools) < _MAX_TOOLS:
            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            listed = await session.list_tools(params=params)
            for t in listed.tools:
                hints = t.annotations
                tools.append(
                    RemoteTool(
                        name=t.name,
                        description=t.description or "",
                        input_schema=freeze_json(_as_parsed(t.input_schema)),
                        read_only=bool(hints is not None and hints.read_only_hint),
                    )
                )
            cursor = listed.next_cursor
            if not cursor:
                break
        self.tools = tuple(tools[:_MAX_TOOLS])
        if result.capabilities.prompts is not None:
            listed_prompts = await session.list_prompts()
            self.prompts = tuple(
                RemotePrompt(
                    name=p.name,
                    description=p.description or "",
                    arguments=tuple((a.name, bool(a.required)) for a in p.arguments or ()),
                )
                for p in listed_prompts.prompts[:_MAX_TOOLS]
            )

    async def _elicitation(self, context: Any, params: Any) -> Any:
        from mcp_types import ElicitResult

        assert self._elicit is not None
        sent = params.model_dump(by_alias=True, exclude_none=True, mode="json")
        try:
            answer = await self._elicit(self, sent)
        except Exception:
            answer = {"action": "decline"}
        return ElicitResult.model_validate(dict(answer))

    def _live(self) -> ClientSession:
        if self._session is None:
            why = self.error or f"it is {self.state}"
            raise McpCallError(f"MCP server {self.server.name!r} is not connected: {why}")
        return self._session

    async def call(self, tool: str, arguments: Mapping[str, Any], *, caller: Any = None) -> Any:
        """The ``CallToolResult`` of ``tool`` (``McpCallError`` when there is none);
        ``caller`` is who asks, should the server ask something back meanwhile."""
        session = self._live()
        timeout = self.server.tool_timeout_sec
        self.caller = caller
        try:
            return await asyncio.wait_for(session.call_tool(tool, dict(arguments)), timeout=timeout)
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

    async def prompt(self, name: str, arguments: Mapping[str, str]) -> Any:
        """The ``GetPromptResult`` of ``name``."""
        session = self._live()
        try:
            return await session.get_prompt(name, dict(arguments))
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
