"""Interactive ``dsh`` in a pseudo-terminal: prompts, live output, Ctrl-C, approvals, slash cmds.

Each test spawns ``python -m dsh`` under pexpect with a scripted model and a temp
project; tools and hooks are real processes. A tool that must still be running
when the test acts waits for a file the test creates, so nothing depends on timing.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import psutil
import pytest

from tests.cli.test_cli import dsh, write_script
from tests.nspids import SHELL_PID, outer_pid

PROMPT = "\x1b[?2004h"
"""What prompt_toolkit writes as each prompt opens (bracketed paste on)."""


class Session:
    """A ``dsh`` process in a pseudo-terminal, with its project and session directory."""

    def __init__(
        self, tmp_path: Path, args: list[str], env_extra: dict[str, str], cwd: Path | None = None
    ) -> None:
        self.tmp = tmp_path
        self.sessions = tmp_path / "sessions"
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("DSH_")},
            "TERM": "xterm",
            "NO_COLOR": "1",
            "PROMPT_TOOLKIT_NO_CPR": "1",
            "HOME": str(tmp_path / "home"),
            "XDG_DATA_HOME": str(tmp_path / "xdg"),
            "COLUMNS": "200",
            **env_extra,
        }
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "dsh", *args],
            cwd=str(cwd or tmp_path),
            env=env,
            encoding="utf-8",
            timeout=60,
            dimensions=(50, 200),
        )
        self.transcript = io.StringIO()
        self.child.logfile_read = self.transcript

    def prompt(self) -> None:
        self.child.expect_exact(PROMPT)

    def say(self, text: str) -> None:
        self.prompt()
        self.child.sendline(text)

    def expect(self, text: str) -> None:
        self.child.expect_exact(text)

    def leave(self) -> int:
        self.child.expect(pexpect.EOF)
        self.child.close()
        status = self.child.exitstatus
        assert status is not None, f"dsh died of signal {self.child.signalstatus}"
        return status

    def events(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for log in sorted(self.sessions.glob("*.jsonl")):
            out += [json.loads(line) for line in log.read_text().splitlines()]
        return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "home").mkdir()
    return root


@pytest.fixture
def spawned() -> Iterator[list[Session]]:
    sessions: list[Session] = []
    yield sessions
    for s in sessions:
        if s.child.isalive():
            s.child.terminate(force=True)


def start(
    spawned: list[Session],
    tmp_path: Path,
    project: Path,
    responses: list[Any],
    *extra: str,
    command: tuple[str, ...] = ("run",),
) -> Session:
    script = write_script(tmp_path / "script.json", responses)
    args = [*command, "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions"), *extra]
    if command == ("run",):
        args.append("--trust-project")  # as a user who accepted the trust question
    if "--permission-mode" not in extra:
        # The tests' own asks come from PreToolUse hooks, which ask in every mode.
        args += ["--permission-mode", "bypassPermissions"]
    session = Session(tmp_path, args, {})
    spawned.append(session)
    return session


def bash(command: str) -> dict[str, Any]:
    return {"type": "tool_use", "name": "Bash", "input": {"command": command}}


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


def record_hooks(tmp_path: Path, project: Path, events: list[str], extra: Any = None) -> Path:
    """Project settings whose hooks on ``events`` append ``<event> <source/reason/trigger>``."""
    record = tmp_path / "order.txt"
    hook = tmp_path / "record.py"
    hook.write_text(
        "import json, sys\n"
        "p = json.load(sys.stdin)\n"
        "extra = p.get('source') or p.get('reason') or p.get('trigger') or ''\n"
        "open(sys.argv[1], 'a').write(f\"{p['hook_event_name']} {extra}\\n\")\n"
    )
    group = [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook} {record}"}]}]
    hooks: dict[str, Any] = dict.fromkeys(events, group)
    hooks.update(extra or {})
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return record


def test_prompts_run_as_turns_shown_live_until_ctrl_d(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    gate = project / "go"
    responses = [
        [
            text("Working on **it** now."),
            bash(f"while [ ! -e {gate} ]; do sleep 0.05; done; echo RELEASED"),
        ],
        [text("FIRST-DONE")],
        [text("SECOND-REPLY")],
    ]
    s = start(spawned, tmp_path, project, responses)
    s.say("first prompt")
    # The reply's text and the running tool are on screen before the tool has finished.
    s.expect("Working on")
    s.expect("Bash")
    assert not gate.exists()
    gate.touch()
    s.expect("RELEASED")
    s.expect("FIRST-DONE")
    s.expect("turn ended: completed")
    s.say("second prompt")
    s.expect("SECOND-REPLY")
    s.prompt()
    s.child.sendeof()
    assert s.leave() == 0
    users = [e["content"] for e in s.events() if e["type"] == "user/message"]
    assert users == ["first prompt", "second prompt"]
    history_file = tmp_path / "xdg" / "dsh" / "prompt_history"
    assert history_file.stat().st_mode & 0o777 == 0o600  # prompts may hold secrets
    history = history_file.read_text()
    assert "+first prompt" in history
    assert "+second prompt" in history


def test_ctrl_c_cancels_the_running_tool_and_a_second_leaves(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    pid_file = project / "pgid.txt"
    responses = [
        [bash(f"sleep 600 & echo {SHELL_PID} > {pid_file}; wait")],
        [text("never reached")],
    ]
    s = start(spawned, tmp_path, project, responses)
    s.say("run the slow thing")
    s.expect("sleep 600")
    while not pid_file.exists() or not pid_file.read_text().strip():
        s.child.expect([pexpect.TIMEOUT], timeout=0.1)
    shell = outer_pid(pid_file.read_text().strip())
    assert shell is not None
    group = os.getpgid(shell)
    try:
        assert _group_alive(group)
        s.child.sendintr()
        s.expect("interrupted")
        s.expect("turn ended: aborted")
        assert not _group_alive(group)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)  # only if dsh failed to
    [result] = [e for e in s.events() if e["type"] == "tool/result"]
    assert result["code"] == "ABORTED"
    assert [e["reason"] for e in s.events() if e["type"] == "turn/end"] == ["aborted"]
    s.prompt()
    s.child.sendintr()  # the second Ctrl-C: at the prompt, it leaves
    assert s.leave() == 0


def _group_alive(pgid: int) -> bool:
    """Whether a live (not zombie) process is still in process group ``pgid``."""
    for proc in psutil.process_iter(["status"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                return True
        except (ProcessLookupError, psutil.Error):
            continue
    return False


ASK = (
    "import json\n"
    "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
    "    'permissionDecision': 'ask', 'permissionDecisionReason': 'CHECK-ME'}}))\n"
)


def _asking_project(tmp_path: Path, project: Path) -> None:
    hook = tmp_path / "ask.py"
    hook.write_text(ASK)
    group = [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}]
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": group}}))


@pytest.mark.parametrize("answer", ["y", "a", "n"])
def test_a_permission_prompt_answered_each_way(
    spawned: list[Session], tmp_path: Path, project: Path, answer: str
) -> None:
    _asking_project(tmp_path, project)
    responses = [[bash("echo x >> ran.txt")], [bash("echo x >> ran.txt")], [text("ALL-DONE")]]
    s = start(spawned, tmp_path, project, responses)
    s.say("touch it twice")
    s.expect("CHECK-ME")
    s.expect("Allow?")
    s.child.sendline(answer)
    if answer == "n":
        s.expect("Reason")
        s.child.sendline("use the other file")
    if answer != "a":  # allowed always: the same call is not asked about again
        s.expect("Allow?")
        s.child.sendline(answer)
        if answer == "n":
            s.expect("Reason")
            s.child.sendline("")
    s.expect("ALL-DONE")
    s.prompt()
    s.child.sendline("/exit")
    assert s.leave() == 0
    ran = project / "ran.txt"
    results = [e for e in s.events() if e["type"] == "tool/result"]
    if answer == "n":
        assert not ran.exists()
        assert [r["code"] for r in results] == ["DENIED", "DENIED"]
        steering = [e["text"] for e in s.events() if e["type"] == "steering/message"]
        assert steering == ["I denied the Bash call: use the other file"]
    else:
        assert ran.read_text() == "x\nx\n"
        outcomes = [r["approval"]["outcome"] for r in results]
        expected = ["allowed-once"] * 2 if answer == "y" else ["allowed-always"] * 2
        assert outcomes == expected


def test_slash_commands_compact_clear_and_exit_fire_claude_codes_hooks(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    record = record_hooks(tmp_path, project, ["SessionStart", "PreCompact", "SessionEnd"])
    responses = [[text("HELLO-BACK")]]
    s = start(spawned, tmp_path, project, responses)
    s.say("hello")
    s.expect("HELLO-BACK")
    s.say("/compact keep the greeting")
    s.expect("compacted")
    s.say("/hooks")
    s.expect("Admitted hooks:")
    s.expect(str(tmp_path / "record.py"))
    s.say("/clear")
    s.expect("new session")
    s.say("/exit")
    assert s.leave() == 0
    assert record.read_text().splitlines() == [
        "SessionStart startup",
        "PreCompact manual",
        "SessionStart compact",
        "SessionEnd clear",
        "SessionStart clear",
        "SessionEnd prompt_input_exit",
    ]
    assert len(list((tmp_path / "sessions").glob("*.jsonl"))) == 2
    starts = [e for e in s.events() if e["type"] == "compaction/start"]
    assert [e["instructions"] for e in starts] == ["keep the greeting"]


def test_bare_dsh_is_interactive_and_ctrl_d_ends_the_session(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    record = record_hooks(tmp_path, project, ["SessionEnd"])
    script = write_script(tmp_path / "script.json", [[text("BARE-REPLY")]])
    env = {"DSH_MODEL": f"scripted:{script}", "DSH_DATA_DIR": str(tmp_path / "sessions")}
    s = Session(tmp_path, [], env, cwd=project)
    spawned.append(s)
    s.expect("not trusted yet")  # the project's SessionEnd hook: asked once, then recorded
    s.expect("Trust this project's hooks and permissions, and run them?")
    s.child.sendline("y")
    s.say("hi")
    s.expect("BARE-REPLY")
    s.prompt()
    s.child.sendeof()
    assert s.leave() == 0
    assert record.read_text().splitlines() == ["SessionEnd prompt_input_exit"]
    assert (tmp_path / "sessions" / "prompt_history").exists()


def test_ctrl_c_at_a_permission_prompt_cancels_the_call_and_the_turn(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    _asking_project(tmp_path, project)
    responses = [[bash("echo x >> ran.txt")], [text("NOT-REACHED")]]
    s = start(spawned, tmp_path, project, responses)
    s.say("touch it")
    s.expect("Allow?")
    s.child.sendintr()
    s.expect("turn ended: aborted")
    s.say("/exit")
    assert s.leave() == 0
    assert not (project / "ran.txt").exists()
    [result] = [e for e in s.events() if e["type"] == "tool/result"]
    assert result["approval"]["outcome"] == "cancelled"
    assert "NOT-REACHED" not in json.dumps(s.events())


def test_a_run_at_a_terminal_streams_the_reply_and_shows_model_retries(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    from tests.models.chat_server import Reply, chunk, error_body, serving

    busy = Reply(503, error_body("the server is busy"), headers={"retry-after-ms": "5"})
    reply = Reply(chunks=[chunk({"content": "STREAMED-"}), chunk({"content": "REPLY"}, "stop")])
    with serving(busy, reply) as server:
        args = ["run", "hello", "--model", "test-model", "--base-url", server.url]
        args += ["--project", str(project), "--session-dir", str(tmp_path / "sessions")]
        s = Session(tmp_path, args, {"DSH_API_KEY": "test-key"})
        spawned.append(s)
        s.expect("model request failed (attempt 1)")
        s.expect("the server is busy")
        s.expect("retrying in 0.0s")
        s.expect("STREAMED-REPLY")
        s.expect("turn ended: completed")
        assert s.leave() == 0
        assert len(server.seen) == 2


def test_hook_failures_are_shown_as_claude_code_shows_them(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    fail = tmp_path / "fail.py"
    fail.write_text("import sys\nsys.stderr.write('OOPS-ONE\\nsecond line\\n')\nsys.exit(1)\n")
    warn = tmp_path / "warn.py"
    warn.write_text("import sys\nsys.stderr.write('START-WARNING\\n')\nsys.exit(2)\n")

    def group(script: Path) -> list[dict[str, Any]]:
        return [{"hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}]

    hooks = {"PreToolUse": group(fail), "SessionStart": group(warn)}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    s = start(spawned, tmp_path, project, [[bash("echo RAN-ANYWAY")], [text("FINE")]])
    s.expect("SessionStart hook error")
    s.expect("START-WARNING")
    s.say("go")
    s.expect("PreToolUse hook error")
    s.expect("Failed with non-blocking status code: OOPS-ONE")
    s.expect("RAN-ANYWAY")  # a non-blocking failure lets the call run
    s.expect("FINE")
    s.say("/exit")
    assert s.leave() == 0


def test_a_display_hooks_replacement_is_all_the_terminal_shows(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    from tests.cli.test_display import HIDE

    hook = tmp_path / "hide.py"
    hook.write_text(HIDE)
    group = [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}]
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"MessageDisplay": group}})
    )
    s = start(spawned, tmp_path, project, [[text("The key is SECRET-42.")]])
    s.say("what is the key?")
    s.expect("turn ended: completed")
    s.say("/exit")
    assert s.leave() == 0
    shown = s.transcript.getvalue()
    assert "The key is [hidden]." in shown
    assert "SECRET-42" not in shown


def test_a_bare_resume_at_a_terminal_lists_the_sessions_and_resumes_the_one_picked(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    sessions = tmp_path / "sessions"
    for word in ("FIRST-TOPIC", "SECOND-TOPIC"):
        script = write_script(tmp_path / f"{word}.json", [[text(f"{word}-REPLY")]])
        done = dsh(
            "run", "--model", f"scripted:{script}", "--project", str(project),
            "--session-dir", str(sessions), word, cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    first = next(p.stem for p in sessions.glob("*.jsonl") if "FIRST-TOPIC" in p.read_text())
    script = write_script(tmp_path / "again.json", [[text("AGAIN-REPLY")]])
    args = ["run", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(sessions), "AGAIN", "--resume"]
    s = Session(tmp_path, args, {})
    spawned.append(s)
    s.expect("newest first")
    s.expect("SECOND-TOPIC")  # the newest is listed first
    s.expect("FIRST-TOPIC")
    s.expect("Resume which session?")
    s.child.sendline("2")
    s.expect("AGAIN-REPLY")
    assert s.leave() == 0
    assert "AGAIN-REPLY" in (sessions / f"{first}.jsonl").read_text()
    others = [p.read_text() for p in sessions.glob("*.jsonl") if p.stem != first]
    assert len(others) == 1  # the picked session was resumed: no new one
    assert "AGAIN" not in others[0]


def test_the_resume_picker_refuses_nonsense_and_a_closed_terminal_resumes_nothing(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    sessions = tmp_path / "sessions"
    script = write_script(tmp_path / "one.json", [[text("ONE-REPLY")]])
    base = ["--model", f"scripted:{script}", "--project", str(project)]
    base += ["--session-dir", str(sessions)]
    assert dsh("run", *base, "ONE", cwd=tmp_path).returncode == 0
    s = Session(tmp_path, ["run", *base, "TWO", "--resume"], {})
    spawned.append(s)
    s.expect("Resume which session?")
    s.child.sendline("zzzz-not-an-id")
    s.expect("zzzz-not-an-id")  # the error names what was given
    s.expect("Resume which session?")
    s.child.sendeof()
    s.expect("no session chosen: nothing resumed")
    assert s.leave() == 2


def test_ctrl_c_still_cancels_a_turn_after_an_approval_prompt(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    _asking_project(tmp_path, project)
    pid_file = project / "pgid.txt"
    responses = [[bash(f"echo $$ > {pid_file}; sleep 600")], [text("never reached")]]
    s = start(spawned, tmp_path, project, responses)
    s.say("run the slow thing")
    s.expect("Allow?")
    s.child.sendline("y")  # the question's prompt_toolkit run ends here
    while not pid_file.exists() or not pid_file.read_text().strip():
        s.child.expect([pexpect.TIMEOUT], timeout=0.1)
    group = int(pid_file.read_text())
    try:
        s.child.sendintr()
        s.expect("interrupted")
        s.expect("turn ended: aborted")
        assert not _group_alive(group)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
    s.say("/exit")
    assert s.leave() == 0


def test_dsh_prompt_is_the_first_turn_of_an_interactive_session(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    responses = [[text("FIRST-REPLY")], [text("SECOND-REPLY")]]
    s = start(spawned, tmp_path, project, responses, "--trust-project", "hello first", command=())
    s.expect("> hello first")
    s.expect("FIRST-REPLY")
    s.say("and then")
    s.expect("SECOND-REPLY")
    s.say("/exit")
    assert s.leave() == 0
    users = [e["content"] for e in s.events() if e["type"] == "user/message"]
    assert users == ["hello first", "and then"]


def test_the_approval_prompt_shows_the_call_as_its_tool_line_does(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    _asking_project(tmp_path, project)
    responses = [[bash("echo x >> ran.txt")], [text("ALL-DONE")]]
    s = start(spawned, tmp_path, project, responses)
    s.say("touch it")
    s.expect("? Bash(echo x >> ran.txt)")
    s.expect("CHECK-ME")  # the asking hook's reason
    s.expect("Allow?")
    s.child.sendline("y")
    s.expect("ALL-DONE")
    s.say("/exit")
    assert s.leave() == 0
    assert '{"command"' not in s.transcript.getvalue()


def test_the_banner_and_a_continued_sessions_recent_history(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    from dsh import __version__

    responses = [[text("FIRST-REPLY")], [text("AGAIN-REPLY")]]
    s = start(spawned, tmp_path, project, responses)
    s.expect(f"✻ dsh {__version__} · model ")
    s.expect(str(project))
    s.say("the first prompt")
    s.expect("FIRST-REPLY")
    s.say("/exit")
    assert s.leave() == 0
    again = start(spawned, tmp_path, project, responses, "-c")
    again.expect("the last 1 turn(s) of session")
    again.expect("the first prompt")
    again.expect("FIRST-REPLY")
    again.expect("── resumed ──")
    again.say("/exit")
    assert again.leave() == 0
