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
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _anthropic_mock import AnthropicMock
from _claude_recording import Place, claude_env, run_claude
from _side_cases import Reply, SideCase

CASES: dict[str, dict[str, Any]] = {
    "no-sandbox": {},
    "sandbox-enabled": {"sandbox": {"enabled": True}},
}


def record(claude: str, settings: dict[str, Any]) -> dict[str, Any]:
    place = Place.make("sandbox", files={".claude/settings.json": json.dumps(settings)})
    case = SideCase("sandbox", "go", (Reply(bash=("true",)), Reply(text="done")), {})
    with AnthropicMock() as mock:
        mock.load(case)
        env = claude_env(mock.url, place)
        if os.geteuid() != 0:
            del env["IS_SANDBOX"]
        done = run_claude(claude, ["-p", "go", "--dangerously-skip-permissions"], place, env)
        bodies = [json.loads(b) for b in mock.bodies]
    tools = {tool["name"]: tool for tool in bodies[0]["tools"]}
    return {
        "settings": settings,
        "exit_code": done.returncode,
        "stdout": done.stdout,
        "stderr": done.stderr.replace(str(place.root), "${ROOT}"),
        "bash_input_schema": tools["Bash"]["input_schema"],
    }


def main() -> None:
    claude, out = sys.argv[1], Path(sys.argv[2])
    recorded = {name: record(claude, settings) for name, settings in CASES.items()}
    out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
