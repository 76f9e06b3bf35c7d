"""A model script, decoded: its rules, replies and blocks, and the decoder that reads them.

``decode_script`` accepts what ``ScriptedModel`` replays (a whole ``case.json``,
its ``model_script``, or the script inside a vendor key) and raises
``ScriptError`` naming the JSON path of the first problem.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import DshError, FrozenDict, NotJSONError, freeze_json
from dsh.base._json import json_kind
from dsh.messages import Usage
from dsh.models._usage import scripted_usage

__all__ = [
    "AutoShellBlock",
    "Block",
    "CallBlock",
    "HttpErrorBlock",
    "HttpHookAnswer",
    "RefusalBlock",
    "Reply",
    "Rule",
    "Script",
    "ScriptError",
    "TextBlock",
    "UsageBlock",
    "Wire",
    "decode_script",
]

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
class TextBlock:
    text: str


@final
@frozen
class CallBlock:
    """A tool call: Anthropic ``tool_use`` or OpenAI ``function_call``."""

    name: str
    arguments: Any  # frozen JSON object
    id: str | None
    id_prefix: str


@final
@frozen
class AutoShellBlock:
    """A call of whichever shell tool the request offers."""

    command: str


@final
@frozen
class HttpErrorBlock:
    status: int
    body: Any


@final
@frozen
class RefusalBlock:
    """The model declines to answer (``ModelRefusal``), with its words if any."""

    text: str


@final
@frozen
class UsageBlock:
    """The tokens the reply reports it used (counts that are not sane are left at 0)."""

    usage: Usage


Block: TypeAlias = (
    TextBlock | CallBlock | AutoShellBlock | HttpErrorBlock | RefusalBlock | UsageBlock
)
Reply: TypeAlias = tuple[Block, ...]


@final
@frozen
class Rule:
    responses: tuple[Reply, ...]
    has_tool: str | None = None
    first_user_contains: str | None = None
    contains: str | None = None
    not_contains: str | None = None
    no_tools: bool | None = None


@final
@frozen
class HttpHookAnswer:
    """What the loopback mock answers a ``type: "http"`` hook's POST to ``/hook/<key>``."""

    status: int
    body: object  # a JSON value (frozen), or text


_NO_HTTP_HOOKS: Mapping[str, tuple[HttpHookAnswer, ...]] = FrozenDict()


@final
@frozen
class Script:
    wire: Wire | None
    rules: tuple[Rule, ...]
    default: Reply | None
    # The mock's answers to http hook handlers, per key, one per call in order (the last
    # repeats); beside the vendor key in a recorded case's model_script. The scripted model
    # serves no HTTP, so it only carries them for the tests that start such a server.
    http_hooks: Mapping[str, tuple[HttpHookAnswer, ...]] = _NO_HTTP_HOOKS
    # The model the script stands for (its name, priced as that model's: ``--max-budget-usd``).
    model: str | None = None


# --- decoding -------------------------------------------------------------------------------

_COMMENT_KEYS = frozenset({"description", "comment"})
# Beside the vendor key of a recorded case: the mock's answers to http hook handlers.
_CASE_KEYS = frozenset({"http_hooks"})
_HTTP_ANSWER_KEYS = frozenset({"status", "body"}) | _COMMENT_KEYS
_SCRIPT_KEYS = (
    frozenset({"rules", "default", "responses", "wire", "vendor", "model"}) | _COMMENT_KEYS
)
_CONDITION_KEYS = ("has_tool", "first_user_contains", "contains", "not_contains")
_RULE_KEYS = frozenset({*_CONDITION_KEYS, "no_tools", "responses"}) | _COMMENT_KEYS
_BLOCK_KEYS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # type: (required keys, optional keys), besides "type"
    "text": (frozenset({"text"}), frozenset()),
    "tool_use": (frozenset({"name", "input"}), frozenset({"id"})),
    "function_call": (frozenset({"name", "arguments"}), frozenset({"call_id", "id"})),
    "auto_shell": (frozenset({"command"}), frozenset()),
    "http_error": (frozenset({"status"}), frozenset({"body"})),
    "refusal": (frozenset(), frozenset({"text"})),
    "usage": (
        frozenset(),
        frozenset(
            {
                "input_tokens",
                "output_tokens",
                "cache_read_input_tokens",
                "cache_creation_input_tokens",
            }
        ),
    ),
}


class _Decoder:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, problem: str) -> ScriptError:
        return ScriptError(self.source, path, problem)

    def mapping(self, value: object, path: str, what: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(path, f"{what} must be a JSON object, not {json_kind(value)}")
        return value

    def string(self, value: object, path: str) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"must be a string, not {json_kind(value)}")
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

    def script(self, data: object) -> Script:
        path = "$"
        obj = self.mapping(data, path, "a model script")
        if "model_script" in obj:  # a whole case.json
            path = "$.model_script"
            obj = self.mapping(obj["model_script"], path, "model_script")
        wire: Wire | None = None
        vendors = [k for k in _WIRES if k in obj]
        http_hooks = _NO_HTTP_HOOKS
        if vendors and not ({"rules", "default", "responses"} & obj.keys()):
            if "http_hooks" in obj:
                http_hooks = self.http_hooks(obj["http_hooks"], f"{path}.http_hooks")
            if len(obj.keys() - _CASE_KEYS) != 1:
                extra = sorted(k for k in obj if k != vendors[0] and k not in _CASE_KEYS)[0]
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
        rules: list[Rule] = []
        if "rules" in obj:
            raw_rules = obj["rules"]
            if not isinstance(raw_rules, list):
                raise self.fail(
                    f"{path}.rules", f"must be a list of rules, not {json_kind(raw_rules)}"
                )
            rules.extend(self.rule(r, f"{path}.rules[{i}]") for i, r in enumerate(raw_rules))
        if "responses" in obj:  # replies at top level: a rule that matches every request
            rules.append(Rule(responses=self.responses(obj["responses"], f"{path}.responses")))
        default = self.reply(obj["default"], f"{path}.default") if "default" in obj else None
        if not rules and default is None:
            raise self.fail(path, "the script has no 'rules', 'responses' or 'default'")
        model = obj.get("model")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise self.fail(f"{path}.model", "must be a model's name (a non-empty string)")
        return Script(
            wire=wire, rules=tuple(rules), default=default, http_hooks=http_hooks, model=model
        )

    def http_hooks(self, value: object, path: str) -> Mapping[str, tuple[HttpHookAnswer, ...]]:
        obj = self.mapping(value, path, "the http hooks' answers")
        answers: dict[str, tuple[HttpHookAnswer, ...]] = {}
        for key, raw in obj.items():
            where = f"{path}.{key}"
            items = raw if isinstance(raw, list) else [raw]
            if not items:
                raise self.fail(where, "needs at least one answer")
            answers[key] = tuple(
                self.http_answer(item, f"{where}[{i}]" if raw is items else where)
                for i, item in enumerate(items)
            )
        return FrozenDict(answers)

    def http_answer(self, value: object, path: str) -> HttpHookAnswer:
        obj = self.mapping(value, path, "an http hook answer")
        self.known_keys(obj, path, _HTTP_ANSWER_KEYS, "an http hook answer")
        status = obj.get("status", 200)
        if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
            raise self.fail(f"{path}.status", f"must be an HTTP status (100-599), not {status!r}")
        try:
            body = freeze_json(obj.get("body", ""), f"{path}.body")
        except NotJSONError as exc:
            raise self.fail(f"{path}.body", str(exc)) from None
        return HttpHookAnswer(status=status, body=body)

    def rule(self, value: object, path: str) -> Rule:
        obj = self.mapping(value, path, "a rule")
        self.known_keys(obj, path, _RULE_KEYS, "a rule")
        if "responses" not in obj:
            raise self.fail(path, "a rule needs 'responses' (a list of replies)")
        conditions = {k: self.string(obj[k], f"{path}.{k}") for k in _CONDITION_KEYS if k in obj}
        no_tools = obj.get("no_tools")
        if no_tools is not None and not isinstance(no_tools, bool):
            raise self.fail(f"{path}.no_tools", f"must be true or false, not {json_kind(no_tools)}")
        return Rule(
            responses=self.responses(obj["responses"], f"{path}.responses"),
            no_tools=no_tools,
            **conditions,
        )

    def responses(self, value: object, path: str) -> tuple[Reply, ...]:
        if not isinstance(value, list):
            raise self.fail(path, f"must be a list of replies, not {json_kind(value)}")
        if not value:
            raise self.fail(path, "must hold at least one reply")
        return tuple(self.reply(r, f"{path}[{i}]") for i, r in enumerate(value))

    def reply(self, value: object, path: str) -> Reply:
        """A reply: a list of blocks, or one block on its own."""
        if isinstance(value, Mapping):
            return (self.block(value, path),)
        if not isinstance(value, list):
            raise self.fail(
                path, f"a reply must be a list of blocks or one block, not {json_kind(value)}"
            )
        if not value:
            raise self.fail(path, "a reply needs at least one block")
        blocks = tuple(self.block(b, f"{path}[{i}]") for i, b in enumerate(value))
        if len(blocks) > 1:
            for i, b in enumerate(blocks):
                if isinstance(b, HttpErrorBlock | RefusalBlock):
                    kind = "http_error" if isinstance(b, HttpErrorBlock) else "refusal"
                    raise self.fail(f"{path}[{i}]", f"a {kind} block must be alone in its reply")
        return blocks

    def block(self, value: object, path: str) -> Block:
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
            return TextBlock(self.string(obj["text"], f"{path}.text"))
        if kind == "tool_use":
            return CallBlock(
                name=self.string(obj["name"], f"{path}.name"),
                arguments=self.arguments(obj["input"], f"{path}.input"),
                id=self.string(obj["id"], f"{path}.id") if "id" in obj else None,
                id_prefix="toolu_",
            )
        if kind == "function_call":
            id_key = "call_id" if "call_id" in obj else "id"
            return CallBlock(
                name=self.string(obj["name"], f"{path}.name"),
                arguments=self.arguments(obj["arguments"], f"{path}.arguments"),
                id=self.string(obj[id_key], f"{path}.{id_key}") if id_key in obj else None,
                id_prefix="call_",
            )
        if kind == "auto_shell":
            return AutoShellBlock(self.string(obj["command"], f"{path}.command"))
        if kind == "refusal":
            return RefusalBlock(self.string(obj.get("text", ""), f"{path}.text"))
        if kind == "usage":
            return UsageBlock(scripted_usage(obj) or Usage())
        status = obj["status"]
        if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
            raise self.fail(f"{path}.status", f"must be an HTTP status (100-599), not {status!r}")
        try:
            body = freeze_json(obj.get("body"), f"{path}.body")
        except NotJSONError as e:
            raise self.fail(e.path, e.problem) from None
        return HttpErrorBlock(status=status, body=body)

    def arguments(self, value: object, path: str) -> Any:
        """Tool input: a JSON object, or (OpenAI style) a string holding one."""
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as e:
                raise self.fail(path, f"is a string but not valid JSON: {e.msg}") from None
        if not isinstance(value, Mapping):
            raise self.fail(path, f"tool input must be a JSON object, not {json_kind(value)}")
        try:
            return freeze_json(value, path)
        except NotJSONError as e:
            raise self.fail(e.path, e.problem) from None


def decode_script(data: object, source: str) -> Script:
    """The script in ``data``; ``source`` (a file name) starts every ``ScriptError``'s message."""
    return _Decoder(source).script(data)
