"""A stdio MCP server without the SDK, for dsh's own client: everything a server may do that
the SDK's servers never do (garbage between messages, answers to no request, paged lists,
requests of its own, a list that changes, an over-long line, dying mid-call).

Tools (by name): ``ping``; ``ask`` (pings dsh, asks ``roots/list`` and
``elicitation/create``, returns what came back); ``change`` (announces
``tools/list_changed``; the list then has ``added``); ``hang`` (no answer); ``seen``
(the methods dsh sent so far, as JSON); ``long`` (an over-long line before its answer);
``die`` (exits); ``error`` (a JSON-RPC error).
"""

import json
import sys

sent_methods: list[str] = []
changed = False
pending: dict[str, str] = {}


def write(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def read() -> dict[str, object]:
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    message: dict[str, object] = json.loads(line)
    if "method" in message:
        sent_methods.append(str(message["method"]))
    return message


def ask(method: str, params: dict[str, object]) -> object:
    """A request of the server's; dsh's requests meanwhile are answered in order after it."""
    ident = f"s-{method}"
    write({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
    while True:
        message = read()
        if message.get("id") == ident and "method" not in message:
            return message.get("result", message.get("error"))


def tools() -> list[dict[str, object]]:
    names = ["ping", "ask", "change", "hang", "seen", "long", "die", "error"]
    listed: list[dict[str, object]] = [
        {"name": n, "inputSchema": {"type": "object"}} for n in names
    ]
    listed.append({"description": "no name"})
    listed.append(
        {"name": "odd", "inputSchema": "not a schema", "annotations": {"readOnlyHint": True}}
    )
    if changed:
        listed.append({"name": "added", "inputSchema": {"type": "object"}})
    return listed


def call(name: str) -> dict[str, object]:
    global changed
    if name == "ask":
        pong = ask("ping", {})
        roots = ask("roots/list", {})
        schema = {"type": "object", "properties": {"name": {"type": "string"}}}
        answer = ask("elicitation/create", {"message": "Name?", "requestedSchema": schema})
        text = json.dumps({"ping": pong, "roots": roots, "answer": answer})
        return {"content": [{"type": "text", "text": text}]}
    if name == "change":
        changed = True
        write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return {"content": [{"type": "text", "text": "changed"}]}
    if name == "seen":
        return {"content": [{"type": "text", "text": json.dumps(sent_methods)}]}
    if name == "long":
        sys.stdout.write("x" * 5000 + "\n")
    if name == "die":
        sys.exit(4)
    return {"content": [{"type": "text", "text": "pong"}, 7], "isError": False}


def main() -> None:
    while True:
        message = read()
        ident = message.get("id")
        method = message.get("method")
        if ident is None or not isinstance(method, str):
            continue
        params = message.get("params") or {}
        assert isinstance(params, dict)
        if method == "initialize":
            sys.stdout.write("garbage before the answer\n\n")
            write({"jsonrpc": "2.0", "id": 999, "result": {}})
            write(
                {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info"}}
            )
            result: dict[str, object] = {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {"listChanged": True}, "prompts": {}},
                "serverInfo": {"name": "rpc", "version": "1"},
            }
        elif method == "tools/list":
            listed = tools()
            if params.get("cursor") == "page-2":
                result = {"tools": listed[3:]}
            else:
                result = {"tools": listed[:3], "nextCursor": "page-2"}
        elif method == "prompts/list":
            result = {
                "prompts": [{"name": "hello", "arguments": [{"name": "who", "required": True}]}]
            }
        elif method == "prompts/get":
            who = params.get("arguments", {}).get("who")
            result = {
                "messages": [{"role": "user", "content": {"type": "text", "text": f"Hi {who}"}}]
            }
        elif method == "tools/call" and params.get("name") == "hang":
            continue
        elif method == "tools/call" and params.get("name") == "error":
            write({"jsonrpc": "2.0", "id": ident, "error": {"code": -32000, "message": "no good"}})
            continue
        elif method == "tools/call":
            result = call(str(params.get("name")))
        else:
            result = {}
        write({"jsonrpc": "2.0", "id": ident, "result": result})


if __name__ == "__main__":
    main()
