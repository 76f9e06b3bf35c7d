"""The one decoder of hook JSON answers: any JSON gives an answer or ``HookDecodeError``.

Generated answers (the known keys with values of the right and wrong types,
nulls, ``hookSpecificOutput`` for this event, another or none, extra keys) for
several events; then the answers and refusals the schema must keep giving, in
the words the user has always seen (a boolean written ``"yes"``, the first bad
field in the schema's order, a PermissionRequest ``decision``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.hook_protocol import HookDecodeError, WrongEvent
from dsh.hooks.claude import HookAnswer
from dsh.hooks.claude.answers._answer import PermissionRequestAnswer
from dsh.hooks.claude.answers._models import answer_from_json

_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "PermissionRequest"]
_ANY = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-2, 2),
        st.floats(allow_nan=False),
        st.text(max_size=5),
        st.sampled_from(["block", "approve", "allow", "deny", "ask", "defer", "true", "1"]),
    ),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=2)
    ),
    max_leaves=4,
)
_TOP = [
    "continue",
    "continue_",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "decision",
    "reason",
]
_SPECIFIC = [
    "decision",
    "additionalContext",
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "suppressOriginalPrompt",
    "displayContent",
    "watchPaths",
    "updatedToolOutput",
    "other",
]
_PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "continue": st.booleans(),
    "decision": st.sampled_from(["block", "approve", "deny"]),
    "permissionDecision": st.sampled_from(["allow", "deny", "ask", "defer", "block"]),
    "watchPaths": st.lists(st.text(max_size=3), max_size=2),
    "updatedInput": st.dictionaries(st.text(max_size=3), _ANY, max_size=2),
    "suppressOriginalPrompt": st.booleans(),
    "suppressOutput": st.booleans(),
}


def _value(draw: st.DrawFn, key: str) -> Any:
    if key in _PLAUSIBLE and draw(st.booleans()):
        return draw(_PLAUSIBLE[key])
    if draw(st.booleans()):
        return draw(st.text(max_size=6))
    return draw(_ANY)


@st.composite
def _answers(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    event = draw(st.sampled_from(_EVENTS))
    keys = draw(st.lists(st.sampled_from([*_TOP, "extra"]), unique=True, max_size=4))
    data = {key: _value(draw, key) for key in keys}
    shape = draw(st.sampled_from(["none", "this", "other", "unnamed", "junk"]))
    if shape != "none":
        skeys = draw(st.lists(st.sampled_from(_SPECIFIC), unique=True, max_size=4))
        specific: Any = {key: _value(draw, key) for key in skeys}
        if shape == "this":
            specific["hookEventName"] = event
        elif shape == "other":
            specific["hookEventName"] = draw(st.sampled_from([*_EVENTS, "", None, 3]))
        elif shape == "junk":
            specific = draw(_ANY)
        data["hookSpecificOutput"] = specific
    return data, event


@settings(max_examples=1500, deadline=None)
@given(_answers(), st.sampled_from([0, 1, 2]))
def test_any_answer_decodes_or_is_refused(case: tuple[dict[str, Any], str], code: int) -> None:
    data, event = case
    try:
        answer = answer_from_json(code, data, event)
    except HookDecodeError as exc:
        refused = str(exc)
        assert refused.startswith("hook JSON output invalid at "), refused
        return
    assert isinstance(answer, HookAnswer | WrongEvent)
    if isinstance(answer, HookAnswer):
        assert answer.json is data
        json.dumps(answer.to_json())  # what the log records stays JSON


def test_the_benchmarks_answers() -> None:
    block = {"decision": "block", "reason": "blocked by the case"}
    assert answer_from_json(0, block, "UserPromptSubmit") == HookAnswer(
        exit_code=0, json=block, decision="block", reason="blocked by the case"
    )
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }
    assert answer_from_json(0, deny, "PreToolUse") == HookAnswer(
        exit_code=0, json=deny, permission_decision="deny", permission_reason="no"
    )


@pytest.mark.parametrize(
    ("data", "halt", "suppress"),
    [
        ({"continue": "no", "hookSpecificOutput": {"hookEventName": "Stop"}}, True, False),
        ({"continue": 1.0}, False, False),
        ({"continue_": False}, True, False),
        ({"continue": True, "continue_": False}, False, False),
        (
            {"hookSpecificOutput": {"hookEventName": "Stop", "suppressOriginalPrompt": "ON"}},
            False,
            True,
        ),
    ],
)
def test_booleans_as_hooks_write_them(data: dict[str, Any], halt: bool, suppress: bool) -> None:
    answer = answer_from_json(0, data, "Stop")
    assert isinstance(answer, HookAnswer)
    assert (answer.halt, answer.suppress_original_prompt) == (halt, suppress)


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (
            {"continue": "maybe"},
            "continue: Input should be a valid boolean, unable to interpret input",
        ),
        ({"continue": 2.0}, "continue: Input should be a valid boolean, unable to interpret input"),
        ({"continue": 0.5}, "continue: Input should be a valid boolean"),
        ({"continue": None}, "continue: Input should be a valid boolean"),
        ({"continue_": None}, "continue_: Input should be a valid boolean"),
        (
            {"reason": 3, "continue": "x"},
            "continue: Input should be a valid boolean, unable to interpret input",
        ),
        ({"decision": "deny"}, "decision: Input should be 'block' or 'approve'"),
        (
            {"hookSpecificOutput": 3},
            "hookSpecificOutput: Input should be a valid dictionary or instance of _SpecificModel",
        ),
        (
            {"hookSpecificOutput": {"watchPaths": ["a", 1]}},
            "hookSpecificOutput.watchPaths.1: Input should be a valid string",
        ),
        (
            {"hookSpecificOutput": {"permissionDecision": "block"}},
            "hookSpecificOutput.permissionDecision: "
            "Input should be 'allow', 'deny', 'ask' or 'defer'",
        ),
        (
            {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {}}},
            "hookSpecificOutput.decision.behavior: Field required",
        ),
        (
            {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": []}},
            "hookSpecificOutput.decision: Input should be a valid dictionary or instance of "
            "_PermissionRequestModel",
        ),
    ],
)
def test_refusals_in_the_words_users_see(data: dict[str, Any], where: str) -> None:
    with pytest.raises(HookDecodeError) as caught:
        answer_from_json(0, data, "PermissionRequest")
    assert str(caught.value) == f"hook JSON output invalid at {where}"


def test_a_permission_request_decision() -> None:
    specific = {
        "hookEventName": "PermissionRequest",
        "decision": {"behavior": "deny", "interrupt": "yes"},
    }
    answer = answer_from_json(0, {"hookSpecificOutput": specific}, "PermissionRequest")
    assert isinstance(answer, HookAnswer)
    assert answer.permission_request == PermissionRequestAnswer(behavior="deny", interrupt=True)
    other = answer_from_json(0, {"hookSpecificOutput": specific}, "Stop")
    assert other == WrongEvent("PermissionRequest")
