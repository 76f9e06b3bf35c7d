"""HTTP and HTTP+SSE servers on the official ``mcp`` SDK (imported only when one is configured).

``sdk_session`` opens the SDK's streamable HTTP or SSE client with the configured headers
(and Codex's bearer token) and gives an ``SdkSession``: the same requests as ``_rpc``'s
``RpcSession``, its results dumped to JSON and read by the same readers (``_wire``), so a
connection does not know which transport it has. A 401 is noted for the failure notice
(OAuth is not supported).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from dsh.base import DshError
from dsh.mcp._wire import (
    MAX_LIST,
    CallResult,
    RemotePrompt,
    RemoteTool,
    call_result,
    completed_id,
    prompt_messages,
    prompts_page,
    tools_page,
)

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

    from dsh.mcp._spec import McpServer

__all__ = ["SdkSession", "sdk_session"]

OnElicit = Callable[[Mapping[str, Any]], Awaitable[Mapping[str, Any]]]


def _json(model: Any) -> dict[str, Any]:
    dumped = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped if isinstance(dumped, dict) else {}


class SdkSession:
    """The SDK's ``ClientSession``, answering as ``RpcSession`` answers."""

    def __init__(self, session: ClientSession) -> None:
        self._session = session
        self._prompts = False

    async def initialize(self, *, elicitation: bool) -> None:
        result = await self._session.initialize()
        self._prompts = result.capabilities.prompts is not None

    async def list_tools(self) -> tuple[RemoteTool, ...]:
        from mcp_types import PaginatedRequestParams

        tools: list[RemoteTool] = []
        cursor: str | None = None
        while len(tools) < MAX_LIST:
            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            page, cursor = tools_page(_json(await self._session.list_tools(params=params)))
            tools += page
            if cursor is None:
                break
        return tuple(tools[:MAX_LIST])

    async def list_prompts(self) -> tuple[RemotePrompt, ...]:
        if not self._prompts:
            return ()
        prompts, _cursor = prompts_page(_json(await self._session.list_prompts()))
        return tuple(prompts)

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> CallResult:
        return call_result(_json(await self._session.call_tool(name, dict(arguments))))

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str]
    ) -> tuple[Mapping[str, Any], ...]:
        return prompt_messages(_json(await self._session.get_prompt(name, dict(arguments))))

    async def close(self) -> None:
        return None


@contextlib.asynccontextmanager
async def _streams(
    server: McpServer, env: Mapping[str, str], on_401: Callable[[], None]
) -> AsyncIterator[tuple[Any, Any]]:
    import httpx2
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = dict(server.headers)
    token = server.bearer_token_env_var
    if token is not None:
        if token not in env:
            raise DshError(f"bearer_token_env_var {token} is not set")
        headers["Authorization"] = f"Bearer {env[token]}"
    if server.transport == "sse":
        from mcp.client.sse import sse_client

        async with sse_client(server.url, headers=headers) as (read, write):
            yield read, write
        return
    from mcp.client.streamable_http import streamable_http_client

    client = create_mcp_http_client(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))

    async def seen(response: httpx2.Response) -> None:
        if response.status_code == 401:  # the SDK's error no longer says which status
            on_401()

    client.event_hooks = {**client.event_hooks, "response": [seen]}
    async with client, streamable_http_client(server.url, http_client=client) as streams:
        yield streams[0], streams[1]


@contextlib.asynccontextmanager
async def sdk_session(
    server: McpServer,
    env: Mapping[str, str],
    *,
    on_elicit: OnElicit | None,
    on_401: Callable[[], None],
    on_completed: Callable[[str], None] | None = None,
) -> AsyncIterator[SdkSession]:
    """An HTTP or SSE server's session, open for the context; ``on_completed`` is told the id
    of each ``notifications/elicitation/complete``, as ``RpcSession`` tells it."""
    from mcp.client.session import ClientSession
    from mcp_types import ElicitResult, Implementation

    async def notified(message: Any) -> None:  # a notification, or a transport's exception
        params = getattr(message, "params", None)
        if on_completed is None or params is None:
            return
        if getattr(message, "method", None) == "notifications/elicitation/complete":
            ident = completed_id(_json(params))
            if ident is not None:
                on_completed(ident)

    async def elicitation(context: Any, params: Any) -> Any:
        assert on_elicit is not None
        try:
            answer = await on_elicit(_json(params))
        except Exception:
            answer = {"action": "decline"}
        return ElicitResult.model_validate(dict(answer))

    async with (
        _streams(server, env, on_401) as (read, write),
        ClientSession(
            read,
            write,
            elicitation_callback=elicitation if on_elicit is not None else None,
            message_handler=notified,
            client_info=Implementation(name="dsh", version="1"),
        ) as session,
    ):
        yield SdkSession(session)
