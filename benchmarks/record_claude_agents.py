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
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _anthropic_mock import AnthropicMock
from _claude_recording import Place, claude_env, run_claude
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
    place = Place.make("agents", git=True)
    for name, text in AGENTS.items():
        (place.root / name).parent.mkdir(parents=True, exist_ok=True)
        (place.root / name).write_text(text)
    with AnthropicMock() as mock:
        mock.load(SideCase(name="agents", prompt="hello", replies=(Reply(text="done"),), hooks={}))
        args = ["-p", "hello", "--dangerously-skip-permissions"]
        run_claude(claude, args, place, claude_env(mock.url, place), timeout=120).check_returncode()
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
