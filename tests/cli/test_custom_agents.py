"""``dsh run`` with a project's custom agent (``.claude/agents/helper.md``): the ``Agent`` tool
starts it with its tools only, and its frontmatter hooks follow the project's trust (a headless
run refuses to start with them untrusted; ``--skip-untrusted-hooks`` leaves them out, saying
so; ``--trust-project`` runs them, for that agent's own calls only)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.support import run_dsh
from tests.cli.test_interactive import Session, start

AGENT = """---
name: helper
description: Reads files for the parent
tools: Read
hooks:
  PreToolUse:
    - matcher: Read
      hooks:
        - type: command
          command: echo "$CLAUDE_PROJECT_DIR" >> "{marker}"
  Stop:
    - hooks:
        - type: command
          command: echo stop >> "{marker}"
---
You read files.
"""


def _script(path: Path, note: Path) -> Path:
    child = [
        [{"type": "tool_use", "name": "Read", "input": {"file_path": str(note)}}],
        [{"type": "tool_use", "name": "Bash", "input": {"command": "echo no"}}],
        [{"type": "text", "text": "child done"}],
    ]
    parent = [
        [
            {
                "type": "tool_use",
                "name": "Agent",
                "input": {
                    "description": "read",
                    "prompt": "SUBTASK: read the note",
                    "subagent_type": "helper",
                    "run_in_background": False,
                },
            }
        ],
        [{"type": "tool_use", "name": "Read", "input": {"file_path": str(note)}}],
        [{"type": "text", "text": "parent done"}],
    ]
    rules = [{"first_user_contains": "SUBTASK", "responses": child}, {"responses": parent}]
    path.write_text(json.dumps({"anthropic": {"rules": rules}}))
    return path


def _run(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    project = tmp_path / "project"
    (project / ".claude" / "agents").mkdir(parents=True, exist_ok=True)
    marker = tmp_path / "marker.txt"
    (project / ".claude" / "agents" / "helper.md").write_text(AGENT.format(marker=marker))
    note = project / "note.txt"
    note.write_text("hello\n")
    script = _script(tmp_path / "script.json", note)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    env.update({"NO_COLOR": "1", "COLUMNS": "200", "HOME": str(tmp_path / "home")})
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "cfg")
    argv = [sys.executable, "-m", "dsh", "run", "delegate", "--model", f"scripted:{script}"]
    argv += ["--project", str(project), "--session-dir", str(tmp_path / "sessions"), *extra]
    done = subprocess.run(
        argv, cwd=project, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    return done, marker


def _child_results(tmp_path: Path) -> list[dict[str, object]]:
    results = []
    for log in (tmp_path / "sessions").glob("*.jsonl"):
        events = [json.loads(line) for line in log.read_text().splitlines()]
        if any(e["type"] == "user/message" and "SUBTASK" in json.dumps(e) for e in events):
            results += [e for e in events if e["type"] == "tool/result"]
    return results


def test_an_untrusted_agents_hooks_stop_a_headless_run(tmp_path: Path) -> None:
    done, marker = _run(tmp_path)
    assert done.returncode != 0
    assert ".claude/agents/helper.md left out: the project is not trusted" in done.stderr
    assert "--trust-project" in done.stderr
    assert not marker.exists()


def test_skipped_untrusted_agent_hooks_are_named_and_the_agent_runs_with_its_tools(
    tmp_path: Path,
) -> None:
    done, marker = _run(tmp_path, "--skip-untrusted-hooks")
    assert done.returncode == 0, done.stderr
    assert "frontmatter hooks of .claude/agents/helper.md left out" in done.stdout
    assert not marker.exists()
    results = _child_results(tmp_path)
    # Read ran; Bash is not among the agent's tools, so its call is refused as unknown.
    assert [r["is_error"] for r in results] == [False, True]
    assert "Bash" in json.dumps(results[1])


def test_a_trusted_agents_hooks_run_for_its_own_calls(tmp_path: Path) -> None:
    done, marker = _run(tmp_path, "--trust-project")
    assert done.returncode == 0, done.stderr
    project = tmp_path / "project"
    # Its PreToolUse for its own Read (not the parent's), its Stop as SubagentStop, once.
    assert marker.read_text().splitlines() == [str(project), "stop"]


def test_the_agents_command_lists_the_agent_types(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    marker = tmp_path / "marker.txt"
    (project / ".claude" / "agents" / "helper.md").write_text(AGENT.format(marker=marker))
    spawned: list[Session] = []
    try:
        s = start(spawned, tmp_path, project, [[{"type": "text", "text": "hi"}]])
        s.say("/agents")
        s.expect("general-purpose (built-in)")
        path = project / ".claude" / "agents" / "helper.md"
        s.expect(f"helper (project: {path}) · tools: Read · model: inherit")
        s.expect("Reads files for the parent")
        s.say("/exit")
        assert s.leave() == 0
    finally:
        for session in spawned:
            if session.child.isalive():
                session.child.terminate(force=True)


def test_hooks_check_names_the_file_and_line_of_a_bad_agent(tmp_path: Path) -> None:
    agents = tmp_path / "project" / ".claude" / "agents"
    agents.mkdir(parents=True)
    bad = agents / "bad.md"
    bad.write_text(
        "---\nname: bad\ndescription: A bad one\ntools: Read\nhooks:\n  PreToolUse:\n"
        "    - matcher: Read\n      hooks:\n        - type: comand\n          command: 'true'\n"
        "---\nbody\n"
    )
    broken = agents / "broken.md"
    broken.write_text("---\nname: broken\ndescription: [unclosed\n---\nx\n")
    (agents / "good.md").write_text("---\nname: good\ndescription: Fine\nmodel: haiku\n---\n")
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    done = run_dsh("hooks", "check", "--project", str(tmp_path / "project"), cwd=tmp_path, env=env)
    assert done.returncode == 1
    assert "Agents and skills (frontmatter):" in done.stdout
    assert "agent good (project)" in done.stdout
    assert "tools: All tools · model: haiku" in done.stdout
    assert f"error: {bad}: line 5, column 1: PreToolUse[0][0]: unknown hook type 'comand'" in (
        done.stdout
    )
    assert f"error: {broken}: line 4, column 1: agent file skipped: frontmatter not YAML" in (
        done.stdout
    )


def test_hooks_check_of_a_project_without_agents_says_nothing_of_them(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    done = run_dsh("hooks", "check", "--project", str(tmp_path / "project"), cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout
    assert "frontmatter" not in done.stdout
