"""The scripted model: replays a JSON script in the conformance cases' ``model_script`` vocabulary.

A script is ordered ``rules`` plus a ``default``. The first rule whose conditions
all hold for the request answers it; ``responses[i]`` is the reply once ``i``
assistant turns are already in the request's history, and past the end the last
reply repeats. Recorded cases replay without translation: a whole ``case.json``,
its ``model_script``, or the script inside a vendor key (``{"anthropic": {...}}``)
are all accepted. ``ScriptedModel`` documents the block vocabulary.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from dsh.base import freeze_json, read_bounded
from dsh.messages import AssistantMessage, ToolUse, Usage, UserMessage, content_text
from dsh.models._script import (
    AutoShellBlock,
    CallBlock,
    HttpErrorBlock,
    RefusalBlock,
    Reply,
    Script,
    ScriptError,
    TextBlock,
    UsageBlock,
    Wire,
    decode_script,
)
from dsh.models._types import (
    ModelError,
    ModelRefusal,
    ModelRequest,
    TextCallback,
    ToolSpec,
    request_text,
    request_to_json,
)

__all__ = ["ScriptedModel"]

_MAX_SCRIPT_BYTES = 64 << 20
"""A model script is read whole: a bound, so a FIFO or device named for it is refused."""


@cache
def _scripted_id() -> re.Pattern[str]:
    # Compiled at the first call id read: a script whose replies make no call never does.
    return re.compile(r"^(?:toolu|call)_(\d+)$")


# Shell tools in the order preferred, with the input field carrying the command.
_SHELL_TOOLS: tuple[tuple[str, str], ...] = (
    ("Bash", "command"),
    ("exec_command", "cmd"),
    ("shell_command", "command"),
    ("shell", "command"),
)


def _shell_call(command: str, tools: Sequence[ToolSpec]) -> tuple[str, dict[str, Any]]:
    """The call of the shell tool the request offers (``Bash`` when it offers none)."""
    offered = {t.name: t for t in tools}
    for name, field in _SHELL_TOOLS:
        spec = offered.get(name)
        if spec is None:
            continue
        props = spec.input_schema.get("properties")
        prop = props.get(field) if isinstance(props, Mapping) else None
        if isinstance(prop, Mapping) and prop.get("type") == "array":
            return name, {field: ["bash", "-lc", command]}
        return name, {field: command}
    return "Bash", {"command": command}


def _error_message(body: Any) -> str:
    """The message inside an error body (Anthropic and OpenAI both nest it under ``error``)."""
    if isinstance(body, Mapping):
        err = body.get("error")
        if isinstance(err, Mapping) and isinstance(err.get("message"), str):
            return str(err["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    if isinstance(body, str):
        return body
    return json.dumps(body)


class ScriptedModel:
    """A model that answers from a script; used by tests, the demo, and case replays.

    Rule conditions (all given ones must hold): ``has_tool: X`` (the request offers a
    tool named X), ``no_tools: true`` (it offers none, e.g. a compaction call;
    ``false``: it offers some), ``first_user_contains`` (the text of the first user
    message), ``contains`` / ``not_contains`` (the whole request's text: system prompt,
    every message's text, tool results, context, steering and summaries). A rule with
    no condition matches every request. Top-level ``responses`` act as such a rule
    after the listed ones.

    Blocks: ``{"type": "text", "text"}``; ``{"type": "tool_use", "name", "input", "id"?}``;
    ``{"type": "function_call", "name", "arguments", "call_id"?}`` (arguments an object
    or a JSON string); ``{"type": "auto_shell", "command"}`` (a call of the shell tool
    the request offers: ``Bash`` with ``command``, ``exec_command`` with ``cmd``, ...);
    ``{"type": "http_error", "status", "body"?}`` (raises ``ModelError``, retryable for
    429 and 5xx; never retried here); ``{"type": "refusal", "text"?}`` (raises
    ``ModelRefusal``: the model declined to answer); ``{"type": "usage", "input_tokens"?,
    "output_tokens"?, "cache_read_input_tokens"?, "cache_creation_input_tokens"?}`` (the
    reply's ``AssistantMessage.usage``, several summed; a count that is not one is 0).
    Several text blocks join with a blank line.
    Tool call ids are ``toolu_<n>`` / ``call_<n>``, numbered after every such id in the
    request's history and every id this model has given, so they are deterministic and
    unique within a conversation even across a resume.

    ``record_to``: every request is appended there as one JSON line
    (``request_to_json``), before it is answered. ``substitutions``: placeholders
    replaced in every string the script plays (text, tool input, commands), e.g.
    ``{"__PROJ__": "/path/to/project"}`` for the cases recorded with that placeholder.
    ``name``: the model name it answers to (hook payloads' ``model``, ``from_model``).
    """

    def __init__(
        self,
        script: Mapping[str, Any],
        *,
        record_to: Path | None = None,
        source: str = "<script>",
        substitutions: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> None:
        self._script = decode_script(script, source)
        self._substitutions = dict(substitutions or {})
        self._source = source
        if name is None:
            name = self._script.model or f"scripted:{source}"
        self._name = name
        self._record_to = record_to
        self._last_id = 0
        self.requests = 0
        """How many requests this model has answered (or failed)."""

    @classmethod
    def from_file(
        cls,
        path: Path | str,
        *,
        record_to: Path | None = None,
        substitutions: Mapping[str, str] | None = None,
    ) -> ScriptedModel:
        """Load a script (or a whole ``case.json``) from ``path``; raises ``ScriptError``."""
        path = Path(path)
        try:
            text = read_bounded(path, _MAX_SCRIPT_BYTES, "model script").decode("utf-8")
        except OSError as e:
            raise ScriptError(str(path), "", f"cannot read the script: {e.strerror or e}") from None
        except UnicodeDecodeError as e:
            raise ScriptError(str(path), "", f"the script is not UTF-8 text: {e.reason}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ScriptError(
                str(path), "", f"line {e.lineno} column {e.colno}: invalid JSON: {e.msg}"
            ) from None
        return cls(data, record_to=record_to, source=str(path), substitutions=substitutions)

    @property
    def name(self) -> str:
        """``scripted:<source>``, or the ``name`` it was given (a replay names it as the
        recording's model: ``claude-opus-5-5``, ``mock-model``), else the script's ``model``."""
        return self._name

    @property
    def wire(self) -> Wire | None:
        """The vendor vocabulary the script says it uses (``anthropic``/``openai``), if it says."""
        return self._script.wire

    @property
    def script(self) -> Script:
        """The decoded script (its rules, default reply and any http hook answers)."""
        return self._script

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        self.requests += 1
        if self._record_to is not None:
            self._record(request)
        reply = self._choose(request)
        for _ in range(self._sent_again(reply)):
            self.requests += 1
            if self._record_to is not None:
                self._record(request)
        return self._play(reply, request, on_text)

    def _sent_again(self, reply: Reply) -> int:
        """How many more times an ``anthropic`` script's failing request is sent, as the
        Anthropic wire sends it (``_anthropic``: a 400 five more times; a retryable status
        ``CLAUDE_CODE_MAX_RETRIES`` times), so a replay makes the requests dsh would."""
        failure = next((b for b in reply if isinstance(b, HttpErrorBlock)), None)
        if failure is None or self._script.wire != "anthropic":
            return 0
        from dsh.models._anthropic import scripted_resends

        return scripted_resends(failure.status)

    def _record(self, request: ModelRequest) -> None:
        assert self._record_to is not None
        self._record_to.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(request_to_json(request), ensure_ascii=False)
        with self._record_to.open("a", encoding="utf-8") as f:
            f.write(line + "\n")

    def _choose(self, request: ModelRequest) -> Reply:
        offered = {t.name for t in request.tools}
        first_user = next(
            (content_text(m.content) for m in request.messages if isinstance(m, UserMessage)), ""
        )
        whole: str | None = None
        for rule in self._script.rules:
            if rule.has_tool is not None and rule.has_tool not in offered:
                continue
            if rule.no_tools is not None and rule.no_tools != (not offered):
                continue
            if rule.first_user_contains is not None and rule.first_user_contains not in first_user:
                continue
            if rule.contains is not None or rule.not_contains is not None:
                whole = request_text(request) if whole is None else whole
                if rule.contains is not None and rule.contains not in whole:
                    continue
                if rule.not_contains is not None and rule.not_contains in whole:
                    continue
            turns = sum(1 for m in request.messages if isinstance(m, AssistantMessage))
            return rule.responses[min(turns, len(rule.responses) - 1)]
        if self._script.default is None:
            raise ModelError(
                f"{self._source}: no rule of the script matched the request, and it has no default",
                status=None,
                retryable=False,
            )
        return self._script.default

    def _play(
        self, reply: Reply, request: ModelRequest, on_text: TextCallback | None
    ) -> AssistantMessage:
        texts: list[str] = []
        calls: list[ToolUse] = []
        usage: Usage | None = None
        for block in reply:
            match block:
                case HttpErrorBlock(status=status, body=body):
                    raise ModelError(
                        f"HTTP {status} from the scripted model: {_error_message(body)}",
                        status=status,
                        retryable=status == 429 or status >= 500,
                    )
                case RefusalBlock(text=text):
                    raise ModelRefusal(
                        f"the scripted model refused to answer: {text}"
                        if text
                        else "the scripted model refused to answer"
                    )
                case TextBlock(text=text):
                    text = self._substitute(text)
                    delta = ("\n\n" if texts else "") + text
                    texts.append(text)
                    if on_text is not None:
                        on_text(delta)
                case CallBlock(name=name, arguments=arguments, id=given, id_prefix=prefix):
                    call_id = given or self._next_id(prefix, request)
                    calls.append(ToolUse(call_id, name, self._substitute(arguments)))
                case AutoShellBlock(command=command):
                    name, args = _shell_call(self._substitute(command), request.tools)
                    calls.append(ToolUse(self._next_id("call_", request), name, freeze_json(args)))
                case UsageBlock(usage=counts):
                    usage = counts if usage is None else usage + counts
        return AssistantMessage(text="\n\n".join(texts), tool_calls=tuple(calls), usage=usage)

    def _substitute(self, value: Any) -> Any:
        if not self._substitutions:
            return value
        if isinstance(value, str):
            for placeholder, actual in self._substitutions.items():
                value = value.replace(placeholder, actual)
            return value
        if isinstance(value, Mapping):
            return freeze_json({k: self._substitute(v) for k, v in value.items()})
        if isinstance(value, tuple):
            return tuple(self._substitute(v) for v in value)
        return value

    def _next_id(self, prefix: str, request: ModelRequest) -> str:
        for m in request.messages:
            if isinstance(m, AssistantMessage):
                for call in m.tool_calls:
                    found = _scripted_id().match(call.id)
                    if found:
                        self._last_id = max(self._last_id, int(found.group(1)))
        self._last_id += 1
        return f"{prefix}{self._last_id}"
