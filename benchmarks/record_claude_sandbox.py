"""Record what the real Claude Code does with its ``sandbox`` settings (issue 33).

usage: python benchmarks/record_claude_sandbox.py CLAUDE OUT.json

Runs ``CLAUDE -p`` (2.1.332) against the loopback Anthropic mock (``_anthropic_mock``),
headless, permissions skipped, with a private ``CLAUDE_CONFIG_DIR`` and ``HOME``, twice: with
no settings and with ``{"sandbox": {"enabled": true}}`` in the project's settings. Kept:
the Bash tool's input schema as the model is offered it, and Claude Code's stdout and
stderr (where it says whether it could sandbox). Never run by ``make test``; its output is
the fixture ``tests/fixtures/claude_sandbox.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _anthropic_mock import AnthropicMock
from _side_cases import Reply, SideCase

CASES: dict[str, dict[str, Any]] = {
    "no-sandbox": {},
    "sandbox-enabled": {"sandbox": {"enabled": True}},
}


def record(claude: str, settings: dict[str, Any]) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="rec-sandbox-"))
    project, config = root / "project", root / "config"
    (project / ".claude").mkdir(parents=True)
    config.mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    case = SideCase("sandbox", "go", (Reply(bash=("true",)), Reply(text="done")), {})
    with AnthropicMock() as mock:
        mock.load(case)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        env |= {
            "ANTHROPIC_BASE_URL": mock.url,
            "ANTHROPIC_API_KEY": "sk-record-loopback",
            "CLAUDE_CONFIG_DIR": str(config),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "HOME": str(root),
        }
        if os.geteuid() == 0:
            env["IS_SANDBOX"] = "1"
        argv = [claude, "-p", "go", "--dangerously-skip-permissions"]
        done = subprocess.run(
            argv, cwd=project, env=env, capture_output=True, text=True, timeout=180
        )
        bodies = [json.loads(b) if isinstance(b, (bytes, str)) else b for b in mock.bodies]
    tools = {tool["name"]: tool for tool in bodies[0]["tools"]}
    return {
        "settings": settings,
        "exit_code": done.returncode,
        "stdout": done.stdout,
        "stderr": done.stderr.replace(str(root), "${ROOT}"),
        "bash_input_schema": tools["Bash"]["input_schema"],
    }


def main() -> None:
    claude, out = sys.argv[1], Path(sys.argv[2])
    recorded = {name: record(claude, settings) for name, settings in CASES.items()}
    out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
