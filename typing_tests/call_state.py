"""A call's slot is typed by its keys: a value reads back as its key's type, and no other."""

from __future__ import annotations

from typing import assert_type

from dsh.tools import CallState, CallStateKey, ProposedCall, ToolCall

STARTED: CallStateKey[float] = CallStateKey("started")
NAMES: CallStateKey[list[str]] = CallStateKey("names")


def reads(call: ToolCall) -> None:
    state = call.state
    assert_type(state, CallState)
    assert_type(state[STARTED], float)
    assert_type(state.get(STARTED), float | None)
    assert_type(state.get(STARTED, 0.0), float)
    assert_type(state.get(NAMES, None), list[str] | None)
    assert_type(state.pop(NAMES), list[str])
    assert_type(state.pop(STARTED, None), float | None)


def writes(call: ToolCall, proposed: ProposedCall) -> None:
    call.state[STARTED] = 1.5
    proposed.state[NAMES] = ["a"]
    call.state[STARTED] = "soon"  # type: ignore[misc]
    proposed.state[NAMES] = "a"  # type: ignore[misc]
    call.state["started"] = 1.5  # type: ignore[index]
