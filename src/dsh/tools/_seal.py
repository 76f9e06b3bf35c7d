"""Sealing: a caller's request checked, rewritten and frozen into a call's identity.

``seal_request`` copies and freezes the arguments (they must be JSON),
checks the identity's shape (``tool_use_id``, ``parent``), resolves the tool
and validates the input (``INVALID_ARGS``); ``rewrite`` is the
``tools/rewrite-input`` chain that runs before identity, each replacement
validated again. An unknown tool name is not a sealing failure: the call
travels the phases and core dispatch normalizes it (``UNKNOWN_TOOL``).
"""

from __future__ import annotations

import logging
from typing import cast, final

from dsh._frozen import frozen
from dsh.base import FrozenDict, NotJSONError, freeze_json, thaw_json
from dsh.base._json import json_kind
from dsh.context import ChannelError
from dsh.context._chain import describe
from dsh.messages import ToolUse
from dsh.tools._call_state import CallState
from dsh.tools._channels import REWRITE_INPUT, RewriteListener
from dsh.tools._decisions import InputReplace, InputRewrite
from dsh.tools._failures import exc_text, invalid_args, listener_failed
from dsh.tools._identity import CallToken, ProposedCall, ToolCall, ToolRequest, mint_token
from dsh.tools._schema import ArgumentErrors, ArgumentValidator, compile_validator
from dsh.tools._types import ToolCaller, ToolDefinition, ToolResult

__all__ = [
    "MAX_ARGUMENT_CHARS",
    "Entry",
    "SealFailure",
    "arguments_size",
    "remember_validator",
    "rewrite",
    "seal_request",
    "validate_arguments",
]

logger = logging.getLogger("dsh.tools")

_EMPTY = FrozenDict()

MAX_ARGUMENT_CHARS = 1 << 20
"""The most one call's arguments may hold (characters of strings, keys included).

A model's whole reply is bounded by its output tokens (at most 128k for any current
model, about half a megabyte of text), so a call over 1 MiB did not come from a model
doing its job; refusing it keeps a runaway or hostile reply from being copied into the
log and every later request. A Write of a whole large file stays well inside."""


_SEQUENCES = (list, tuple)


def arguments_size(value: object, limit: int = MAX_ARGUMENT_CHARS) -> int:
    """The characters in ``value``'s strings and keys (plus one per other value), counted
    no further than just past ``limit``: a cheap bound check that walks no more than it must.

    On the tool pipeline's path for every call: the type tests are exact-class tuples made
    once (a ``dict | list`` union in the loop would be built again for every item)."""
    total = 0
    stack = [value]
    seen: set[int] = set()  # a container met twice (a cycle) is freezing's to refuse
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):  # FrozenDict is a dict
            if id(item) in seen:
                continue
            seen.add(id(item))
            for key in item:
                total += len(key) if isinstance(key, str) else 1
            stack.extend(item.values())
        elif isinstance(item, _SEQUENCES):
            if id(item) in seen:
                continue
            seen.add(id(item))
            total += 1
            stack.extend(item)
        else:
            total += 1
    return total


def _oversized(name: str, size: int) -> ToolResult:
    problem = (
        f"the arguments hold more than {MAX_ARGUMENT_CHARS:,} characters, the most a tool"
        " call may have; the call was not run and its arguments were not kept"
    )
    return invalid_args(name, ({"path": "$", "message": problem},), oversized=size)


@final
@frozen
class Entry:
    """A registered tool and its compiled argument validator."""

    definition: ToolDefinition
    validate: ArgumentValidator


@final
@frozen
class SealFailure:
    """A call that failed sealing: the call as far as it was sealed, and its normalized result.

    ``registry.run`` takes it like a sealed call and skips straight to
    post-execute, so every outcome reaches the post policies and observers.
    """

    call: ToolCall
    result: ToolResult


def seal_request(
    entries: dict[str, Entry],
    request: object,
    agent: ToolCaller | None,
    parent: object,
) -> tuple[ToolCall, ToolResult | None]:
    """The caller's call, checked (the rewrite chain comes after, when there is one)."""
    if type(request) is not ToolRequest:
        if isinstance(request, ToolUse):
            request = ToolRequest.from_tool_use(request)
        else:
            raise TypeError(f"execute() takes a ToolRequest, not {type(request).__name__}")
    req = request
    name = req.name if isinstance(req.name, str) else str(req.name)
    # Minted here but seen by nobody before the call is sealed: rewriters get no token.
    token = mint_token()
    # The call's slot lives from here (the rewriters' ``ProposedCall.state``) to its result.
    state = CallState()
    entry = entries.get(name)
    tool = entry.definition if entry is not None else None
    use_id = req.tool_use_id
    if use_id is not None and type(use_id) is not str:
        call = ToolCall(name, _EMPTY, token, None, None, tool, agent, state=state)
        return call, _bad_identity(name, "tool_use_id", "a str or None", use_id)
    if parent is not None and type(parent) is not CallToken:
        call = ToolCall(name, _EMPTY, token, None, use_id, tool, agent, state=state)
        return call, _bad_identity(name, "parent", "a CallToken or None", parent)
    up = parent
    size = arguments_size(req.arguments)
    if size > MAX_ARGUMENT_CHARS:
        # Neither frozen (a copy) nor logged: the call's identity keeps none of them.
        return ToolCall(name, _EMPTY, token, up, use_id, tool, agent), _oversized(name, size)
    try:
        arguments = freeze_json(req.arguments)
    except NotJSONError as exc:
        call = ToolCall(name, _EMPTY, token, up, use_id, tool, agent, state=state)
        return call, invalid_args(name, ({"path": exc.path, "message": exc.problem},))
    except RecursionError:
        call = ToolCall(name, _EMPTY, token, up, use_id, tool, agent, state=state)
        return call, invalid_args(name, ({"path": "$", "message": "nested too deeply"},))
    if type(arguments) is not FrozenDict:
        call = ToolCall(name, _EMPTY, token, up, use_id, tool, agent, state=state)
        problem = f"arguments must be a JSON object, not {json_kind(arguments)}"
        return call, invalid_args(name, ({"path": "$", "message": problem},))
    call = ToolCall(name, arguments, token, up, use_id, tool, agent, state=state)
    if entry is None:
        return call, None
    errors = _check(entry.validate, arguments)
    if errors is not None:
        # In 2.1.332's words where it has them (InputValidationError), else dsh's; a refused
        # input's (a run whose inputs are all valid never imports it).
        from dsh.tools._input_issues import input_validation_text

        text = input_validation_text(name, thaw_json(entry.definition.input_schema), arguments)
        return call, invalid_args(name, errors, text=text)
    return call, None


def _bad_identity(name: str, field: str, expected: str, value: object) -> ToolResult:
    problem = f"{field} must be {expected}, not {type(value).__name__}"
    return invalid_args(name, ({"path": f"$.{field}", "message": problem},), identity=field)


def _check(validate: ArgumentValidator, arguments: FrozenDict) -> ArgumentErrors | None:
    try:
        return validate(arguments)
    except Exception as exc:
        return ({"path": "$", "message": f"the validator failed: {exc_text(exc)}"},)


async def rewrite(
    fns: tuple[RewriteListener, ...], call: ToolCall, validate: ArgumentValidator
) -> tuple[ToolCall, ToolResult | None]:
    """The ``tools/rewrite-input`` chain, in registration order: the effective call.

    A fold, not a waterfall: each listener sees the input as the previous one
    left it; ``keep`` or ``None`` changes nothing. A replacement is validated
    before the next listener sees it, so an invalid one refuses the call
    (``INVALID_ARGS`` naming the listener) and no later listener runs; so does
    a listener that raises or answers something else (``LISTENER_ERROR``).
    The call that comes back carries the input as it stood, with the original
    and the rewriters' names once changed.
    """
    tool = cast(ToolDefinition, call.tool)
    original = call.arguments
    current = original
    rewriters: list[str] = []
    failure: ToolResult | None = None
    for fn in fns:
        proposed = ProposedCall(
            call.name,
            current,
            original,
            call.tool_use_id,
            tool,
            call.agent,
            call.parent,
            call.state,
        )
        try:
            answer = await fn(proposed)
            if answer is not None and not isinstance(answer, InputRewrite):
                raise ChannelError(
                    f"listener {describe(fn)} on channel {REWRITE_INPUT.name} returned "
                    f"{type(answer).__name__}, not an InputRewrite or None"
                )
        except Exception as exc:
            failure = listener_failed("rewrite-input", fn, exc)
            break
        if not isinstance(answer, InputReplace) or _same_json(answer.arguments, current):
            continue
        who = describe(fn)
        errors = _check(validate, answer.arguments)
        if errors is not None:
            failure = _invalid_rewrite(call.name, who, errors, answer.arguments)
            break
        if answer.reason is not None:
            logger.info("%s rewrote the input of %s: %s", who, call.name, answer.reason)
        current = answer.arguments
        rewriters.append(who)
    if not rewriters:
        return call, failure
    rewritten = ToolCall(
        call.name,
        current,
        call.token,
        call.parent,
        call.tool_use_id,
        tool,
        call.agent,
        original,
        tuple(rewriters),
        call.state,
    )
    return rewritten, failure


def _same_json(a: object, b: object) -> bool:
    """Equal as JSON: ``1``, ``1.0`` and ``True`` differ (Python's ``==`` says they match)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        b_map = cast(dict[str, object], b)
        return a.keys() == b_map.keys() and all(_same_json(v, b_map[k]) for k, v in a.items())
    if isinstance(a, tuple):
        b_items = cast(tuple[object, ...], b)
        return len(a) == len(b_items) and all(
            _same_json(x, y) for x, y in zip(a, b_items, strict=True)
        )
    return a == b


def _invalid_rewrite(
    name: str, rewriter: str, errors: ArgumentErrors, arguments: FrozenDict
) -> ToolResult:
    return invalid_args(
        f"{name} from the input rewrite of {rewriter}",
        errors,
        rewriter=rewriter,
        rewritten_arguments=arguments,
    )


# Validators by definition, for ``validate_arguments`` (a definition compiles once).
_VALIDATORS: dict[int, tuple[ToolDefinition, ArgumentValidator]] = {}
_VALIDATORS_MAX = 256


def remember_validator(definition: ToolDefinition, validate: ArgumentValidator) -> None:
    if len(_VALIDATORS) >= _VALIDATORS_MAX:
        _VALIDATORS.clear()
    _VALIDATORS[id(definition)] = (definition, validate)


def validate_arguments(tool: ToolDefinition, arguments: object) -> ArgumentErrors | None:
    """Check ``arguments`` against ``tool``'s input as sealing does: ``None`` when valid.

    Otherwise the errors, each a ``{"path", "message"}`` dict. For a
    ``tools/rewrite-input`` listener that would rather not replace the input
    than have the call refused (the Claude Code bridge's ``updatedInput``).
    ``ValueError`` when the tool's schema is unusable.
    """
    known = _VALIDATORS.get(id(tool))
    if known is not None and known[0] is tool:
        validate = known[1]
    else:
        validate = compile_validator(tool.name, tool.input_schema, tool.input_model)
        remember_validator(tool, validate)
    try:
        frozen = freeze_json(arguments)
    except NotJSONError as exc:
        return ({"path": exc.path, "message": exc.problem},)
    except RecursionError:
        return ({"path": "$", "message": "nested too deeply"},)
    if type(frozen) is not FrozenDict:
        problem = f"arguments must be a JSON object, not {json_kind(frozen)}"
        return ({"path": "$", "message": problem},)
    return _check(validate, frozen)
