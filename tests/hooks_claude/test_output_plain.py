"""The plain decoder of hook JSON answers agrees with the pydantic models wherever it answers.

Generated answers (the known keys with values of the right and wrong types,
nulls, ``hookSpecificOutput`` for this event, another or none, extra keys) for
several events: when ``plain_answer`` decodes one, ``answer_from_json`` decodes
it to the same answer; when the models refuse it, ``plain_answer`` gives nothing.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.hook_protocol import HookDecodeError
from dsh.hooks.claude.answers._models import answer_from_json
from dsh.hooks.claude.answers._plain import plain_answer

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
def test_plain_answers_are_the_models(case: tuple[dict[str, Any], str], code: int) -> None:
    data, event = case
    plain = plain_answer(code, data, event)
    try:
        expected = answer_from_json(code, data, event)
    except HookDecodeError:
        assert plain is None, (data, event, plain)
        return
    if plain is not None:
        assert plain == expected, (data, event)


def test_the_benchmarks_answers_are_plain() -> None:
    block = {"decision": "block", "reason": "blocked by the case"}
    assert plain_answer(0, block, "UserPromptSubmit") == answer_from_json(
        0, block, "UserPromptSubmit"
    )
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }
    assert plain_answer(0, deny, "PreToolUse") == answer_from_json(0, deny, "PreToolUse")
    assert plain_answer(0, {"continue": "no"}, "Stop") is None  # the models name the problem
