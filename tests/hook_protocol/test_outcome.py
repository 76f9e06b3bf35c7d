"""hook_outcome: what a run contributes, with a toy bridge decoder; it never raises."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.hook_protocol import (
    HookDecodeError,
    HookOutcome,
    HookRun,
    OnFailure,
    WrongEvent,
    hook_outcome,
)
from dsh.hook_protocol._executor import run_hook
from dsh.hook_protocol._outcome import FAILURE_REASONS
from tests.hook_protocol.support import ToyDecision, command, script, toy_decoder

DECODE = toy_decoder("PreToolUse")


async def _outcome(
    argv: tuple[str, ...], *, timeout: float = 20.0, on_failure: OnFailure = "ignore"
) -> HookOutcome[ToyDecision]:
    run = await run_hook(
        command(argv, timeout=timeout, on_failure=on_failure), b"{}", kill_grace=0.1
    )
    return hook_outcome(run, DECODE)


async def test_a_json_decision_is_decoded() -> None:
    out = await _outcome(script("emit.py", "block"))
    assert out.decision == ToyDecision("block", "no")
    assert (out.no_decision, out.reason, out.failed_closed) == (None, None, False)


async def test_exit_2_is_the_decoders_to_interpret() -> None:
    out = await _outcome(script("exit_with.sh", "2"))
    assert out.decision == ToyDecision("block", "exiting with 2")


async def test_empty_output_abstains_and_is_not_a_failure() -> None:
    out = await _outcome(script("emit.py", "empty"), on_failure="block")
    assert (out.decision, out.no_decision, out.failed_closed) == (None, "abstained", False)


async def test_invalid_json_is_undecodable() -> None:
    out = await _outcome(script("emit.py", "bad-json"))
    assert out.decision is None
    assert out.no_decision == "undecodable"
    assert out.reason is not None
    assert "invalid JSON" in out.reason
    assert not out.failed_closed


async def test_invalid_utf8_then_invalid_json_is_undecodable() -> None:
    out = await _outcome(script("emit.py", "bad-utf8"))
    assert out.no_decision == "undecodable"


async def test_json_for_another_event_contributes_nothing() -> None:
    out = await _outcome(script("emit.py", "other-event"))
    assert (out.decision, out.no_decision) == (None, "wrong_event")
    assert out.reason is not None
    assert "PostToolUse" in out.reason


@pytest.mark.parametrize("code", ["1", "127"])
async def test_other_exit_codes_are_nonzero_exit(code: str) -> None:
    out = await _outcome(script("exit_with.sh", code))
    assert out.no_decision == "nonzero_exit"
    assert out.run.exit_code == int(code)


async def test_killed_by_a_signal() -> None:
    out = await _outcome(script("self_signal.sh", "KILL"))
    assert out.no_decision == "killed"
    assert out.reason is not None
    assert "SIGKILL" in out.reason


async def test_timed_out(tmp_path: Path) -> None:
    out = await _outcome(script("record_sleep.sh", tmp_path / "s", "30"), timeout=0.3)
    assert out.no_decision == "timed_out"


async def test_spawn_error(tmp_path: Path) -> None:
    out = await _outcome((str(tmp_path / "missing.sh"),))
    assert out.no_decision == "spawn_error"
    assert out.reason is not None
    assert str(tmp_path / "missing.sh") in out.reason


@pytest.mark.parametrize(
    ("argv", "timeout"),
    [
        (("/nonexistent/hook",), 20.0),
        (script("exit_with.sh", "1"), 20.0),
        (script("emit.py", "bad-json"), 20.0),
        (script("emit.py", "other-event"), 20.0),
        (script("self_signal.sh", "KILL"), 20.0),
        (("sleep", "30"), 0.3),
    ],
)
async def test_on_failure_block_fails_closed(argv: tuple[str, ...], timeout: float) -> None:
    closed = await _outcome(argv, timeout=timeout, on_failure="block")
    assert closed.failed_closed
    assert closed.decision is None
    opened = await _outcome(argv, timeout=timeout, on_failure="ignore")
    assert not opened.failed_closed
    assert opened.no_decision == closed.no_decision


async def test_a_decoder_that_crashes_is_contained() -> None:
    run = await run_hook(command(("true",)), b"")

    def broken(_: HookRun) -> ToyDecision:
        raise KeyError("oops")

    out = hook_outcome(run, broken)
    assert out.no_decision == "undecodable"
    assert out.reason is not None
    assert "KeyError" in out.reason


# --- properties over synthetic runs -------------------------------------------------------------

_ENDINGS = st.sampled_from(["exit", "signal", "timeout", "cancel", "spawn"])
_DECODER_ANSWERS = st.one_of(
    st.builds(ToyDecision, st.sampled_from(["allow", "block"]), st.text(max_size=5)),
    st.builds(WrongEvent, st.sampled_from(["Stop", "PostToolUse"])),
    st.none(),
    st.builds(
        HookDecodeError, st.text(max_size=5), kind=st.sampled_from(["undecodable", "nonzero_exit"])
    ),
    st.builds(RuntimeError, st.text(max_size=5)),
)


def _synthetic_run(ending: str, on_failure: str, code: int) -> HookRun:
    return HookRun(
        command=command(("true",), on_failure=on_failure),  # type: ignore[arg-type]
        pid=1234,
        exit_code=code if ending == "exit" else None,
        signal=signal.SIGTERM if ending in ("signal", "timeout") else None,
        stdout="",
        stderr="",
        duration=0.01,
        timed_out=ending == "timeout",
        cancelled=ending == "cancel",
        spawn_error="cannot run x: nope" if ending == "spawn" else None,
    )


@given(
    ending=_ENDINGS,
    on_failure=st.sampled_from(["ignore", "block"]),
    code=st.integers(0, 255),
    answer=_DECODER_ANSWERS,
)
def test_outcome_invariants(ending: str, on_failure: str, code: int, answer: object) -> None:
    calls: list[HookRun] = []

    def decode(run: HookRun) -> ToyDecision | WrongEvent | None:
        calls.append(run)
        if isinstance(answer, Exception):
            raise answer
        assert isinstance(answer, ToyDecision | WrongEvent) or answer is None
        return answer

    run = _synthetic_run(ending, on_failure, code)
    out = hook_outcome(run, decode)
    assert out.run is run
    # Exactly one of a decision and a reason for none.
    assert (out.decision is None) != (out.no_decision is None)
    assert (out.reason is None) == (out.no_decision is None)
    # Only runs that ended on their own are decoded.
    assert bool(calls) == (ending == "exit")
    assert out.failed_closed == (on_failure == "block" and out.no_decision in FAILURE_REASONS)
    if ending == "exit" and isinstance(answer, ToyDecision):
        assert out.decision == answer
