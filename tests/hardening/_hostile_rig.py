"""The session the hostile-hook corpus runs: every event the Claude Code bridge runs, in two runs.

One project whose settings register the same hook (``scripts/hostile_hook.py MODE``)
on every event the bridge fires in ``dsh run`` (all of ``HOOK_EVENT_HOST_SUPPORT``
but the unsupported ones and ``PermissionDenied``, which fires only in ``auto`` mode,
which these runs do not use). The first ``dsh run`` (``--init``, stream-json
input) fires Setup, InstructionsLoaded, SessionStart, a custom command's
UserPromptSubmit, UserPromptExpansion and PreSkillShellCommand, then a step of tool
calls (PreToolUse, PostToolUse, PostToolUseFailure, CwdChanged, PermissionRequest,
TaskCreated, SubagentStart/SubagentStop, PostToolBatch), TaskCompleted,
MessageDisplay and Stop; a ``set_model`` (PreModelSwitch, PostModelSwitch), a
``register_repo_root`` (DirectoryAdded), a turn the model fails (StopFailure) and
SessionEnd. The second (``/compact --resume``) fires PreCompact and PostCompact.
The peak RSS of each ``dsh run`` is its ``VmHWM``, read until it exits.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dsh.hooks.claude import HOOK_EVENT_HOST_SUPPORT

SCRIPT = Path(__file__).parent / "scripts" / "hostile_hook.py"
NEVER_IN_DSH_RUN = frozenset(
    {
        "PermissionDenied",  # fires only in `auto` mode (tests/hooks_claude, tests/cli)
        "Notification",  # only when a person is asked: never in a headless run (as `claude -p`)
        "ConfigChange",  # only when a settings or skill file changes (tests/hooks_claude)
        "FileChanged",  # only when a watched file changes (tests/hooks_claude)
        # only for a subagent type with `isolation: worktree` (tests/hooks_claude)
        "WorktreeCreate",
        # only from an interactive --worktree session's exit question (tests/cli)
        "WorktreeRemove",
    }
)
EVENTS = tuple(
    e
    for e, row in HOOK_EVENT_HOST_SUPPORT.items()
    if row.status != "not-supported" and e not in NEVER_IN_DSH_RUN
)
HOOK_TIMEOUT = 2
MCP_SERVER = Path(__file__).parents[1] / "mcp" / "sample_server.py"
"""A user-level MCP server whose ``ask-user`` tool elicits (so that Elicitation fires)."""
SECRET = "HOSTILE-CORPUS-SECRET-KEY"


def _bash(command: str) -> dict[str, Any]:
    return {"type": "tool_use", "name": "Bash", "input": {"command": command, "description": "d"}}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


SCRIPT_JSON = {
    "anthropic": {
        "rules": [
            {
                # The compaction's summary request as the Claude Code bridge asks (2.1.332's
                # prompt after the last request, its tools offered), and as dsh's own asks.
                "contains": "Your task is to create a detailed summary",
                "responses": [[_text("<summary>CORPUS-SUMMARY</summary>")]],
            },
            {
                "no_tools": True,
                "responses": [[_text("<summary>CORPUS-SUMMARY</summary>")]],
            },
            {
                "first_user_contains": "SUBTASK-MARKER",
                "responses": [[_bash("echo from-sub")], [_text("sub done")]],
            },
            {
                "contains": "FAIL-NOW",
                "responses": [[{"type": "http_error", "status": 500, "body": {"error": "x"}}]],
            },
            {
                "first_user_contains": "PROBE-MARKER",
                "responses": [
                    [
                        _text("Working."),
                        _bash("echo hi"),
                        _bash("ls /definitely/not/here"),
                        _bash("cd sub && pwd"),
                        _bash("touch perm.txt"),
                        # A user-level MCP server's tool that elicits: Elicitation fires.
                        {"type": "tool_use", "name": "mcp__elicit__ask-user", "input": {}},
                        {
                            "type": "tool_use",
                            "name": "TaskCreate",
                            "input": {"subject": "t", "description": "d", "activeForm": "Doing"},
                        },
                        {
                            "type": "tool_use",
                            "name": "Agent",
                            "input": {
                                "description": "sub",
                                "subagent_type": "general-purpose",
                                "prompt": "SUBTASK-MARKER: run echo from-sub.",
                            },
                        },
                    ],
                    [
                        {
                            "type": "tool_use",
                            "name": "TaskUpdate",
                            "input": {"taskId": "1", "status": "completed"},
                        }
                    ],
                    [_text("All done.")],
                    [_text("Again.")],
                ],
            },
        ],
        "default": {"type": "text", "text": "<summary>CORPUS-SUMMARY</summary>"},
    }
}


@dataclass
class Outcome:
    """What one case's two ``dsh run`` did."""

    codes: list[int] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    peak_rss_kib: int = 0
    session: str | None = None
    ran: list[str] = field(default_factory=list)


def prepare(run_dir: Path, mode: str, answer: bytes = b"{}") -> Path:
    """The project of one case (its hooks, CLAUDE.md, custom command), its model script."""
    project = run_dir / "project"
    for sub in ("sub", "extra", ".claude/commands"):
        (project / sub).mkdir(parents=True, exist_ok=True)
    (run_dir / "home").mkdir(exist_ok=True)
    (project / "CLAUDE.md").write_text("Be terse.\n")
    (project / ".claude" / "commands" / "probe.md").write_text(
        "PROBE-MARKER context: !`echo SHELL-OUT $ARGUMENTS`\nDo the probe.\n"
    )
    command = f"{sys.executable} {SCRIPT} {mode} {run_dir}"
    handler = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
    hooks = {event: [{"hooks": [handler]}] for event in EVENTS}
    allow = {"allow": ["mcp__elicit"]}  # the elicitation's call runs whatever the hooks say
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": hooks, "permissions": allow})
    )
    server = {"command": sys.executable, "args": [str(MCP_SERVER)]}
    (run_dir / "home" / ".claude.json").write_text(json.dumps({"mcpServers": {"elicit": server}}))
    (run_dir / "answer.bin").write_bytes(answer)
    (run_dir / "script.json").write_text(json.dumps(SCRIPT_JSON))
    return project


def _stdin(project: Path) -> str:
    lines = [
        {"type": "user", "message": {"role": "user", "content": "/probe argA"}},
        {
            "type": "control_request",
            "request_id": "c1",
            "request": {"subtype": "set_model", "model": "sonnet"},
        },
        {
            "type": "control_request",
            "request_id": "c2",
            "request": {"subtype": "register_repo_root", "directory": str(project / "extra")},
        },
        {"type": "user", "message": {"role": "user", "content": "again"}},
        {"type": "user", "message": {"role": "user", "content": "FAIL-NOW"}},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def _dsh(run_dir: Path, args: list[str], stdin: str) -> tuple[int, str, int]:
    """One ``dsh run``: its exit code, its output, its peak RSS in KiB."""
    env = {
        **os.environ,
        "HOME": str(run_dir / "home"),
        "XDG_DATA_HOME": str(run_dir / "data"),
        "DSH_API_KEY": SECRET,
        "OPENAI_API_KEY": SECRET,
        "NO_COLOR": "1",
    }
    env.pop("DSH_MODEL", None)
    out = run_dir / "out.txt"
    with out.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dsh", "run", *args],
            cwd=run_dir,
            env=env,
            stdin=subprocess.PIPE,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        assert proc.stdin is not None
        proc.stdin.write(stdin.encode())
        proc.stdin.close()
        peak = 0
        while True:
            peak = max(peak, _high_water_kib(proc.pid))
            pid, status, _ = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, out.read_text(errors="replace"), peak


def run_case(run_dir: Path, mode: str, answer: bytes = b"{}") -> Outcome:
    """Both ``dsh run`` of one case; the hook's events in the order they started."""
    project = prepare(run_dir, mode, answer)
    sessions = run_dir / "sessions"
    common = [
        "--model",
        f"scripted:{run_dir / 'script.json'}",
        "--project",
        str(project),
        "--session-dir",
        str(sessions),
    ]
    outcome = Outcome()
    first = ["--init", "--input-format", "stream-json", "--trust-project", *common]
    for args, stdin in ((first, _stdin(project)), (None, "")):
        if args is None:
            outcome.session = _main_session(outcome.outputs[0])
            if outcome.session is None:
                break
            args = ["/compact", "--resume", outcome.session, *common]
        code, output, rss = _dsh(run_dir, args, stdin)
        outcome.codes.append(code)
        outcome.outputs.append(output)
        outcome.peak_rss_kib = max(outcome.peak_rss_kib, rss)
    ran = run_dir / "ran.txt"
    outcome.ran = ran.read_text().split() if ran.exists() else []
    return outcome


def _high_water_kib(pid: int) -> int:
    """The process's peak RSS so far (``VmHWM``). Not ``wait4``'s ``ru_maxrss``: Linux carries
    the forking parent's (pytest's) peak across ``exec`` into it."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _main_session(output: str) -> str | None:
    """The root session's id, from the run's closing ``session <id> (<path>)`` line."""
    found = re.findall(r"^session ([0-9a-f-]{36}) \(", output, re.MULTILINE)
    return found[-1] if found else None


def leftovers(run_dir: Path, settle: float = 15.0) -> list[int]:
    """Live processes whose command line names ``run_dir`` (its hooks and what they started)."""
    mine = str(run_dir).encode()
    deadline = time.monotonic() + settle
    while True:
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == os.getpid():
                continue
            try:
                if mine in Path(f"/proc/{name}/cmdline").read_bytes() and _alive(int(name)):
                    found.append(int(name))
            except OSError:
                continue
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


CODEX_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SessionEnd",
)


def run_codex_case(run_dir: Path, mode: str, answer: bytes = b"{}") -> Outcome:
    """One ``dsh run --hooks codex`` with the hostile hook on the Codex events a Bash turn fires
    (the project's ``.codex/hooks.json``, trusted by ``--trust-project``)."""
    project = run_dir / "project"
    (project / ".codex").mkdir(parents=True)
    (project / ".git").mkdir()
    (run_dir / "home" / ".codex").mkdir(parents=True)
    command = f"{sys.executable} {SCRIPT} {mode} {run_dir}"
    handler = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
    hooks = {event: [{"hooks": [handler]}] for event in CODEX_EVENTS}
    (project / ".codex" / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    (run_dir / "answer.bin").write_bytes(answer)
    replies = [[_text("Working."), _bash("echo hi")], [_text("All done.")]]
    (run_dir / "script.json").write_text(json.dumps({"openai": {"responses": replies}}))
    args = ["go", "--hooks", "codex", "--trust-project", "--model"]
    args += [f"scripted:{run_dir / 'script.json'}", "--project", str(project)]
    code, output, rss = _dsh(run_dir, [*args, "--session-dir", str(run_dir / "sessions")], "")
    ran = run_dir / "ran.txt"
    return Outcome(
        codes=[code],
        outputs=[output],
        peak_rss_kib=rss,
        session=_main_session(output),
        ran=ran.read_text().split() if ran.exists() else [],
    )
