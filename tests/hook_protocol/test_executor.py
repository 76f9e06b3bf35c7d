"""run_hook against real processes: every way a hook can end, and what is left behind."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import sys
import time
from pathlib import Path

import psutil
import pytest

from dsh.base import AbortSignal
from dsh.hook_protocol import HookRun, hook_outcome, shell_argv
from dsh.hook_protocol._executor import run_hook
from tests.hook_protocol.support import (
    WAIT_BOUND,
    alive,
    command,
    said_group,
    script,
    toy_decoder,
    wait_for_file,
    wait_gone,
)
from tests.nspids import SHELL_BG_PID, outer_pid

MiB = 1 << 20


# --- normal runs -----------------------------------------------------------------------------


async def test_payload_reaches_stdin_intact_and_output_is_captured() -> None:
    payload = os.urandom(MiB)
    run = await run_hook(command(script("stdin_digest.py")), payload)
    assert run.exit_code == 0
    assert run.signal is None
    assert run.stdout.split() == [str(MiB), hashlib.sha256(payload).hexdigest()]
    assert not run.timed_out
    assert not run.cancelled
    assert run.spawn_error is None
    assert run.pid is not None
    assert run.duration > 0


async def test_env_is_added_to_the_inherited_environment_and_cwd_applies(tmp_path: Path) -> None:
    cmd = command(script("env_cwd.sh"), env={"HOOK_VAR": "from-hook"}, cwd=tmp_path)
    run = await run_hook(cmd, b"")
    assert run.stdout.splitlines() == ["var=from-hook", "path=inherited", str(tmp_path)]


async def test_stdout_and_stderr_are_kept_apart() -> None:
    run = await run_hook(command(shell_argv("echo out; echo err >&2")), b"")
    assert (run.stdout, run.stderr) == ("out\n", "err\n")


# --- stdin the hook does not want --------------------------------------------------------------


async def test_hook_that_never_reads_a_1mib_payload_does_not_deadlock() -> None:
    # It writes more than a pipe buffer before exiting: writing the payload
    # first and reading afterwards would block both sides.
    run = await run_hook(command(script("ignore_stdin.sh")), b"{" * MiB)
    assert run.exit_code == 0
    assert run.stdout == "x" * 262144


async def test_hook_that_closes_stdin_early_is_tolerated() -> None:
    run = await run_hook(command(script("close_stdin.sh")), b"{" * MiB)
    assert (run.exit_code, run.stdout) == (0, "closed\n")


# --- capture caps and decoding -----------------------------------------------------------------


async def test_100mib_of_output_is_capped_drained_and_memory_stays_bounded() -> None:
    me = psutil.Process()
    baseline = me.memory_info().rss
    peak = baseline
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, me.memory_info().rss)
            await asyncio.sleep(0.005)

    async with asyncio.TaskGroup() as tg:
        tg.create_task(sample())
        run = await run_hook(command(("head", "-c", str(100 * MiB), "/dev/zero")), b"")
        done.set()
    assert run.exit_code == 0
    assert len(run.stdout.encode()) == MiB
    assert run.stdout_truncated
    assert not run.stderr_truncated
    assert peak - baseline < 32 * MiB


async def test_caps_apply_to_each_stream_separately() -> None:
    cmd = command(shell_argv("head -c 5000 /dev/zero | tr '\\0' e >&2; printf abc"))
    run = await run_hook(cmd, b"", stdout_cap=3, stderr_cap=100)
    assert (run.stdout, run.stdout_truncated) == ("abc", False)
    assert (run.stderr, run.stderr_truncated) == ("e" * 100, True)


async def test_invalid_utf8_is_decoded_with_replacement() -> None:
    run = await run_hook(command(script("emit.py", "bad-utf8")), b"")
    assert run.exit_code == 0
    assert run.stdout.startswith("ok \ufffd\ufffd then ")
    assert "\ufffd" in run.stdout[-2:]


# --- exit codes and signals --------------------------------------------------------------------


@pytest.mark.parametrize("code", [0, 1, 2, 3])
async def test_exit_codes_are_reported(code: int) -> None:
    run = await run_hook(command(script("exit_with.sh", str(code))), b"")
    assert (run.exit_code, run.signal) == (code, None)
    assert run.stderr == f"exiting with {code}\n"


async def test_missing_command_in_a_shell_is_exit_127() -> None:
    run = await run_hook(command(shell_argv("no-such-command-for-dsh-tests")), b"")
    assert run.exit_code == 127
    assert "no-such-command-for-dsh-tests" in run.stderr
    assert run.spawn_error is None


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGUSR1, signal.SIGTERM])
async def test_killed_by_a_signal_reports_the_signal(sig: signal.Signals) -> None:
    run = await run_hook(command(script("self_signal.sh", sig.name.removeprefix("SIG"))), b"")
    assert (run.exit_code, run.signal) == (None, sig)
    assert run.stdout == "before\n"
    assert not run.timed_out


# --- spawn errors ------------------------------------------------------------------------------


async def test_missing_file_is_a_spawn_error_naming_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-hook.sh"
    run = await run_hook(command((str(missing),)), b"{}")
    assert run.spawn_error is not None
    assert str(missing) in run.spawn_error
    assert "No such file" in run.spawn_error
    assert (run.exit_code, run.signal, run.pid) == (None, None, None)


async def test_not_executable_is_a_spawn_error_naming_the_path(tmp_path: Path) -> None:
    hook = tmp_path / "hook.sh"
    hook.write_text("#!/bin/sh\necho hi\n")
    hook.chmod(0o644)
    run = await run_hook(command((str(hook),)), b"{}")
    assert run.spawn_error is not None
    assert str(hook) in run.spawn_error
    assert "Permission denied" in run.spawn_error


async def test_missing_cwd_is_a_spawn_error_naming_the_directory(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    run = await run_hook(command(("true",), cwd=gone), b"")
    assert run.spawn_error is not None
    assert str(gone) in run.spawn_error
    assert "working directory" in run.spawn_error


# --- timeouts and lingering processes ----------------------------------------------------------


async def test_sleeping_past_the_timeout_is_ended_with_sigterm(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    run = await run_hook(command(script("pidfile_sleep.sh", pidfile), timeout=0.5), b"")
    assert run.timed_out
    assert (run.exit_code, run.signal) == (None, signal.SIGTERM)
    assert run.pid is not None
    assert await wait_gone(run.pid, *pidfile.read_text().split()) == []


async def test_a_hook_ignoring_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    cmd = command(script("ignore_term.sh", pidfile), timeout=0.3)
    run = await run_hook(cmd, b"", kill_grace=0.2)
    assert run.timed_out
    assert run.signal == signal.SIGKILL
    assert run.pid is not None
    assert await wait_gone(run.pid, pidfile.read_text().strip()) == []


async def test_grandchild_holding_stdout_cannot_hold_a_timed_out_run(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    run = await run_hook(command(script("holder.sh", pidfile, "sleep"), timeout=0.5), b"")
    assert run.timed_out
    assert run.stdout == "started\n"
    # The grandchild sleeps 60 s; the run did not wait for it.
    assert run.duration < 30
    assert run.pid is not None
    assert await wait_gone(run.pid, pidfile.read_text().strip()) == []


async def test_grandchild_holding_stdout_after_a_normal_exit_is_not_waited_for(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pid"
    run = await run_hook(command(script("holder.sh", pidfile, "exit")), b"")
    assert (run.exit_code, run.timed_out) == (0, False)
    assert run.stdout == "started\n"
    assert run.duration < 30
    assert run.pid is not None
    assert await wait_gone(run.pid, pidfile.read_text().strip()) == []


async def test_background_process_with_its_own_stdio_survives_a_normal_exit_for_the_session(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pid"
    left = f"sleep 60 >/dev/null 2>&1 </dev/null & echo {SHELL_BG_PID} > {pidfile}; echo ok"
    run = await run_hook(command(shell_argv(left)), b"", helpers="session")
    pid = outer_pid(pidfile.read_text().strip())
    try:
        assert (run.exit_code, run.stdout, run.left_behind) == (0, "ok\n", 0)
        assert pid is not None  # alive
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="marks are read from /proc")
async def test_what_a_hook_leaves_running_ends_at_its_normal_exit_by_default(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pid"
    script = (
        f"sleep 61 >/dev/null 2>&1 </dev/null & echo {SHELL_BG_PID} >> {pidfile};"
        f" setsid sleep 62 >/dev/null 2>&1 </dev/null & echo {SHELL_BG_PID} >> {pidfile};"
        f" (setsid sh -c 'sleep 63 & echo {SHELL_BG_PID} >> {pidfile}' &) >/dev/null 2>&1"
        " </dev/null;"
        f" while [ $(wc -l < {pidfile}) -lt 3 ]; do sleep 0.01; done; echo ok"
    )
    run = await run_hook(command(shell_argv(script)), b"")
    pids = pidfile.read_text().split()  # PID@INODE: tests/nspids.py
    assert (run.exit_code, run.stdout) == (0, "ok\n")
    assert run.left_behind >= 3  # and the double fork's middle shell, if it had not exited
    assert not [pid for pid in pids if alive(pid)]  # at once: ended and reaped


async def test_a_process_that_left_the_group_cannot_hold_the_run(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    left = f"setsid sleep 60 & echo {SHELL_BG_PID} > {pidfile}; echo ok"
    run = await run_hook(command(shell_argv(left), timeout=10), b"", eof_grace=0.1, kill_grace=0.1)
    pid = outer_pid(pidfile.read_text().strip())
    try:
        assert (run.exit_code, run.stdout, run.timed_out) == (0, "ok\n", False)
        assert run.duration < 5
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGKILL)


# --- cancellation ------------------------------------------------------------------------------


async def test_cancelling_the_task_kills_the_group_and_reraises(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    task = asyncio.create_task(run_hook(command(script("pidfile_sleep.sh", pidfile)), b""))
    pgid, pids = said_group(await wait_for_file(pidfile))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(pgid, *pids) == []


def _marked(marker: str) -> list[int]:
    """Live processes whose environment carries ``marker`` (every descendant of the hook)."""
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get("DSH_TEST_MARKER") == marker and proc.status() != "zombie":
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found


@pytest.mark.parametrize("ticks", range(8))
async def test_cancelling_at_any_point_of_the_spawn_leaves_no_process(ticks: int) -> None:
    # Cancellation landing while asyncio is still connecting the pipes must end
    # the whole group too, not only the direct child.
    marker = f"spawn-cancel-{os.getpid()}-{ticks}"
    cmd = command(shell_argv("sleep 30 & sleep 30 & wait", "sh"), env={"DSH_TEST_MARKER": marker})
    task = asyncio.create_task(run_hook(cmd, b""))
    for _ in range(ticks):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    deadline = time.monotonic() + WAIT_BOUND
    while (survivors := _marked(marker)) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert survivors == []


async def test_an_abort_signal_ends_the_run_as_cancelled(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    abort = AbortSignal()
    task = asyncio.create_task(
        run_hook(command(script("pidfile_sleep.sh", pidfile)), b"", signal=abort)
    )
    pgid, pids = said_group(await wait_for_file(pidfile))
    abort.abort("user pressed escape")
    run = await task
    assert run.cancelled
    assert not run.timed_out
    assert run.exit_code is None
    assert await wait_gone(pgid, *pids) == []
    assert hook_outcome(run, toy_decoder("PreToolUse")).no_decision == "cancelled"


async def test_an_aborted_signal_spawns_nothing() -> None:
    abort = AbortSignal()
    abort.abort()
    run = await run_hook(command(("true",)), b"", signal=abort)
    assert run.cancelled
    assert run.pid is None


async def test_runs_are_values() -> None:
    run = await run_hook(command(("true",)), b"")
    assert isinstance(run, HookRun)
    with pytest.raises(AttributeError):
        run.exit_code = 3  # type: ignore[misc]
