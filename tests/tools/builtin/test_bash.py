"""The Bash tool against real processes: output shape, exits, persistence, kills."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from dsh.base import AbortSignal, freeze_json
from dsh.tools import ToolInvocation, Workspace
from dsh.tools.builtin import BASH_TOOL
from dsh.tools.builtin._bash import MAX_OUTPUT_CHARS, background_shell
from tests.hook_protocol.support import WAIT_BOUND
from tests.nspids import SHELL_PID, outer_pid

from ._support import CONFORMANCE, call, conformance_payloads

PROJECT = "${PROJECT_DIR}"


def _survivors(pgid: int) -> list[psutil.Process]:
    """Live (not zombie) processes in the group ``pgid``."""
    alive = []
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                alive.append(proc)
        except (ProcessLookupError, psutil.NoSuchProcess, PermissionError):
            continue
    return alive


async def _assert_group_gone(pgid: int) -> None:
    """No survivor in the group, once SIGKILL has been delivered (that is not instantaneous,
    least of all on a loaded machine)."""
    deadline = time.monotonic() + WAIT_BOUND
    while time.monotonic() < deadline:
        if not _survivors(pgid):
            return
        await asyncio.sleep(0.01)
    assert _survivors(pgid) == []


def _marker(path: Path) -> str:
    return path.read_text().strip() if path.exists() else ""


async def _wait_for(path: Path) -> str:
    while not (text := _marker(path)):
        await asyncio.sleep(0.01)
    return text


def _recorded_bash_successes(case_dir: Path) -> list[dict[str, Any]]:
    """The case's successful Bash calls (PostToolUse payloads), in the order they ran."""
    payloads = []
    for path in sorted(case_dir.glob("PostToolUse*.json"), key=lambda p: _nth(p.stem)):
        payload = json.loads(path.read_text())["payload"]
        if payload["hook_event_name"] == "PostToolUse" and payload["tool_name"] == "Bash":
            payloads.append(payload)
    return payloads


def _nth(stem: str) -> int:
    """``PostToolUse`` → 1, ``PostToolUse-3`` → 3."""
    return int(stem.rpartition("-")[2]) if stem[-1].isdigit() else 1


def _session_exports(case: dict[str, Any]) -> dict[str, str]:
    """What the case's SessionStart hook exported through ``$CLAUDE_ENV_FILE`` (``env-file``),
    which every later Bash command of the session sees."""
    answer = (case.get("hook_answers") or {}).get("SessionStart") or {}
    return dict(re.findall(r"^export (\w+)=(.*)$", answer.get("env_file") or "", re.M))


async def test_recorded_successes_have_the_recorded_shape(tmp_path: Path) -> None:
    # Each case's calls in order in one session's workspace: its files written, the directory
    # and the exports of earlier calls kept (`cwd-change`, `env-file`, `if-filter`).
    checked = 0
    for case_dir in sorted(p for p in CONFORMANCE.iterdir() if (p / "case.json").is_file()):
        case = json.loads((case_dir / "case.json").read_text())
        project = tmp_path / case_dir.name
        project.mkdir()
        for name, text in ((case.get("files") or {}).get("files") or {}).items():
            (project / name).parent.mkdir(parents=True, exist_ok=True)
            (project / name).write_text(text)
        env = dict(os.environ, LC_ALL="C", **_session_exports(case))
        ws = Workspace(project, env=env)
        for payload in _recorded_bash_successes(case_dir):
            command = payload["tool_input"]["command"]
            result = await call(BASH_TOOL, ws, **payload["tool_input"])
            expected = {
                k: v.replace(PROJECT, str(project)) if isinstance(v, str) else v
                for k, v in payload["tool_response"].items()
            }
            assert result.output == expected, (case_dir.name, command)
            assert not result.is_error
            checked += 1
    assert checked


async def test_recorded_failure_text(ws: Workspace) -> None:
    (payload,) = conformance_payloads("PostToolUseFailure", "Bash")
    result = await call(BASH_TOOL, ws, **payload["tool_input"])
    assert result.is_error
    assert result.code == "TOOL_ERROR"
    assert result.content == payload["error"]


async def test_exit_code_and_output_of_a_failure(ws: Workspace) -> None:
    result = await call(BASH_TOOL, ws, command="echo partial; exit 3")
    assert result.is_error
    assert result.code == "TOOL_ERROR"
    assert result.content == "Exit code 3\npartial"
    assert result.output["stdout"] == "partial"
    silent = await call(BASH_TOOL, ws, command="false")
    assert silent.content == "Exit code 1"


async def test_stderr_is_merged_into_stdout_in_order(ws: Workspace) -> None:
    result = await call(BASH_TOOL, ws, command="echo one; echo two >&2; echo three")
    assert result.output["stdout"] == "one\ntwo\nthree"
    assert result.output["stderr"] == ""
    assert result.content == "one\ntwo\nthree"


async def test_no_output(ws: Workspace) -> None:
    result = await call(BASH_TOOL, ws, command="touch made && mkdir -p d")
    assert result.content == "(Bash completed with no output)"
    assert result.output["noOutputExpected"] is True
    assert (ws.cwd / "made").exists()


async def test_cd_persists_across_calls(ws: Workspace, tmp_path: Path) -> None:
    first = await call(BASH_TOOL, ws, command="mkdir -p sub/deeper && cd sub && pwd")
    assert first.output["stdout"] == str(tmp_path / "sub")
    assert ws.cwd == tmp_path / "sub"
    second = await call(BASH_TOOL, ws, command="pwd; cd deeper")
    assert second.output["stdout"] == str(tmp_path / "sub")
    assert ws.cwd == tmp_path / "sub" / "deeper"
    # Recorded even when the command ends with exit.
    await call(BASH_TOOL, ws, command="cd ..; exit 4")
    assert ws.cwd == tmp_path / "sub"


async def test_export_and_unset_persist(ws: Workspace) -> None:
    ws.env["DROP_ME"] = "1"
    await call(BASH_TOOL, ws, command="export DSH_PROBE='a b=c'; unset DROP_ME; LOCAL_ONLY=x")
    assert ws.env["DSH_PROBE"] == "a b=c"
    assert "DROP_ME" not in ws.env
    assert "LOCAL_ONLY" not in ws.env
    result = await call(BASH_TOOL, ws, command='echo "$DSH_PROBE|${DROP_ME-unset}"')
    assert result.content == "a b=c|unset"


async def test_shell_level_does_not_drift(ws: Workspace) -> None:
    before = ws.env.get("SHLVL")
    for _ in range(3):
        await call(BASH_TOOL, ws, command="true")
    assert ws.env.get("SHLVL") == before


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="containment marks: Linux")
async def test_each_command_carries_its_own_containment_mark_and_never_keeps_it(
    ws: Workspace,
) -> None:
    ws.env.pop("DSH_CONTAINMENT", None)
    first = await call(BASH_TOOL, ws, command='echo "$DSH_CONTAINMENT"')
    second = await call(BASH_TOOL, ws, command='echo "$DSH_CONTAINMENT"')
    assert str(first.content).startswith(str(second.content).split(".")[0] + ".")
    assert first.content != second.content
    assert len(str(second.content).split()) == 1  # not the first one's mark handed on
    assert "DSH_CONTAINMENT" not in ws.env


async def test_timeout_kills_the_whole_group(ws: Workspace) -> None:
    result = await call(
        BASH_TOOL, ws, command="echo $$; sleep 300 & sleep 300; echo never", timeout=300
    )
    assert result.is_error
    assert result.code == "TOOL_ERROR"
    assert result.output["interrupted"] is True
    assert result.text.startswith("Command timed out after 300 ms")
    pgid = int(result.output["stdout"].splitlines()[0])
    assert "never" not in result.output["stdout"]
    await _assert_group_gone(pgid)


def _group_of(said: str) -> int:
    """The process group of the shell that said its pid (``PID@INODE``, tests/nspids.py)."""
    pid = outer_pid(said.strip())
    assert pid is not None
    return os.getpgid(pid)


async def test_abort_kills_the_whole_group(ws: Workspace, tmp_path: Path) -> None:
    signal = AbortSignal()
    marker = tmp_path / "pid"
    task = asyncio.create_task(
        call(
            BASH_TOOL,
            ws,
            signal=signal,
            command=f"sleep 300 & echo {SHELL_PID} > {marker}; sleep 300",
        )
    )
    pgid = _group_of(await _wait_for(marker))
    assert _survivors(pgid)
    signal.abort("user pressed stop")
    result = await task
    assert result.is_error
    assert result.code == "ABORTED"
    assert result.text.startswith("Command aborted: user pressed stop")
    assert result.output["interrupted"] is True
    await _assert_group_gone(pgid)


async def test_cancelling_the_call_kills_the_group(ws: Workspace, tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    task = asyncio.create_task(
        call(BASH_TOOL, ws, command=f"sleep 300 & echo {SHELL_PID} > {marker}; sleep 300")
    )
    pgid = _group_of(await _wait_for(marker))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await _assert_group_gone(pgid)


async def test_output_is_capped_and_the_cut_marked(ws: Workspace) -> None:
    result = await call(BASH_TOOL, ws, command="seq 1 200000")
    stdout = result.output["stdout"]
    assert stdout.startswith("1\n2\n3\n")
    head, marker = stdout.rsplit("\n\n", 1)
    assert len(head) <= MAX_OUTPUT_CHARS
    assert marker.startswith("... [")
    assert marker.endswith(" lines truncated] ...")
    ws.env["BASH_MAX_OUTPUT_LENGTH"] = "10"
    small = await call(BASH_TOOL, ws, command="seq 1 100")
    assert small.output["stdout"] == "1\n2\n3\n4\n5\n\n... [95 lines truncated] ..."


async def test_background_run_returns_at_once(ws: Workspace, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    result = await call(
        BASH_TOOL,
        ws,
        command=f"echo started; while [ ! -e {gate} ]; do sleep 0.01; done; echo finished",
        run_in_background=True,
    )
    # It returned while the command still waits for the gate.
    shell_id = result.output["backgroundTaskId"]
    shell = background_shell(shell_id)
    assert shell is not None
    assert shell.returncode is None
    assert shell_id in result.text
    assert str(shell.output_path) in result.text
    gate.touch()
    assert await shell.wait() == 0
    assert shell.output() == "started\nfinished\n"


async def test_background_shell_can_be_killed(ws: Workspace) -> None:
    result = await call(BASH_TOOL, ws, command="sleep 300 & sleep 300", run_in_background=True)
    shell = background_shell(result.output["backgroundTaskId"])
    assert shell is not None
    shell.kill()
    assert await shell.wait() == -9
    await _assert_group_gone(shell.pid)


async def test_missing_working_directory(ws: Workspace, tmp_path: Path) -> None:
    ws.cwd = tmp_path / "gone"
    result = await call(BASH_TOOL, ws, command="true")
    assert result.is_error
    assert str(tmp_path / "gone") in result.text


async def test_invalid_arguments_called_directly(ws: Workspace) -> None:
    result = await BASH_TOOL.run(
        ToolInvocation("Bash", freeze_json({"command": "true", "timeout": 10**9}), ws)
    )
    assert result.is_error
    assert result.code == "INVALID_ARGS"
    assert "timeout" in result.text


async def test_closing_the_workspace_ends_its_background_shells(ws: Workspace) -> None:
    result = await call(BASH_TOOL, ws, command="sleep 300 & sleep 300", run_in_background=True)
    shell_id = result.output["backgroundTaskId"]
    shell = background_shell(shell_id)
    assert shell is not None
    ws.close()
    assert await shell.wait() == -9
    await _assert_group_gone(shell.pid)
    assert background_shell(shell_id) is None


async def test_a_finished_background_shell_is_left_alone_at_close(ws: Workspace) -> None:
    result = await call(BASH_TOOL, ws, command="echo done", run_in_background=True)
    shell = background_shell(result.output["backgroundTaskId"])
    assert shell is not None
    assert await shell.wait() == 0
    ws.close()
    assert shell.returncode == 0
    assert shell.output() == "done\n"


def test_workspace_cleanups_run_last_first_and_all_of_them(tmp_path: Path) -> None:
    ws = Workspace(cwd=tmp_path)
    ran: list[str] = []

    def failing() -> None:
        ran.append("failing")
        raise RuntimeError("boom")

    ws.on_close(lambda: ran.append("first"))
    ws.on_close(failing)
    remove = ws.on_close(lambda: ran.append("removed"))
    ws.on_close(lambda: ran.append("last"))
    remove()
    ws.close()
    assert ran == ["last", "failing", "first"]
    ws.close()  # nothing left to run
    assert ran == ["last", "failing", "first"]


async def test_env_scripts_are_sourced_before_each_command(ws: Workspace, tmp_path: Path) -> None:
    script = tmp_path / "session-env" / "start.sh"
    ws.add_env_script(script)
    ws.add_env_script(script)
    assert ws.env_scripts == [script]
    # Not written yet: skipped, and the command sees no arguments of the wrapper's.
    first = await call(BASH_TOOL, ws, command='echo "${DSH_FROM_SCRIPT-unset}|$#"')
    assert first.content == "unset|0"
    script.parent.mkdir()
    script.write_text("export DSH_FROM_SCRIPT=bar\n")
    second = await call(BASH_TOOL, ws, command='echo "$DSH_FROM_SCRIPT|$#"')
    assert second.content == "bar|0"
    assert "DSH_FROM_SCRIPT" not in os.environ
    background = await call(BASH_TOOL, ws, command="echo $DSH_FROM_SCRIPT", run_in_background=True)
    shell = background_shell(background.output["backgroundTaskId"])
    assert shell is not None
    assert await shell.wait() == 0
    assert shell.output() == "bar\n"
