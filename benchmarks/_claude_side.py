"""The real Claude Code in the side-by-side benchmark: where it is, and how one run is started.

``claude_path()`` finds the CLI (``$DSH_CLAUDE``, ``PATH``, then the
``.bench-tools/`` that ``make bench-tools`` fills). ``claude_invocation`` writes
the case's hooks as the project's ``.claude/settings.json`` (the very file dsh
reads for the same case) and returns the argv and environment of one headless
run against the loopback Anthropic mock: ``-p``, permissions skipped (as root
Claude Code refuses that unless ``IS_SANDBOX=1``, which is what the conformance
recordings set), a private ``CLAUDE_CONFIG_DIR`` (so no login, onboarding or
trust prompt, and nothing of the user's own configuration), and no
non-essential traffic (the machine may have no network at all).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from _side_cases import SideCase

__all__ = [
    "CLAUDE_INSTALL",
    "claude_invocation",
    "claude_path",
    "find_tool",
    "write_project_settings",
]

REPO = Path(__file__).resolve().parent.parent
CLAUDE_INSTALL = (
    "make bench-tools (npm install of @anthropic-ai/claude-code@2.1.332 into .bench-tools/)"
)


def find_tool(program: str, variable: str) -> str | None:
    """``$variable`` if it names an executable, else ``program`` on PATH, else ``.bench-tools/``."""
    if chosen := os.environ.get(variable):
        return chosen if os.access(chosen, os.X_OK) else None
    if found := shutil.which(program):
        return found
    local = REPO / ".bench-tools" / "node_modules" / ".bin" / program
    return str(local) if os.access(local, os.X_OK) else None


def claude_path() -> str | None:
    return find_tool("claude", "DSH_CLAUDE")


def project_settings(case: SideCase) -> dict[str, Any]:
    hooks = {
        event: [{"matcher": "", "hooks": [{"type": "command", "command": command}]}]
        for event, command in case.hooks.items()
        if command
    }
    return {"hooks": hooks}


def write_project_settings(case: SideCase, workdir: Path) -> None:
    """The case's hooks where both dsh and Claude Code read a project's hooks."""
    (workdir / ".claude").mkdir(parents=True, exist_ok=True)
    (workdir / ".claude" / "settings.json").write_text(json.dumps(project_settings(case)))


def claude_invocation(
    case: SideCase, workdir: Path, config: Path, url: str, program: str
) -> tuple[list[str], dict[str, str]]:
    write_project_settings(case, workdir)
    config.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    env |= {
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-bench-loopback",
        "CLAUDE_CONFIG_DIR": str(config),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"
    return [program, "-p", case.prompt, "--dangerously-skip-permissions"], env
