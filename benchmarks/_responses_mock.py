"""A loopback OpenAI Responses API for the real Codex, answering from a script.

``ResponsesMock`` serves ``POST /v1/responses`` as a stream of server-sent
events (``response.created``, ``response.output_item.added``/``.done`` for each
message and function call, ``response.output_text.delta``,
``response.completed`` with usage) from a script: a side-by-side case
(``load``) or a recorded Codex case's ``openai`` script (``load_script``, the
corpus's vocabulary: ``rules`` tried in order, then ``default``; ``auto_shell``
calls whichever shell tool the request offers, ``exec_command`` on 0.171). Reply
``i`` is given once ``i`` model responses are in the request's input. Anything
else Codex asks (``GET /v1/models`` …) gets a harmless answer.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Final

from _side_cases import SideCase

__all__ = [
    "MODEL",
    "MockError",
    "ResponsesMock",
    "Script",
    "is_side_request",
    "model_responses",
    "shell_call",
    "side_script",
]

MODEL: Final = "mock-model"

Item = dict[str, Any]
Script = Mapping[str, Any]  # the corpus's `openai` script: {"rules": [...], "default": block}


def model_responses(body: Mapping[str, Any]) -> int:
    """How many model responses are in a request's ``input``.

    One response is an assistant message and/or its function calls; calls of one
    response share the reply tag in their ``call_id`` (``call_<reply>_<n>_…``), so
    their outputs interleaved among them do not split it. A user message ends one.
    """
    count = 0
    last: str | None = None
    for item in body.get("input") or ():
        if not isinstance(item, dict):
            continue
        kind, role = item.get("type", "message"), item.get("role")
        if kind == "message" and role == "user":
            last = None
        elif kind == "message" and role == "assistant":
            count += 1
            last = "message"
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            tag = str(item.get("call_id", "")).split("_")[:2]
            call = "_".join(tag)
            if last == "message":
                last = call
            elif call != last:
                count += 1
                last = call
    return count


def _tool_names(body: Mapping[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or ():
        if isinstance(tool, dict):
            names.append(str(tool.get("name") or tool.get("type") or ""))
    return names


def shell_call(body: Mapping[str, Any], command: str) -> tuple[str, str]:
    """``(tool name, arguments JSON)``: a call of the shell tool the request offers."""
    names = _tool_names(body)
    if "exec_command" in names:
        return "exec_command", json.dumps({"cmd": command})
    if "shell_command" in names:
        return "shell_command", json.dumps({"command": command})
    if "shell" in names:
        return "shell", json.dumps({"command": ["bash", "-lc", command]})
    raise MockError(f"the request offers no shell tool (tools: {names})")


class MockError(RuntimeError):
    """The mock could not answer as scripted; the message says why."""


def _text_of(body: Mapping[str, Any]) -> str:
    return json.dumps(body.get("input") or [], ensure_ascii=False) + json.dumps(
        body.get("instructions") or ""
    )


def _first_user(body: Mapping[str, Any]) -> str:
    for item in body.get("input") or ():
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, list):
                return "".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
            return str(content)
    return ""


def _rule_matches(rule: Mapping[str, Any], body: Mapping[str, Any]) -> bool:
    names = _tool_names(body)
    if "has_tool" in rule and rule["has_tool"] not in names:
        return False
    if rule.get("no_tools") and names:
        return False
    if "first_user_contains" in rule and rule["first_user_contains"] not in _first_user(body):
        return False
    text = _text_of(body)
    if "contains" in rule and rule["contains"] not in text:
        return False
    return not ("not_contains" in rule and rule["not_contains"] in text)


def scripted_blocks(script: Script, body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The blocks the script answers ``body`` with (the corpus's rule semantics)."""
    for rule in script.get("rules") or ():
        if _rule_matches(rule, body):
            responses = rule["responses"]
            turn = min(model_responses(body), len(responses) - 1)
            return list(responses[turn])
    default = script.get("default") or {"type": "text", "text": "side-answer"}
    return [default]


def side_script(case: SideCase) -> Script:
    """A side-by-side case as a script in the corpus's vocabulary."""
    responses = []
    for reply in case.replies:
        blocks: list[Mapping[str, Any]] = []
        if reply.text:
            blocks.append({"type": "text", "text": reply.text})
        blocks += [{"type": "auto_shell", "command": command} for command in reply.bash]
        responses.append(blocks or [{"type": "text", "text": ""}])
    return {
        "rules": [
            {"no_tools": True, "responses": [[{"type": "text", "text": "summary"}]]},
            {"responses": responses},
        ]
    }


def is_side_request(body: Mapping[str, Any]) -> bool:
    """A request that is not one of the agent's turns: a compaction (it offers no tools) or
    the automatic approval reviewer's (``--approve-for-me``: it asks for a JSON-schema answer).
    Codex 0.171's ``exec`` was seen to make no other (no title or summary requests)."""
    text = body.get("text")
    form = text.get("format") if isinstance(text, dict) else None
    return not body.get("tools") or (isinstance(form, dict) and form.get("type") == "json_schema")


def _event(kind: str, **fields: Any) -> bytes:
    data = json.dumps({"type": kind, **fields}, ensure_ascii=False)
    return f"event: {kind}\ndata: {data}\n\n".encode()


def sse_body(
    blocks: Sequence[Mapping[str, Any]], body: Mapping[str, Any], serial: int, tokens: int = 100
) -> bytes:
    """One streamed response made of ``blocks``, reporting ``tokens`` of input."""
    turn = model_responses(body)
    response: Item = {"id": f"resp_{serial}", "object": "response", "model": MODEL}
    out = [_event("response.created", response={**response, "status": "in_progress"})]
    for index, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "text":
            text = str(block.get("text", ""))
            item: Item = {"type": "message", "id": f"msg_{serial}_{index}", "role": "assistant"}
            out.append(
                _event(
                    "response.output_item.added",
                    output_index=index,
                    item={**item, "status": "in_progress", "content": []},
                )
            )
            out.append(
                _event(
                    "response.output_text.delta",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    delta=text,
                )
            )
            content = [{"type": "output_text", "text": text, "annotations": []}]
            item = {**item, "status": "completed", "content": content}
        elif kind in ("auto_shell", "function_call"):
            if kind == "auto_shell":
                name, arguments = shell_call(body, str(block["command"]))
            else:
                name = str(block["name"])
                raw = block.get("arguments", {})
                arguments = raw if isinstance(raw, str) else json.dumps(raw)
            call_id = f"call_{turn}_{index}_{serial}"
            item = {
                "type": "function_call",
                "id": f"fc_{serial}_{index}",
                "call_id": call_id,
                "name": name,
                "arguments": arguments,
            }
            if "namespace" in block:  # a namespace tool's (Codex's MCP tools: mcp__<server>)
                item["namespace"] = block["namespace"]
            out.append(
                _event(
                    "response.output_item.added",
                    output_index=index,
                    item={**item, "status": "in_progress", "arguments": ""},
                )
            )
            item = {**item, "status": "completed"}
        else:
            raise MockError(f"unknown block type {kind!r}")
        out.append(_event("response.output_item.done", output_index=index, item=item))
    usage = {
        "input_tokens": tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": tokens + 10,
    }
    completed = {**response, "status": "completed", "usage": usage, "output": []}
    out.append(_event("response.completed", response=completed))
    return b"".join(out)


# --- the server -------------------------------------------------------------------------------


class ResponsesMock:
    """A loopback Responses API server answering from a script (``with ResponsesMock() as m``)."""

    def __init__(self) -> None:
        self.url = ""
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        """Each ``POST``'s request headers, names lowercased."""
        self.errors: list[str] = []
        self.arrivals: list[float] = []
        self._script: Script = {"rules": []}
        self.input_tokens: Callable[[Mapping[str, Any]], int] = lambda body: 100
        """The input usage each response reports (a test of auto-compaction raises it)."""
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    def load(self, case: SideCase) -> None:
        """Answer from now on as ``case``'s replies say (and forget the requests so far)."""
        self.load_script(side_script(case))

    def load_script(self, script: Script) -> None:
        """Answer from now on from a recorded case's ``openai`` script."""
        with self._lock:
            self._script = script
            self.requests = []
            self.paths = []
            self.headers = []
            self.errors = []

    def __enter__(self) -> ResponsesMock:
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        self.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def main_requests(self) -> list[dict[str, Any]]:
        """The requests of Codex's own turns (not side requests: ``is_side_request``)."""
        return [r for r in self.requests if not is_side_request(r)]

    def answer(self, raw: bytes) -> tuple[int, str, bytes]:
        """``(status, content type, body)`` for one ``POST /v1/responses``."""
        try:
            body = json.loads(raw)
        except ValueError:
            return 400, "application/json", b'{"error": {"message": "not JSON"}}'
        with self._lock:
            self.requests.append(body)
            serial = len(self.requests)
            script = self._script
        try:
            blocks = scripted_blocks(script, body)
            errors = [b for b in blocks if b.get("type") == "http_error"]
            if errors:
                status = int(errors[0].get("status", 500))
                return status, "application/json", json.dumps(errors[0].get("body", {})).encode()
            tokens = self.input_tokens(body)
            return 200, "text/event-stream", sse_body(blocks, body, serial, tokens)
        except (MockError, KeyError, TypeError, ValueError) as exc:
            with self._lock:
                self.errors.append(str(exc))
            return 500, "application/json", json.dumps({"error": {"message": str(exc)}}).encode()


def _handler(mock: ResponsesMock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, kind: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            mock.paths.append(f"GET {self.path}")
            if self.path.rstrip("/").endswith("/models"):
                listing = {"object": "list", "data": [{"id": MODEL, "object": "model"}]}
                self._send(200, "application/json", json.dumps(listing).encode())
            else:
                self._send(404, "application/json", b'{"error": {"message": "not here"}}')

        def do_POST(self) -> None:
            mock.paths.append(f"POST {self.path}")
            mock.headers.append({k.lower(): v for k, v in self.headers.items()})
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.split("?", 1)[0].rstrip("/").endswith("/responses"):  # query_params
                mock.arrivals.append(time.perf_counter())
                self._send(*mock.answer(raw))
            else:
                self._send(404, "application/json", b'{"error": {"message": "not here"}}')

    return Handler
