"""``dsh run --input-format stream-json``: user messages and control requests on stdin.

One JSON object a line, as ``claude -p --input-format stream-json`` reads them, each handled
as it arrives (the stream may stay open): ``{"type": "user", "message": {"role": "user",
"content": "..." | [text blocks]}}`` runs one turn; ``{"type": "control_request",
"request_id": ID, "request": {"subtype": ...}}`` is answered with a ``control_response``
line on stdout. Subtypes: ``set_model`` (``model``: the session switches between turns,
unless a policy denies it: PreModelSwitch) and ``register_repo_root`` (``directory``: a
working directory joins the session: DirectoryAdded); any other is answered with an error.
Input is bounded (``MAX_LINE_BYTES`` a line, ``MAX_LINES`` lines); a line that is not a JSON
object of a known type ends the run with an error naming its line number.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, Final, TypeAlias, final

from dsh._frozen import frozen
from dsh.agent import Agent, ModelSwitchDeny, TurnResult, run_notifications
from dsh.base import DshError
from dsh.messages import Content, TextBlock
from dsh.models import Model

__all__ = [
    "MAX_LINES",
    "MAX_LINE_BYTES",
    "ControlLine",
    "StreamInputError",
    "StreamLine",
    "UserLine",
    "handle_control",
    "parse_stream_line",
    "run_stream",
]

MAX_LINE_BYTES: Final = 1024 * 1024
MAX_LINES: Final = 10_000

ModelResolver: TypeAlias = Callable[[str], Model]
"""The model a ``set_model`` name (an alias such as ``sonnet``, or a full name) selects."""

Respond: TypeAlias = Callable[[Mapping[str, Any]], None]


class StreamInputError(DshError, ValueError):
    """A stream-json input line dsh cannot use; the message names the line."""


@final
@frozen
class UserLine:
    """A user message: one turn."""

    content: Content
    line: int


@final
@frozen
class ControlLine:
    """A control request: ``subtype`` and the request's other fields."""

    request_id: str
    subtype: str
    request: Mapping[str, Any]
    line: int


StreamLine: TypeAlias = UserLine | ControlLine


def parse_stream_line(text: str, line: int) -> StreamLine | None:
    """One input line (``None`` for a blank one); ``StreamInputError`` names what is wrong."""
    if not text.strip():
        return None
    where = f"stdin line {line}"
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise StreamInputError(f"{where}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise StreamInputError(f"{where}: a JSON object is expected")
    kind = data.get("type")
    if kind == "user":
        return UserLine(_user_content(data.get("message"), where), line)
    if kind == "control_request":
        request = data.get("request")
        request_id = data.get("request_id")
        if not isinstance(request, dict) or not isinstance(request.get("subtype"), str):
            raise StreamInputError(f"{where}: a control_request needs a request with a subtype")
        if not isinstance(request_id, str) or not request_id:
            raise StreamInputError(f"{where}: a control_request needs a request_id")
        return ControlLine(request_id, request["subtype"], request, line)
    raise StreamInputError(f"{where}: unknown line type {kind!r} (user, control_request)")


def _user_content(message: object, where: str) -> Content:
    if not isinstance(message, dict) or message.get("role", "user") != "user":
        raise StreamInputError(f"{where}: a user line needs a message with role user")
    content = message.get("content")
    if isinstance(content, str) and content.strip():
        return content
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        if texts and all(isinstance(t, str) for t in texts) and len(texts) == len(content):
            return tuple(TextBlock(t) for t in texts if isinstance(t, str))
    raise StreamInputError(f"{where}: message content must be text or a list of text blocks")


async def handle_control(
    agent: Agent, control: ControlLine, *, resolve_model: ModelResolver
) -> dict[str, Any]:
    """Apply one control request between turns; the ``control_response`` line to write."""
    request = control.request
    if control.subtype == "set_model":
        name = request.get("model")
        if not isinstance(name, str) or not name.strip():
            return _error(control, "set_model needs a model name", "invalid_request")
        try:
            model = resolve_model(name.strip())
        except (DshError, OSError, ValueError) as exc:
            return _error(control, f"cannot switch to model {name!r}: {exc}", "invalid_request")
        decision = await agent.switch_model(model, requested=name.strip(), source="sdk")
        if isinstance(decision, ModelSwitchDeny):
            text = f"Model switch blocked by a PreModelSwitch hook: {decision.reason}"
            return _error(control, text, "blocked_by_hook")
        return _success(control)
    if control.subtype == "register_repo_root":
        directory = request.get("directory")
        if not isinstance(directory, str) or not directory.strip():
            return _error(control, "register_repo_root needs a directory", "invalid_request")
        await agent.add_directory(Path(directory), source="register_repo_root")
        return _success(control)
    return _error(control, f"unsupported control request {control.subtype!r}", "unsupported")


def _success(control: ControlLine) -> dict[str, Any]:
    response = {"subtype": "success", "request_id": control.request_id, "response": {}}
    return {"type": "control_response", "response": response}


def _error(control: ControlLine, message: str, code: str) -> dict[str, Any]:
    response = {
        "subtype": "error",
        "request_id": control.request_id,
        "error": message,
        "error_code": code,
    }
    return {"type": "control_response", "response": response}


async def run_stream(
    agent: Agent,
    stream: IO[str],
    *,
    resolve_model: ModelResolver,
    respond: Respond,
    after_turn: Callable[[TurnResult], bool] | None = None,
) -> TurnResult | None:
    """Read ``stream`` to its end, a line at a time: each user line a turn, each control
    request answered through ``respond``. ``after_turn`` returns ``False`` to stop early.
    Returns the last turn's result (``None`` when no turn ran)."""
    last: TurnResult | None = None
    acted = False
    await agent.start()  # as Claude Code: SessionStart before the first line is read
    for n in range(1, MAX_LINES + 2):
        text = await asyncio.to_thread(stream.readline, MAX_LINE_BYTES + 1)
        if not text:
            if not acted:  # as an empty prompt is: a usage error, not a silent success
                raise StreamInputError("stdin held no user message or control request")
            return last
        if n > MAX_LINES:
            raise StreamInputError(f"stdin line {n}: more than {MAX_LINES} lines")
        if len(text.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
            raise StreamInputError(f"stdin line {n}: longer than {MAX_LINE_BYTES} bytes")
        item = parse_stream_line(text, n)
        acted = acted or item is not None
        if isinstance(item, UserLine):
            agent.send(item.content)
            last = await agent.run_turn()
            if after_turn is not None and not after_turn(last):
                return last
            notified, go_on = await _notification_turns(agent, after_turn)
            last = notified or last
            if not go_on:
                return last
        elif isinstance(item, ControlLine):
            respond(await handle_control(agent, item, resolve_model=resolve_model))
    return last


async def _notification_turns(
    agent: Agent, after_turn: Callable[[TurnResult], bool] | None
) -> tuple[TurnResult | None, bool]:
    """Each background subagent that finishes starts a turn, told to ``after_turn`` as the
    user's are (a result of its own); the last one, and whether the input goes on."""
    failed: list[TurnResult] = []

    def told(result: TurnResult) -> None:
        if after_turn is not None and not failed and not after_turn(result):
            failed.append(result)

    last = await run_notifications(agent, on_turn=told)
    return (failed[0], False) if failed else (last, True)
