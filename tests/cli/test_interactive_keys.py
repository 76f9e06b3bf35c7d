"""Interactive ``dsh`` in a pseudo-terminal: the working line, Esc, ``@file``, ``!command``,
the slash commands and their completion (issue 32). Helpers: ``test_interactive``."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pexpect

from dsh.base._sandbox import sandbox_mechanism
from tests.cli.test_interactive import (
    Session,
    _asking_project,
    _group_alive,
    bash,
    project,
    record_hooks,
    spawned,
    start,
    text,
)
from tests.nspids import SHELL_PID, outer_pid

__all__ = ["project", "spawned"]  # the fixtures, used by name

ESC = "\x1b"


def start_rules(
    spawned: list[Session], tmp_path: Path, project: Path, rules: list[Any], *extra: str
) -> Session:
    """``start`` with a script of ``rules`` (the default reply: ``NO-RULE``)."""
    script = tmp_path / "rules.json"
    script.write_text(json.dumps({"rules": rules, "default": [text("NO-RULE")]}))
    args = ["run", "--model", f"scripted:{script}", "--project", str(project), "--trust-project"]
    args += ["--session-dir", str(tmp_path / "sessions"), "--permission-mode", "bypassPermissions"]
    session = Session(tmp_path, [*args, *extra], {"EDITOR": "true"})
    spawned.append(session)
    return session


def _wait_for(s: Session, path: Path) -> str:
    while not path.exists() or not path.read_text().strip():
        s.child.expect([pexpect.TIMEOUT], timeout=0.1)
    return path.read_text().strip()


def test_a_working_line_with_its_time_and_how_to_stop_until_the_first_token(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    gate, started = tmp_path / "go", tmp_path / "started"
    wait = f"echo 1 > {started}; while [ ! -e {gate} ]; do sleep 0.05; done"
    hook = {"hooks": [{"type": "command", "command": wait}]}
    record_hooks(tmp_path, project, [], {"UserPromptSubmit": [hook]})
    s = start(spawned, tmp_path, project, [[text("THE-REPLY")]])
    s.say("hello")
    s.expect("Working… (")
    s.expect("s · esc to interrupt)")
    _wait_for(s, started)
    gate.write_text("go")
    s.expect("THE-REPLY")
    s.say("/exit")
    assert s.leave() == 0


def test_esc_interrupts_the_running_tool_and_does_not_leave(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    pid_file = project / "pgid.txt"
    responses = [[bash(f"sleep 600 & echo {SHELL_PID} > {pid_file}; wait")], [text("never")]]
    s = start(spawned, tmp_path, project, responses)
    s.say("run the slow thing")
    shell = outer_pid(_wait_for(s, pid_file))
    assert shell is not None
    group = os.getpgid(shell)
    try:
        s.child.send(ESC)
        s.expect("interrupted")
        s.expect("turn ended: aborted")
        assert not _group_alive(group)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)  # only if dsh failed to
    [result] = [e for e in s.events() if e["type"] == "tool/result"]
    assert result["code"] == "ABORTED"
    s.say("/exit")  # still there: Esc never leaves
    assert s.leave() == 0


def test_esc_at_a_permission_prompt_cancels_the_call_and_the_turn(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    _asking_project(tmp_path, project)
    s = start(spawned, tmp_path, project, [[bash("echo x >> ran.txt")], [text("NOT-REACHED")]])
    s.say("touch it")
    s.expect("Allow?")
    s.child.send(ESC)
    s.expect("turn ended: aborted")
    s.say("/exit")
    assert s.leave() == 0
    assert not (project / "ran.txt").exists()
    [result] = [e for e in s.events() if e["type"] == "tool/result"]
    assert result["approval"]["outcome"] == "cancelled"


def test_an_at_mention_completes_with_tab_and_attaches_the_file(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    (project / "note.txt").write_text("line one\nline two\n")
    prompts = tmp_path / "prompts.txt"
    hook = tmp_path / "prompt_hook.py"
    hook.write_text(
        f"import json, sys\nopen({str(prompts)!r}, 'a').write(json.load(sys.stdin)['prompt'])\n"
    )
    command = {"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}
    record_hooks(tmp_path, project, [], {"UserPromptSubmit": [command]})
    seen = "Result of calling the Read tool:\n1\tline one\n2\tline two\n3\t\n</system-reminder>"
    s = start_rules(spawned, tmp_path, project, [{"contains": seen, "responses": [text("SAW-IT")]}])
    s.prompt()
    s.child.send("what is in @no")
    s.child.send("\t")
    s.expect("te.txt")  # the rest of the name, written after what was typed
    s.child.send("\r")
    s.expect("Read note.txt (3 lines)")  # 2.1.332's line under the prompt, not the blocks
    s.expect("SAW-IT")
    s.say("/exit")
    assert s.leave() == 0
    assert "system-reminder" not in s.transcript.getvalue()
    [prompt] = [e["content"] for e in s.events() if e["type"] == "user/message"]
    assert prompt[-1] == {"type": "text", "text": "what is in @note.txt"}
    assert f'"file_path":"{project / "note.txt"}"' in prompt[0]["text"]
    assert prompts.read_text() == "what is in @note.txt"  # the hook sees what was typed


def test_a_bang_command_runs_in_the_shell_and_joins_the_conversation(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    seen = "<bash-stdout>hello-bang</bash-stdout><bash-stderr></bash-stderr>"
    s = start_rules(spawned, tmp_path, project, [{"contains": seen, "responses": [text("SAW-IT")]}])
    s.say("!echo hello-bang > made.txt; cat made.txt")
    s.expect("⎿ hello-bang")
    s.expect("SAW-IT")
    assert (project / "made.txt").read_text() == "hello-bang\n"
    pid_file = project / "pid.txt"
    s.say(f"!sleep 600 & echo {SHELL_PID} > {pid_file}; wait")
    shell = outer_pid(_wait_for(s, pid_file))
    assert shell is not None
    group = os.getpgid(shell)
    try:
        s.child.sendintr()
        s.expect("interrupted")
        s.prompt()
        assert not _group_alive(group)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
    s.child.sendline("/exit")
    assert s.leave() == 0
    users = [e["content"] for e in s.events() if e["type"] == "user/message"]
    assert len(users) == 1  # the interrupted command sent nothing
    assert users[0][0] == {
        "type": "text",
        "text": "<bash-input>echo hello-bang > made.txt; cat made.txt</bash-input>\n",
    }


def test_claudes_slash_commands_run_in_dsh_and_complete_with_tab(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    (project / "CLAUDE.md").write_text("Be brief.\n")
    init = {"contains": "create a CLAUDE.md file", "responses": [text("INIT-ASKED")]}
    s = start_rules(spawned, tmp_path, project, [init])
    s.prompt()
    s.child.send("/sta\t")
    s.expect("tus")
    s.child.send("\r")
    s.expect("Session ID: ")
    s.expect("sandbox: none (danger-full-access)")
    for command, shows in [
        ("/help", "/permissions"),
        ("/model", "Current model: "),
        ("/cost", "Usage: 0 input, 0 output"),
        ("/permissions", "bypassPermissions"),
        ("/memory", f"{project / 'CLAUDE.md'}"),
        ("/config", "Change one with: dsh config set"),
        ("/doctor", "✓ Python"),
        ("/init", "INIT-ASKED"),
        ("/cost", "Model replies: 1"),
    ]:
        s.say(command)
        s.expect(shows)
    s.say("/exit")
    assert s.leave() == 0
    users = [e["content"] for e in s.events() if e["type"] == "user/message"]
    assert len(users) == 1
    assert "create a CLAUDE.md file" in users[0]


def test_resume_lists_the_projects_sessions_and_continues_one(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    first = start(spawned, tmp_path, project, [[text("FIRST-REPLY")], [text("AGAIN")]])
    first.say("the first prompt")
    first.expect("FIRST-REPLY")
    first.say("/exit")
    assert first.leave() == 0
    [old] = [p.stem for p in (tmp_path / "sessions").glob("*.jsonl")]
    s = start(spawned, tmp_path, project, [[text("FIRST-REPLY")], [text("AGAIN")]])
    s.say("/resume")
    s.expect("/resume N or /resume ID")
    s.expect("the first prompt")
    s.say("/resume 1")
    s.expect("the last 1 turn(s) of session")
    s.expect("── resumed ──")
    s.say("and again")
    s.expect("AGAIN")
    s.say("/exit")
    assert s.leave() == 0
    log = tmp_path / "sessions" / f"{old}.jsonl"
    users = [json.loads(line) for line in log.read_text().splitlines()]
    prompts = [e["content"] for e in users if e["type"] == "user/message"]
    assert prompts == ["the first prompt", "and again"]


def _slow_hook(tmp_path: Path, project: Path, event: str) -> Path:
    """Project settings with an ``event`` hook that writes its shell's pid and sleeps (its
    timeout 60 s: SessionEnd's budget is raised to it, from 1.5 s)."""
    pid_file = tmp_path / f"{event}.pid"
    slow = {"type": "command", "command": f"echo {SHELL_PID} > {pid_file}; sleep 600"}
    record_hooks(tmp_path, project, [], {event: [{"hooks": [{**slow, "timeout": 60}]}]})
    return pid_file


def _ended(s: Session, pid_file: Path, key: str, after: str) -> None:
    """Send ``key`` once the hook runs: ``interrupted``, then ``after`` (what follows the
    interrupted work), and by then the hook's process group is gone."""
    shell = outer_pid(_wait_for(s, pid_file))
    assert shell is not None
    group = os.getpgid(shell)
    try:
        s.child.send(key)
        s.expect("interrupted")
        s.expect(after)
        assert not _group_alive(group)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)  # only if dsh failed to


def test_esc_interrupts_the_session_start_hooks(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    pid_file = _slow_hook(tmp_path, project, "SessionStart")
    s = start(spawned, tmp_path, project, [[text("AFTER-START")]])
    _ended(s, pid_file, ESC, "/help for commands")
    s.say("hello")  # the session goes on
    s.expect("AFTER-START")
    s.say("/exit")
    assert s.leave() == 0


def test_ctrl_c_interrupts_a_compaction(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    pid_file = _slow_hook(tmp_path, project, "PreCompact")
    s = start(spawned, tmp_path, project, [[text("FIRST")], [text("AFTER-COMPACT")]])
    s.say("hello")
    s.expect("FIRST")
    s.say("/compact")
    _ended(s, pid_file, "\x03", "not compacted")
    s.say("again")  # the session goes on, not compacted
    s.expect("AFTER-COMPACT")
    s.say("/exit")
    assert s.leave() == 0
    assert not [e for e in s.events() if e["type"].startswith("compaction/")]


def test_status_shows_the_sessions_sandbox_and_its_mechanism(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    s = start_rules(spawned, tmp_path, project, [], "--sandbox", "workspace-write")
    s.say("/status")
    mechanism, how = sandbox_mechanism()
    if mechanism is None:
        s.expect(f"no mechanism here ({how}): commands are refused")
    else:
        s.expect("sandbox: workspace-write, network off (from flag --sandbox) on ")
        s.expect(mechanism)
    s.say("/exit")
    assert s.leave() == 0


def test_esc_and_ctrl_c_interrupt_the_session_end_hooks_of_clear_and_resume(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    """``/clear`` and ``/resume`` fire SessionEnd (``clear``, ``resume``) and wait for its
    hooks, as 2.1.332 does; Esc or Ctrl-C ends them (their process group gone) and the
    command goes on: a new session, or the one resumed."""
    pid_file = _slow_hook(tmp_path, project, "SessionEnd")
    s = start(spawned, tmp_path, project, [[text("FIRST")], [text("SECOND")], [text("THIRD")]])
    s.say("the first prompt")
    s.expect("FIRST")
    [log] = s.sessions.glob("*.jsonl")
    first = log.stem
    s.say("/clear")
    _ended(s, pid_file, ESC, "cleared: new session")
    s.say("in the new session")
    s.expect("FIRST")
    pid_file.unlink()
    s.say(f"/resume {first}")
    _ended(s, pid_file, "\x03", "the first prompt")  # the resumed session's history shows
    s.say("and on")
    s.expect("SECOND")  # the first session's second reply: it goes on
    pid_file.unlink()
    s.say("/exit")
    _ended(s, pid_file, ESC, "session ")  # /exit's own SessionEnd hook: the same
    assert s.leave() == 0
    ends = [e for e in s.events() if e["type"] == "hook/result" and e["hook_event"] == "SessionEnd"]
    assert len(ends) == 3
