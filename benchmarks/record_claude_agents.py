"""Record how the real Claude Code lists custom agents to the model (issue 31).

usage: python benchmarks/record_claude_agents.py CLAUDE OUT.json

Runs ``CLAUDE -p hello`` (2.1.332) once against the loopback Anthropic mock
(``_anthropic_mock``), headless, permissions skipped, a private ``CLAUDE_CONFIG_DIR``, in a
project with four agent files (two project agents with ``tools``/``disallowedTools``, one
with ``disallowedTools`` only, one user agent with neither). Keeps the first request's
"Available agent types for the Agent tool:" block (a system message) and the ``Agent``
tool's input schema. Never run by ``make test``; its output is the fixture
``tests/fixtures/claude_agent_listing.json``.
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

AGENTS = {
    "project/.claude/agents/sample-helper.md": (
        "---\nname: sample-helper\ndescription: Sample helper agent used by hook tests\n"
        "tools: Bash\nmodel: haiku\n---\nYou are a helper.\n"
    ),
    "project/.claude/agents/two.md": (
        "---\nname: two-tools\ndescription: Reads and greps\ntools: Read, Grep\n"
        "disallowedTools: Grep\n---\nbody\n"
    ),
    "project/.claude/agents/deny.md": (
        "---\nname: no-bash\ndescription: Anything but bash\ndisallowedTools: Bash, Write\n"
        "---\nbody\n"
    ),
    "home/.claude/agents/user-one.md": (
        "---\nname: user-one\ndescription: A user agent\n---\nbody\n"
    ),
}
HEAD = "Available agent types for the Agent tool:"
TAIL = "concurrently."


def _texts(body: dict[str, Any]) -> list[str]:
    out = []
    for message in body.get("messages", []):
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        out += [b.get("text", "") for b in blocks if isinstance(b, dict)]
    return out


def record(claude: str) -> dict[str, Any]:
    run = Path(tempfile.mkdtemp(prefix="dsh-agents-"))
    for name, text in AGENTS.items():
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_text(text)
    project, home = run / "project", run / "home"
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    with AnthropicMock() as mock:
        mock.load(SideCase(name="agents", prompt="hello", replies=(Reply(text="done"),), hooks={}))
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "ANTHROPIC_BASE_URL": mock.url,
            "ANTHROPIC_API_KEY": "dummy",
            "IS_SANDBOX": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        argv = [claude, "-p", "hello", "--dangerously-skip-permissions"]
        subprocess.run(
            argv,
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
            check=True,
        )
        body = json.loads(mock.bodies[0])
    text = next(t for t in _texts(body) if HEAD in t)
    start = text.index(HEAD)
    listing = text[start : text.index(TAIL, start) + len(TAIL)]
    agent = next(t for t in body["tools"] if t["name"] == "Agent")
    return {
        "claude_version": "2.1.332",
        "files": AGENTS,
        "listing": listing,
        "agent_input_schema": agent["input_schema"],
    }


def main() -> None:
    claude, out = sys.argv[1], Path(sys.argv[2])
    out.write_text(json.dumps(record(claude), indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
