"""hook/invocation and hook/result: built from real runs, logged, and read back from disk."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from dsh.base import FrozenDict
from dsh.hook_protocol import HookInvocationEvent, HookResultEvent, hook_outcome, shell_argv
from dsh.hook_protocol._events import HOOK_STDERR_LOG_LIMIT, invocation_event, result_event
from dsh.hook_protocol._executor import run_hook, unique_hooks
from dsh.session import JsonlSessionStore
from dsh.session._codec import decode_event, encode_event
from dsh.session._event_registry import registered_event_types
from tests.hook_protocol.support import command, script, toy_decoder

DECODE = toy_decoder("PreToolUse")


def test_the_hook_events_are_registered_with_the_session_package() -> None:
    types = registered_event_types()
    assert types["hook/invocation"] is HookInvocationEvent
    assert types["hook/result"] is HookResultEvent


async def test_a_decided_hook_is_logged_and_reads_back_identically(tmp_path: Path) -> None:
    payload = b'{"hook_event_name": "PreToolUse"}'
    cmd = command(script("emit.py", "block"), on_failure="block")
    invocation = invocation_event(cmd, payload, turn_id="t1")
    run = await run_hook(cmd, payload)
    outcome = hook_outcome(run, DECODE)
    result = result_event(
        outcome, invocation=invocation, decision_json={"decision": "block", "reason": "no"}
    )

    store = JsonlSessionStore(tmp_path)
    with store.create() as log:
        logged = log.append_many([invocation, result])
        session_id = log.id
    loaded = store.load(session_id)
    assert loaded == logged

    inv, res = loaded
    assert isinstance(inv, HookInvocationEvent)
    assert (inv.hook_event, inv.source, inv.group, inv.index) == (
        "PreToolUse",
        "tests/settings.json",
        0,
        0,
    )
    assert inv.command == cmd.argv
    assert inv.on_failure == "block"
    assert inv.payload_sha256 == hashlib.sha256(payload).hexdigest()
    assert inv.payload_bytes == len(payload)
    assert isinstance(res, HookResultEvent)
    assert res.invocation_id == inv.id
    assert res.turn_id == "t1"
    assert (res.exit_code, res.signal, res.no_decision, res.reason) == (0, None, None, None)
    assert res.decision == FrozenDict({"decision": "block", "reason": "no"})
    assert res.duration == run.duration


async def test_a_failed_hook_records_why_and_bounds_stderr() -> None:
    cmd = command(shell_argv("head -c 10000 /dev/zero | tr '\\0' e >&2; exit 1"))
    run = await run_hook(cmd, b"{}")
    outcome = hook_outcome(run, DECODE)
    result = result_event(outcome, decision_json={"ignored": True})
    assert result.exit_code == 1
    assert result.no_decision == "nonzero_exit"
    assert result.reason == "exit code 1"
    assert result.decision is None
    assert result.stderr == "e" * HOOK_STDERR_LOG_LIMIT
    assert result.stderr_truncated
    assert not run.stderr_truncated
    assert json.loads(encode_event(result))["type"] == "hook/result"


async def test_stderr_is_cut_on_a_character_boundary() -> None:
    cmd = command(shell_argv("i=0; while [ $i -lt 1500 ]; do printf 'é€' >&2; i=$((i+1)); done"))
    result = result_event(hook_outcome(await run_hook(cmd, b""), DECODE))
    encoded = result.stderr.encode()
    assert HOOK_STDERR_LOG_LIMIT - 3 <= len(encoded) <= HOOK_STDERR_LOG_LIMIT
    assert "\ufffd" not in result.stderr
    assert result.stderr_truncated


async def test_timeouts_and_spawn_errors_are_recorded(tmp_path: Path) -> None:
    timed = result_event(
        hook_outcome(
            await run_hook(command(("sleep", "30"), timeout=0.2), b"", kill_grace=0.1), DECODE
        )
    )
    assert (timed.timed_out, timed.no_decision, timed.exit_code) == (True, "timed_out", None)
    assert timed.signal is not None
    missing = result_event(
        hook_outcome(await run_hook(command((str(tmp_path / "x"),)), b""), DECODE)
    )
    assert (missing.no_decision, missing.exit_code, missing.signal) == ("spawn_error", None, None)
    assert missing.reason is not None
    assert str(tmp_path / "x") in missing.reason


async def test_a_decision_is_logged_as_plain_json_whatever_it_holds() -> None:
    outcome = hook_outcome(await run_hook(command(script("emit.py", "block")), b""), DECODE)
    event = result_event(
        outcome, decision_json={"x": {1, 2}, "n": float("inf"), "s": "\ud800", "big": 10**5000}
    )
    assert event.decision == {
        "x": "{1, 2}",
        "n": "Infinity",
        "s": "\ufffd",
        "big": "<integer of 16610 bits>",
    }
    assert decode_event(encode_event(event)) == event


def test_unique_hooks_tells_a_bridge_what_will_run_before_logging() -> None:
    a, b = command(("a",)), command(("b",))
    assert unique_hooks([a, b, a]) == (0, 1)
    assert unique_hooks([a, a], [b"1", b"2"]) == (0, 1)
    with pytest.raises(ValueError, match="2 commands but 1 payloads"):
        unique_hooks([a, b], [b"1"])
