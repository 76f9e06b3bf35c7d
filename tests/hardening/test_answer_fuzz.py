"""Hypothesis fuzzing of the hook-answer decoder and of what dsh logs from it.

For any stdout bytes and exit code, ``hook_outcome`` with the Claude Code
decoder never raises, its ``hook/result`` event encodes to one strict UTF-8
JSON line, and the session codec reads that line back to the same event.
The short profile runs in CI; ``DSH_FUZZ_EXAMPLES=100000`` is the long run.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh.base import UnsafeJSONError, load_json
from dsh.base._safe_json import loggable_json
from dsh.hook_protocol import HookRun, hook_outcome
from dsh.hook_protocol._events import result_event
from dsh.hooks.claude import HookAnswer, decode_answer
from dsh.session._codec import decode_event, encode_event
from tests.hook_protocol.support import command

EXAMPLES = int(os.environ.get("DSH_FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
EVENTS = ("PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit", "SessionStart")

HOSTILE_ATOMS = st.sampled_from(
    [
        "1e999",
        "-1e999",
        "NaN",
        "Infinity",
        "-Infinity",
        '"\\ud800"',
        '"\\udfff\\ud800"',
        "9" * 5000,
        "[" * 600 + "]" * 600,
        '{"a":' * 300 + "1" + "}" * 300,
        '"\\u0000\\u001b[2J"',
        "true",
        "null",
        '"block"',
        "0.5",
    ]
)
KEYS = st.sampled_from(
    [
        "decision",
        "reason",
        "continue",
        "stopReason",
        "systemMessage",
        "suppressOutput",
        "hookSpecificOutput",
        "hookEventName",
        "permissionDecision",
        "updatedInput",
        "additionalContext",
        "\\ud800",
    ]
)


def _obj(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pairs = st.lists(st.tuples(KEYS, children), max_size=5)
    return pairs.map(lambda kv: "{" + ",".join(f'"{k}":{v}' for k, v in kv) + "}")


JSONISH = st.recursive(
    HOSTILE_ATOMS | st.text(max_size=20).map(json.dumps),
    lambda children: (
        _obj(children) | st.lists(children, max_size=4).map(lambda v: f"[{','.join(v)}]")
    ),
    max_leaves=20,
)
STDOUT = st.one_of(
    _obj(JSONISH).map(str.encode),
    st.binary(max_size=300),
    st.tuples(_obj(JSONISH), st.binary(max_size=8)).map(lambda t: t[0].encode() + t[1]),
)


def _run(stdout: bytes, exit_code: int, event: str) -> HookRun:
    # As the executor decodes a hook's output.
    return HookRun(
        command=command(("hook",), event=event),
        pid=1,
        exit_code=exit_code,
        signal=None,
        stdout=stdout.decode("utf-8", "replace"),
        stderr=stdout.decode("utf-8", "replace"),
        duration=0.01,
    )


@FUZZ
@given(stdout=STDOUT, exit_code=st.sampled_from([0, 0, 2, 1]), event=st.sampled_from(EVENTS))
def test_any_answer_is_decoded_without_raising_and_logged_readably(
    stdout: bytes, exit_code: int, event: str
) -> None:
    run = _run(stdout, exit_code, event)
    outcome = hook_outcome(run, lambda r: decode_answer(r, event))
    assert (outcome.decision is None) != (outcome.no_decision is None)
    assert outcome.no_decision != "undecodable" or "failed:" not in (outcome.reason or ""), (
        f"the decoder raised instead of refusing: {outcome.reason}"
    )
    decision: Any = None
    if isinstance(outcome.decision, HookAnswer):
        decision = outcome.decision.to_json()
    event_ = result_event(outcome, decision_json=decision)
    line = encode_event(event_).encode("utf-8")
    json.loads(line.decode("utf-8", "strict"))
    assert decode_event(line) == event_


@FUZZ
@given(text=JSONISH)
def test_load_json_either_loads_or_refuses_with_one_error(text: str) -> None:
    try:
        value = load_json(text)
    except UnsafeJSONError:
        return
    # What it loads is what the logger keeps, and it survives a strict round trip.
    assert loggable_json(value) == value
    dumped = json.dumps(value, allow_nan=False)
    assert json.loads(dumped) == value


@FUZZ
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
        max_leaves=30,
    )
)
def test_loggable_json_always_encodes_to_strict_utf8_json(value: object) -> None:
    out = loggable_json(value)
    text = json.dumps(out, ensure_ascii=False, allow_nan=False)
    assert json.loads(text.encode("utf-8").decode("utf-8")) == out
