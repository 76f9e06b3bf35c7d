"""``dsh hooks test`` and ``dsh hooks coverage`` through the real command, with real hook processes.

A project's hooks run with a generated payload, one from a file or stdin, or a recorded case's;
the output shows the raw run, the decoded answer and what it does to the model; ``--all``
reports which hooks answer, fail or time out.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.support import run_dsh
from tests.shared_paths import CONFORMANCE

DENY_RM = """
import json, sys
p = json.load(sys.stdin)
if "rm " in p["tool_input"].get("command", ""):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no rm here"}}))
"""


HOOK_PATH = '"$CLAUDE_PROJECT_DIR/.claude/hooks/deny_rm.py"'


def dsh(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_dsh(*args, cwd=cwd, env={"HOME": str(cwd.parent / "home")}, stdin=stdin)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    hooks = root / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    (tmp_path / "home").mkdir()
    (hooks / "deny_rm.py").write_text(DENY_RM)
    settings = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {
                            "type": "command",
                            "command": f"{sys.executable} {HOOK_PATH}",
                        }
                    ],
                }
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "echo keep going >&2; exit 2"}]}],
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "sleep 5", "timeout": 1}]}
            ],
        }
    }
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return root


def test_a_generated_tool_call_shows_the_run_the_answer_and_what_the_model_reads(
    project: Path,
) -> None:
    done = dsh(
        "hooks",
        "test",
        "PreToolUse",
        "--tool",
        "Bash",
        "--input",
        '{"command": "rm -rf /"}',
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert '"tool_input": {"command": "rm -rf /"}' in out  # the payload
    assert "ran: exit 0 in " in out
    assert '"permissionDecision": "deny"' in out  # stdout and the decoded answer
    assert "-> permission decision: deny no rm here" in out
    assert "-> model reads (tool error): PreToolUse:Bash hook error: no rm here" in out
    harmless = dsh("hooks", "test", "PreToolUse", "--tool", "Bash", cwd=project)
    assert "-> no decision" in harmless.stdout


def test_an_exit_two_stop_hook_sends_the_model_back_with_its_stderr(project: Path) -> None:
    done = dsh("hooks", "test", "Stop", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "ran: exit 2" in done.stdout
    assert "stderr: keep going" in done.stdout
    assert "the turn goes on; model reads: [echo keep going >&2; exit 2]: keep going" in done.stdout


def test_a_payload_from_stdin_and_from_a_file(project: Path, tmp_path: Path) -> None:
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm x"},
    }
    piped = dsh(
        "hooks", "test", "PreToolUse", "--payload", "-", cwd=project, stdin=json.dumps(payload)
    )
    assert "permission decision: deny" in piped.stdout
    file = tmp_path / "payload.json"
    file.write_text(json.dumps(payload))
    read = dsh("hooks", "test", "PreToolUse", "--payload", str(file), cwd=project)
    assert "permission decision: deny" in read.stdout
    other = dsh("hooks", "test", "PreToolUse", "--tool", "Read", cwd=project)
    assert other.returncode == 1
    assert "no admitted PreToolUse hook matches" in other.stdout


@pytest.mark.skipif(
    not (CONFORMANCE / "claude" / "pretool-deny-json").is_dir(), reason="no corpus here"
)
def test_a_recorded_cases_payload(project: Path) -> None:
    case = CONFORMANCE / "claude" / "pretool-deny-json"
    done = dsh("hooks", "test", "PreToolUse", "--case", str(case), cwd=project)
    assert done.returncode == 0, done.stderr
    assert '"command": "echo hi"' in done.stdout
    assert f'"cwd": "{project}"' in done.stdout  # the placeholder is this project
    missing = dsh("hooks", "test", "Setup", "--case", str(case), cwd=project)
    assert missing.returncode == 2
    assert "no recorded Setup invocation" in missing.stderr


def test_all_reports_which_hooks_answer_fail_or_time_out(project: Path) -> None:
    done = dsh("hooks", "test", "--all", cwd=project)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert any(line.startswith("no decision") and "PreToolUse[0][0]" in line for line in lines)
    assert any(line.startswith("answered") and "Stop[0][0]" in line for line in lines)
    assert any(line.startswith("TIMED OUT") and "UserPromptSubmit[0][0]" in line for line in lines)
    assert lines[-1] == "3 hook(s), 1 failed or timed out"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("Nope",), "'Nope' is not a Claude Code hook event"),
        (("PreToolUse", "--input", "{bad"), "--input: not JSON"),
        (("PreToolUse", "--input", "[1]"), "not a JSON object"),
        (("PreToolUse", "--payload", "/no/such/file"), "cannot read it"),
        (("Stop", "--hook", "4"), "--hook 4: Stop has 1 admitted hook(s)"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_two(
    project: Path, args: tuple[str, ...], message: str
) -> None:
    done = dsh("hooks", "test", *args, cwd=project)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_coverage_prints_the_claude_table_and_says_when_a_bridge_has_none(
    tmp_path: Path,
) -> None:
    (tmp_path / "home").mkdir()
    work = tmp_path / "w"
    work.mkdir()
    done = dsh("hooks", "coverage", cwd=work)
    assert done.returncode == 0
    page = (Path(__file__).parents[2] / "docs" / "hooks-claude.md").read_text()
    assert done.stdout == page
    codex_run = dsh("hooks", "coverage", "codex", cwd=work)
    assert codex_run.returncode == 0, codex_run.stderr
    codex_page = (Path(__file__).parents[2] / "docs" / "hooks-codex.md").read_text()
    assert codex_run.stdout == codex_page
