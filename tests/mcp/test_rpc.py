"""dsh's own stdio MCP client (``dsh.mcp._rpc``) against a server that does what the SDK's
servers never do (``rpc_server.py``), and its decoder against any bytes (Hypothesis)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.mcp import McpServer
from dsh.mcp._connection import McpConnection
from dsh.mcp._errors import McpCallError
from dsh.mcp._wire import Failure, Notification, Request, Response, WireError, decode

SERVER = str(Path(__file__).with_name("rpc_server.py"))


def _server(**kw: Any) -> McpServer:
    return McpServer(
        name="rpc",
        transport="stdio",
        source="dynamic",
        where="test: rpc",
        command=sys.executable,
        args=(SERVER,),
        **kw,
    )


async def _text(connection: McpConnection, tool: str) -> str:
    result = await connection.call(tool, {})
    return "".join(str(c.get("text", "")) for c in result.content)


async def test_a_server_that_does_everything_the_sdk_never_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("dsh.mcp._stdio.MAX_LINE", 1024)
    asked: list[Mapping[str, Any]] = []

    async def elicit(_c: McpConnection, params: Mapping[str, Any]) -> Mapping[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"name": "Ada"}}

    connection = McpConnection(
        _server(tool_timeout_sec=1.0), env=dict(os.environ), cwd=str(tmp_path), elicit=elicit
    )
    connection.start()
    await connection.ready()
    assert connection.state == "connected", connection.error
    # Both pages; the nameless tool left out, the odd schema made an object's.
    names = [t.name for t in connection.tools]
    assert names == ["ping", "ask", "change", "hang", "seen", "long", "die", "error", "odd"]
    odd = connection.tools[-1]
    assert (dict(odd.input_schema), odd.read_only) == ({"type": "object"}, True)
    assert [(p.name, p.arguments) for p in connection.prompts] == [("hello", (("who", True),))]
    # An item that is no object is left out of the content.
    result = await connection.call("ping", {})
    assert [dict(c) for c in result.content] == [{"type": "text", "text": "pong"}]
    # The server's own requests: ping answered, roots refused, elicitation answered.
    told = json.loads(await _text(connection, "ask"))
    assert told["ping"] == {}
    assert told["roots"]["code"] == -32601
    assert told["answer"] == {"action": "accept", "content": {"name": "Ada"}}
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    assert asked == [{"message": "Name?", "requestedSchema": schema}]
    # An over-long line is skipped; the answer after it arrives.
    assert await _text(connection, "long") == "pong"
    # A timed-out call: the server is told it is cancelled.
    with pytest.raises(McpCallError, match="timed out after 1s"):
        await connection.call("hang", {})
    with pytest.raises(McpCallError, match=r"failed: no good \(-32000\)"):
        await connection.call("error", {})
    seen = json.loads(await _text(connection, "seen"))
    assert seen[:2] == ["initialize", "notifications/initialized"]
    assert "notifications/cancelled" in seen
    # A changed list is listed again and told.
    told_changed: list[str] = []
    connection.on_changed = lambda c: told_changed.append(c.server.name)
    assert await _text(connection, "change") == "changed"
    for _ in range(100):
        if told_changed:
            break
        await asyncio.sleep(0.02)
    assert told_changed == ["rpc"]
    assert "added" in [t.name for t in connection.tools]
    assert [c["text"] for c in await connection.prompt("hello", {"who": "you"})] == ["Hi you"]
    # Dying in the middle of a call: an error, then a failed connection saying so.
    with pytest.raises(McpCallError, match="closed its output"):
        await connection.call("die", {})
    await connection.ready()
    for _ in range(100):
        if str(connection.state) == "failed":
            break
        await asyncio.sleep(0.02)
    assert str(connection.state) == "failed"
    assert "the server exited" in (connection.error or "")
    assert "garbage before the answer" in (connection.error or "")
    await connection.close()


def test_the_decoder_reads_each_kind_of_message() -> None:
    assert decode(b'{"jsonrpc":"2.0","id":1,"result":{"a":1}}') == Response(1, {"a": 1})
    assert decode(b'{"jsonrpc":"2.0","id":"x","method":"ping"}') == Request("x", "ping", {})
    assert decode(b'{"jsonrpc":"2.0","method":"n","params":[1]}') == Notification("n", {})
    assert decode(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}') == Failure(
        None, -32700, "(no message)"
    )
    for bad in (b"[]", b'{"jsonrpc":"1.0","id":1,"result":{}}', b'{"jsonrpc":"2.0","id":1}'):
        with pytest.raises(WireError):
            decode(bad)
    with pytest.raises(WireError, match="not JSON"):
        decode(b'{"jsonrpc":"2.0","id":1,"result":{"x":NaN}}')
    with pytest.raises(WireError, match="not an object"):
        decode(b'{"jsonrpc":"2.0","id":1,"result":[]}')


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)
_messages = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0"])},
    optional={
        "id": _json,
        "method": _json,
        "params": _json,
        "result": _json,
        "error": _json,
    },
)


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.binary(max_size=200), _messages.map(lambda m: json.dumps(m).encode())))
def test_the_decoder_gives_a_message_or_a_wire_error_for_any_line(line: bytes) -> None:
    try:
        message = decode(line)
    except WireError:
        return
    assert isinstance(message, Response | Failure | Request | Notification)
    if isinstance(message, Response | Request | Notification):
        payload = message.result if isinstance(message, Response) else message.params
        assert isinstance(payload, dict)
