"""The hostile-hook corpus: every misbehaving hook, at every event ``dsh run`` fires, contained.

Each case registers one hostile hook (``scripts/hostile_hook.py``) on every event the
Claude Code bridge runs (``_hostile_rig.EVENTS``) and drives the real ``dsh run``
through a session that fires all of them (``_hostile_rig``), then checks:

* the runs complete or are contained: no traceback, no usage error or internal
  failure (exit 2 or 70), nothing a hook wrote that escapes the terminal;
* every ``hook/invocation`` in every session log (the root session's and the
  subagent's) has its ``hook/result``, every log line is strict UTF-8 JSON, and
  ``dsh log`` reads the root session;
* no process the hooks started is alive after ``dsh`` exits;
* ``dsh``'s peak RSS (``wait4``) stays within ``RSS_BOUND_MIB`` of the quiet case's,
  a hook writing 1 GiB included;
* no hook saw the model API keys (``DSH_API_KEY``, ``OPENAI_API_KEY``).

A few cases run through Codex's bridge too (``CODEX_CASES``, the project's
``.codex/hooks.json`` at the six events a Bash turn fires). The default run takes
``CI_CASES`` (and one Codex case); ``DSH_HOSTILE_FULL=1`` runs them all, and
``DSH_HOSTILE_REPORT=FILE`` appends one JSON line of figures per case.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from dsh.hook_protocol import HookInvocationEvent, HookResultEvent
from dsh.session import JsonlSessionStore
from tests.cli.test_cli import dsh
from tests.hardening._hostile_rig import (
    CODEX_EVENTS,
    EVENTS,
    SECRET,
    leftovers,
    run_case,
    run_codex_case,
)
from tests.hardening.test_hostile_answers import HOSTILE

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")

RSS_BOUND_MIB = 48
"""How far a hostile case's peak RSS may exceed the quiet case's."""

ANSWERS: dict[str, bytes] = {
    **{f"answer: {name}": raw for name, raw in HOSTILE.items()},
    "answer: continue false": b'{"continue": false, "stopReason": "halt"}',
    "answer: block": b'{"decision": "block", "reason": "no"}',
    "answer: deny": (
        b'{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",'
        b' "permissionDecisionReason": "r"}}'
    ),
    "answer: another event's output": (
        b'{"hookSpecificOutput": {"hookEventName": "Nope", "additionalContext": "c"}}'
    ),
    "answer: a top-level array": b"[1, 2, 3]",
    "answer: a top-level string": b'"just a string"',
    "answer: 10 MB texts": json.dumps(
        {"systemMessage": "y" * 10_000_000, "reason": "z" * 10_000_000}
    ).encode(),
    "answer: updatedInput of the wrong shape": (
        b'{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",'
        b' "updatedInput": {"command": 5}}}'
    ),
    "answer: terminal escapes": b'{"systemMessage": "\\u001b]0;pwned\\u0007\\u001b[2J\\u009b2J"}',
}
BEHAVIOURS = (
    "exit1-garbage",
    "exit2-32MiB-stderr",
    "exit2-escapes",
    "sigkill-self",
    "abort",
    "timeout",
    "timeout-setsid-child",
    "double-fork-daemon",
    "children-left",
    "close-and-hang",
    "no-stdin",
    "1GiB-stdout-once",
    "1GiB-stderr-once",
    "16MiB-stdout",
    "env-dump",
)
CASES = ("quiet", *ANSWERS, *BEHAVIOURS)
CI_CASES = ("quiet", "double-fork-daemon", "1GiB-stdout-once")
FULL = os.environ.get("DSH_HOSTILE_FULL") == "1"
_QUIET_RSS: list[int] = []


def test_the_corpus_is_at_least_30_cases_over_every_event() -> None:
    assert len(CASES) - 1 >= 30
    assert len(EVENTS) >= 25


def _mode(case: str) -> tuple[str, bytes]:
    if case == "quiet":
        return "answer", b"{}"
    if case in ANSWERS:
        return "answer", ANSWERS[case]
    return case, b"{}"


def _report(case: str, figures: dict[str, object]) -> None:
    target = os.environ.get("DSH_HOSTILE_REPORT")
    if target:
        with open(target, "a") as f:
            f.write(json.dumps({"case": case, **figures}) + "\n")


def _check_logs(sessions: Path) -> tuple[int, int, set[str]]:
    """Every log line strict JSON, every invocation with its result: (invocations, results,
    events)."""
    store = JsonlSessionStore(sessions)
    invocations = results = 0
    events: set[str] = set()
    for log in sessions.glob("*.jsonl"):
        for line in log.read_bytes().splitlines():
            json.loads(line.decode("utf-8"))  # strict UTF-8, and JSON
        loaded = store.load(log.stem)
        calls = [e for e in loaded if isinstance(e, HookInvocationEvent)]
        answered = {e.invocation_id for e in loaded if isinstance(e, HookResultEvent)}
        missing = [c.hook_event for c in calls if c.id not in answered]
        assert missing == [], f"{log.name}: invocations without a hook/result: {missing}"
        invocations += len(calls)
        results += len(answered)
        events.update(c.hook_event for c in calls)
    return invocations, results, events


@contextmanager
def _quiet_baseline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The file the quiet case's peak RSS is shared through, held locked: under xdist
    every worker of the run sees it (so the quiet session runs once per run, not once
    per worker that draws a hostile case); without xdist, this run's own."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's directory, above each worker's
    shared = root / "hostile-quiet-rss"
    with open(root / "hostile-quiet-rss.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield shared


@pytest.mark.parametrize("case", CASES if FULL else CI_CASES)
def test_a_hostile_hook_at_every_event_is_contained(
    case: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    if not _QUIET_RSS:  # the quiet case, run (with all its checks) once in the run
        with _quiet_baseline(tmp_path_factory) as shared:
            if shared.exists():  # it ran, and passed, on another worker
                _QUIET_RSS.append(int(shared.read_text()))
            else:
                _contained("quiet", tmp_path / "quiet")
                shared.write_text(str(_QUIET_RSS[0]))
    if case != "quiet":
        _contained(case, tmp_path)


def _contained(case: str, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir(parents=True)
    mode, answer = _mode(case)
    outcome = run_case(run_dir, mode, answer)

    everything = "".join(outcome.outputs)
    assert "Traceback" not in everything, everything[-4000:]
    assert all(code not in (2, 70) for code in outcome.codes), (outcome.codes, everything[-4000:])
    assert "\x1b" not in everything
    assert "\x9b" not in everything
    assert outcome.session is not None, everything[-4000:]
    assert len(outcome.codes) == 2
    sessions = run_dir / "sessions"
    invocations, results, events = _check_logs(sessions)
    assert invocations >= 1
    assert SECRET not in everything
    for log in sessions.glob("*.jsonl"):
        assert SECRET not in log.read_text(errors="replace")
    shown = dsh("log", outcome.session, "--session-dir", str(sessions), cwd=run_dir)
    assert shown.returncode == 0, shown.stderr
    left = leftovers(run_dir)
    assert left == [], f"processes left alive: {left}"
    rss_mib = outcome.peak_rss_kib / 1024
    if case == "quiet":
        assert events == set(EVENTS), set(EVENTS) - events  # the session fires every event
        _QUIET_RSS.append(outcome.peak_rss_kib)
    growth = (outcome.peak_rss_kib - _QUIET_RSS[0]) / 1024
    _report(
        case,
        {
            "codes": outcome.codes,
            "invocations": invocations,
            "results": results,
            "events": len(events),
            "hooks_started": len(outcome.ran),
            "leaked": len(left),
            "peak_rss_mib": round(rss_mib, 1),
            "growth_mib": round(growth, 1),
        },
    )
    assert growth <= RSS_BOUND_MIB, f"peak RSS {rss_mib:.1f} MiB, {growth:.1f} MiB over quiet"


CODEX_CASES = ("answer: NaN", "answer: 100,000 deep", "double-fork-daemon", "exit2-escapes")


@pytest.mark.parametrize("case", CODEX_CASES if FULL else CODEX_CASES[:1])
def test_a_hostile_codex_hook_is_contained(case: str, tmp_path: Path) -> None:
    mode, answer = _mode(case)
    outcome = run_codex_case(tmp_path, mode, answer)
    [output] = outcome.outputs
    assert "Traceback" not in output, output[-4000:]
    assert outcome.codes == [0], output[-4000:]
    assert "\x1b" not in output
    assert "\x9b" not in output
    assert outcome.session is not None
    invocations, results, events = _check_logs(tmp_path / "sessions")
    blocks = case.startswith("exit2")  # exit 2 at UserPromptSubmit: no model call, no tools
    turn = {"PreToolUse", "PostToolUse", "Stop"}
    assert events == set(CODEX_EVENTS) - (turn if blocks else set())
    assert SECRET not in output
    left = leftovers(tmp_path)
    assert left == [], f"processes left alive: {left}"
    _report(
        f"codex {case}",
        {
            "codes": outcome.codes,
            "invocations": invocations,
            "results": results,
            "events": len(events),
            "leaked": len(left),
            "peak_rss_mib": round(outcome.peak_rss_kib / 1024, 1),
        },
    )
