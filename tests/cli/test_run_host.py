"""``dsh run`` as the host assembles it: the Claude Code profile's diagnostics reach the
user, and a run without hooks still loads CLAUDE.md without importing the bridge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli import write_script


def run(project: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "ok"}]])
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "HOME": str(tmp_path / "home")}
    env.pop("DSH_MODEL", None)
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "cfg")
    argv = [sys.executable, "-X", "importtime", "-m", "dsh", "run", "say hello"]
    argv += ["--model", f"scripted:{script}", "--project", str(project)]
    argv += ["--session-dir", str(tmp_path / "sessions"), "--trust-project", *extra]
    return subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def imported(done: subprocess.CompletedProcess[str]) -> set[str]:
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines}


def contexts(tmp_path: Path) -> list[str]:
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return [e["source"] for e in events if e["type"] == "context/message"]


def test_the_profiles_diagnostics_are_printed_and_the_rest_runs(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    record = tmp_path / "fired.txt"
    hook = f"{sys.executable} -c \"open('{record}', 'a').write('ran\\n')\""
    good = {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": good}))
    bad = {"NoSuchEvent": [{"hooks": [{"type": "command", "command": "true"}]}]}
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"hooks": bad}))
    done = run(project, tmp_path)
    assert done.returncode == 0, done.stderr
    local = project / ".claude" / "settings.local.json"
    assert f"claude hooks: error: {local}: NoSuchEvent" in done.stdout
    assert done.stdout.index("claude hooks:") < done.stdout.index("> say hello")
    assert record.read_text() == "ran\n"


def test_a_run_without_hooks_loads_claude_md_and_never_imports_the_bridge(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "CLAUDE.md").write_text("Always answer in haiku.\n")
    done = run(project, tmp_path, "--no-claude-hooks")
    assert done.returncode == 0, done.stderr
    assert contexts(tmp_path) == ["claude-instructions"]
    modules = imported(done)
    assert {"dsh.host", "dsh.instructions"} <= modules
    # dsh.hooks itself (the choice of bridges) is a few lines; no bridge is imported.
    assert not {m for m in modules if m.startswith(("dsh.hooks.claude", "dsh.hooks.codex"))}


def test_a_run_with_hooks_mounts_the_claude_code_profile(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "CLAUDE.md").write_text("Always answer in haiku.\n")
    done = run(project, tmp_path)
    assert done.returncode == 0, done.stderr
    assert contexts(tmp_path) == ["claude-instructions"]
    assert "dsh.hooks.claude._profile" in imported(done)


def test_a_piped_run_imports_neither_the_live_view_nor_prompt_toolkit(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    done = run(project, tmp_path, "--no-claude-hooks")
    assert done.returncode == 0, done.stderr
    modules = imported(done)
    assert "dsh.cli._terminal" in modules  # the check that chose the plain path
    assert not {"dsh.cli._live", "dsh.cli._approval_prompt", "prompt_toolkit"} & modules
