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
from pathlib import Path
from typing import Any, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import DshError
from dsh.models._types import (
    ModelError,
    ModelRequest,
    TextCallback,
    ToolSpec,
    request_text,
    request_to_json,
)
from dsh.session import (
    AssistantMessage,
    NotJSONError,
    ToolUse,
    UserMessage,
    content_text,
    freeze_json,
)

__all__ = ["ScriptError", "ScriptedModel"]

Wire: TypeAlias = Literal["anthropic", "openai"]
_WIRES: tuple[Wire, ...] = ("anthropic", "openai")


class ScriptError(DshError, ValueError):
    """A malformed model script; the message names the file and the JSON path (``$.rules[0]``)."""

    def __init__(self, source: str, path: str, problem: str) -> None:
        super().__init__(f"{source}: {path}: {problem}" if path else f"{source}: {problem}")
        self.source = source
        self.path = path
        self.problem = problem


@final
@frozen
class _Text:
    text: str


@final
@frozen
class _Call:
    """A tool call: Anthropic ``tool_use`` or OpenAI ``function_call``."""

    name: str
    arguments: Any  # frozen JSON object
    id: str | None
    id_prefix: str


@final
@frozen
class _AutoShell:
    """A call of whichever shell tool the request offers."""

    command: str


@final
@frozen
class _HttpError:
    status: int
    body: Any


_Block: TypeAlias = _Text | _Call | _AutoShell | _HttpError
_Reply: TypeAlias = tuple[_Block, ...]


@final
@frozen
class _Rule:
    responses: tuple[_Reply, ...]
    has_tool: str | None = None
    first_user_contains: str | None = None
    contains: str | None = None
    not_contains: str | None = None
    no_tools: bool | None = None


@final
@frozen
class _Script:
    wire: Wire | None
    rules: tuple[_Rule, ...]
    default: _Reply | None


# --- decoding -------------------------------------------------------------------------------

_COMMENT_KEYS = frozenset({"description", "comment"})
_SCRIPT_KEYS = frozenset({"rules", "default", "responses", "wire", "vendor"}) | _COMMENT_KEYS
_CONDITION_KEYS = ("has_tool", "first_user_contains", "contains", "not_contains")
_RULE_KEYS = frozenset({*_CONDITION_KEYS, "no_tools", "responses"}) | _COMMENT_KEYS
_BLOCK_KEYS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # type: (required keys, optional keys), besides "type"
    "text": (frozenset({"text"}), frozenset()),
    "tool_use": (frozenset({"name", "input"}), frozenset({"id"})),
    "function_call": (frozenset({"name", "arguments"}), frozenset({"call_id", "id"})),
    "auto_shell": (frozenset({"command"}), frozenset()),
    "http_error": (frozenset({"status"}), frozenset({"body"})),
}


class _Decoder:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, problem: str) -> ScriptError:
        return ScriptError(self.source, path, problem)

    def mapping(self, value: object, path: str, what: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(path, f"{what} must be a JSON object, not {_kind(value)}")
        return value

    def string(self, value: object, path: str) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"must be a string, not {_kind(value)}")
        return value

    def known_keys(
        self, obj: Mapping[str, Any], path: str, allowed: frozenset[str], what: str
    ) -> None:
        unknown = sorted(k for k in obj if k not in allowed)
        if unknown:
            expected = ", ".join(sorted(allowed))
            raise self.fail(
                f"{path}.{unknown[0]}",
                f"unknown key {unknown[0]!r} in {what} (expected one of: {expected})",
            )

    def script(self, data: object) -> _Script:
        path = "$"
        obj = self.mapping(data, path, "a model script")
        if "model_script" in obj:  # a whole case.json
            path = "$.model_script"
            obj = self.mapping(obj["model_script"], path, "model_script")
        wire: Wire | None = None
        vendors = [k for k in _WIRES if k in obj]
        if vendors and not ({"rules", "default", "responses"} & obj.keys()):
            if len(obj) != 1:
                extra = sorted(k for k in obj if k != vendors[0])[0]
                raise self.fail(
                    f"{path}.{extra}",
                    f"a script wrapped in a vendor key ({vendors[0]!r}) must have no other key",
                )
            wire = vendors[0]
            path = f"{path}.{wire}"
            obj = self.mapping(obj[wire], path, f"the {wire!r} script")
        self.known_keys(obj, path, _SCRIPT_KEYS, "a model script")
        if "wire" in obj and "vendor" in obj:
            raise self.fail(f"{path}.vendor", "give either 'wire' or 'vendor', not both")
        for key in ("wire", "vendor"):
            if key in obj:
                value = obj[key]
                if value not in _WIRES:
                    raise self.fail(
                        f"{path}.{key}", f"must be 'anthropic' or 'openai', not {value!r}"
                    )
                wire = value
        rules: list[_Rule] = []
        if "rules" in obj:
            raw_rules = obj["rules"]
            if not isinstance(raw_rules, list):
                raise self.fail(f"{path}.rules", f"must be a list of rules, not {_kind(raw_rules)}")
            rules.extend(self.rule(r, f"{path}.rules[{i}]") for i, r in enumerate(raw_rules))
        if "responses" in obj:  # replies at top level: a rule that matches every request
            rules.append(_Rule(responses=self.responses(obj["responses"], f"{path}.responses")))
        default = self.reply(obj["default"], f"{path}.default") if "default" in obj else None
        if not rules and default is None:
            raise self.fail(path, "the script has no 'rules', 'responses' or 'default'")
        return _Script(wire=wire, rules=tuple(rules), default=default)

    def rule(self, value: object, path: str) -> _Rule:
        obj = self.mapping(value, path, "a rule")
        self.known_keys(obj, path, _RULE_KEYS, "a rule")
        if "responses" not in obj:
            raise self.fail(path, "a rule needs 'responses' (a list of replies)")
        conditions = {k: self.string(obj[k], f"{path}.{k}") for k in _CONDITION_KEYS if k in obj}
        no_tools = obj.get("no_tools")
        if no_tools is not None and not isinstance(no_tools, bool):
            raise self.fail(f"{path}.no_tools", f"must be true or false, not {_kind(no_tools)}")
        return _Rule(
            responses=self.responses(obj["responses"], f"{path}.responses"),
            no_tools=no_tools,
            **conditions,
        )

    def responses(self, value: object, path: str) -> tuple[_Reply, ...]:
        if not isinstance(value, list):
            raise self.fail(path, f"must be a list of replies, not {_kind(value)}")
        if not value:
            raise self.fail(path, "must hold at least one reply")
        return tuple(self.reply(r, f"{path}[{i}]") for i, r in enumerate(value))

    def reply(self, value: object, path: str) -> _Reply:
        """A reply: a list of blocks, or one block on its own."""
        if isinstance(value, Mapping):
            return (self.block(value, path),)
        if not isinstance(value, list):
            raise self.fail(
                path, f"a reply must be a list of blocks or one block, not {_kind(value)}"
            )
        if not value:
            raise self.fail(path, "a reply needs at least one block")
        blocks = tuple(self.block(b, f"{path}[{i}]") for i, b in enumerate(value))
        if len(blocks) > 1:
            for i, b in enumerate(blocks):
                if isinstance(b, _HttpError):
                    raise self.fail(
                        f"{path}[{i}]", "an http_error block must be alone in its reply"
                    )
        return blocks

    def block(self, value: object, path: str) -> _Block:
        obj = self.mapping(value, path, "a block")
        if "type" not in obj:
            raise self.fail(path, "a block needs a 'type'")
        kind = obj["type"]
        if not isinstance(kind, str) or kind not in _BLOCK_KEYS:
            raise self.fail(
                f"{path}.type",
                f"unknown block type {kind!r} (expected one of: {', '.join(_BLOCK_KEYS)})",
            )
        required, optional = _BLOCK_KEYS[kind]
        self.known_keys(obj, path, required | optional | {"type"}, f"a {kind} block")
        missing = sorted(required - obj.keys())
        if missing:
            raise self.fail(path, f"a {kind} block needs {missing[0]!r}")
        if kind == "text":
            return _Text(self.string(obj["text"], f"{path}.text"))
        if kind == "tool_use":
            return _Call(
                name=self.string(obj["name"], f"{path}.name"),
                arguments=self.arguments(obj["input"], f"{path}.input"),
                id=self.string(obj["id"], f"{path}.id") if "id" in obj else None,
                id_prefix="toolu_",
            )
        if kind == "function_call":
            id_key = "call_id" if "call_id" in obj else "id"
            return _Call(
                name=self.string(obj["name"], f"{path}.name"),
                arguments=self.arguments(obj["arguments"], f"{path}.arguments"),
                id=self.string(obj[id_key], f"{path}.{id_key}") if id_key in obj else None,
                id_prefix="call_",
            )
        if kind == "auto_shell":
            return _AutoShell(self.string(obj["command"], f"{path}.command"))
        status = obj["status"]
        if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
            raise self.fail(f"{path}.status", f"must be an HTTP status (100-599), not {status!r}")
        try:
            body = freeze_json(obj.get("body"), f"{path}.body")
        except NotJSONError as e:
            raise self.fail(e.path, e.problem) from None
        return _HttpError(status=status, body=body)

    def arguments(self, value: object, path: str) -> Any:
        """Tool input: a JSON object, or (OpenAI style) a string holding one."""
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as e:
                raise self.fail(path, f"is a string but not valid JSON: {e.msg}") from None
        if not isinstance(value, Mapping):
            raise self.fail(path, f"tool input must be a JSON object, not {_kind(value)}")
        try:
            return freeze_json(value, path)
        except NotJSONError as e:
            raise self.fail(e.path, e.problem) from None


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


# --- playing ----------------------------------------------------------------------------------

_SCRIPTED_ID = re.compile(r"^(?:toolu|call)_(\d+)$")

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
    429 and 5xx; never retried here). Several text blocks join with a blank line.
    Tool call ids are ``toolu_<n>`` / ``call_<n>``, numbered after every such id in the
    request's history and every id this model has given, so they are deterministic and
    unique within a conversation even across a resume.

    ``record_to``: every request is appended there as one JSON line
    (``request_to_json``), before it is answered. ``substitutions``: placeholders
    replaced in every string the script plays (text, tool input, commands), e.g.
    ``{"__PROJ__": "/path/to/project"}`` for the cases recorded with that placeholder.
    """

    def __init__(
        self,
        script: Mapping[str, Any],
        *,
        record_to: Path | None = None,
        source: str = "<script>",
        substitutions: Mapping[str, str] | None = None,
    ) -> None:
        self._script = _Decoder(source).script(script)
        self._substitutions = dict(substitutions or {})
        self._source = source
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
            text = path.read_text(encoding="utf-8")
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
        return f"scripted:{self._source}"

    @property
    def wire(self) -> Wire | None:
        """The vendor vocabulary the script says it uses (``anthropic``/``openai``), if it says."""
        return self._script.wire

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        self.requests += 1
        if self._record_to is not None:
            self._record(request)
        reply = self._choose(request)
        return self._play(reply, request, on_text)

    def _record(self, request: ModelRequest) -> None:
        assert self._record_to is not None
        self._record_to.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(request_to_json(request), ensure_ascii=False)
        with self._record_to.open("a", encoding="utf-8") as f:
            f.write(line + "\n")

    def _choose(self, request: ModelRequest) -> _Reply:
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
        self, reply: _Reply, request: ModelRequest, on_text: TextCallback | None
    ) -> AssistantMessage:
        texts: list[str] = []
        calls: list[ToolUse] = []
        for block in reply:
            match block:
                case _HttpError(status=status, body=body):
                    raise ModelError(
                        f"HTTP {status} from the scripted model: {_error_message(body)}",
                        status=status,
                        retryable=status == 429 or status >= 500,
                    )
                case _Text(text=text):
                    text = self._substitute(text)
                    delta = ("\n\n" if texts else "") + text
                    texts.append(text)
                    if on_text is not None:
                        on_text(delta)
                case _Call(name=name, arguments=arguments, id=given, id_prefix=prefix):
                    call_id = given or self._next_id(prefix, request)
                    calls.append(ToolUse(call_id, name, self._substitute(arguments)))
                case _AutoShell(command=command):
                    name, args = _shell_call(self._substitute(command), request.tools)
                    calls.append(ToolUse(self._next_id("call_", request), name, freeze_json(args)))
        return AssistantMessage(text="\n\n".join(texts), tool_calls=tuple(calls))

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
                    found = _SCRIPTED_ID.match(call.id)
                    if found:
                        self._last_id = max(self._last_id, int(found.group(1)))
        self._last_id += 1
        return f"{prefix}{self._last_id}"
