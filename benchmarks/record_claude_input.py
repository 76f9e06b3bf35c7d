"""Record what the real Claude Code sends for ``@file`` mentions and ``!command`` (issue 32).

usage: python benchmarks/record_claude_input.py CLAUDE OUT.json

Runs the interactive ``CLAUDE`` (2.1.332) in a pseudo-terminal against a loopback Anthropic
mock (``_anthropic_mock``), with a private ``HOME`` and ``CLAUDE_CONFIG_DIR`` whose
``.claude.json`` has onboarding done, the key approved and the project trusted. Each case
types its lines (a ``!command``, a prompt with ``@note.txt``), then leaves with Ctrl-C
twice; kept are the user messages of the last main-loop request (the project's path
written ``$PROJECT``; Claude Code's attribution reminder left out). ``-p`` gives the same
``@file`` shape. Needs pexpect (dsh's dev
extras). Never run by ``make test``; its output is ``tests/fixtures/claude_input.json``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pexpect
from _anthropic_mock import AnthropicMock
from _claude_recording import Place, claude_env, claude_version
from _side_cases import Reply, SideCase

CASES: dict[str, list[str]] = {
    "at-file": ["@note.txt what is in it"],
    "bang-ok": ["!echo hello-bang"],
    "bang-fail": ["!echo out; echo err >&2; exit 3"],
}
NOTE = "line one\nline two\n"
KEY = "sk-rec-loopback-0123456789abcdef"


def _pump(child: Any, seconds: float) -> None:
    """Read the terminal for ``seconds`` (Claude Code's screen must be drained to go on)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            child.expect(pexpect.EOF, timeout=0.2)
            return
        except pexpect.TIMEOUT:
            pass


def _user_messages(body: dict[str, Any], project: Path) -> list[Any]:
    kept: list[Any] = []
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, list):
            content = [b for b in content if "Attribution for git" not in b.get("text", "")]
        kept.append(json.loads(json.dumps(content).replace(str(project), "$PROJECT")))
    return kept


def record(claude: str, lines: list[str], mock: AnthropicMock) -> list[Any]:
    place = Place.make("input", files={"note.txt": NOTE})
    project = place.project
    trusted = {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
    (place.config / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "theme": "dark",
                "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
                "projects": {str(project): trusted},
            }
        )
    )
    mock.load(SideCase(name="input", prompt="", replies=(Reply(text="done"),), hooks={}))
    env = claude_env(mock.url, place, ANTHROPIC_API_KEY=KEY, TERM="xterm-256color")
    child = pexpect.spawn(
        claude,
        ["--model", "claude-rec"],
        cwd=str(project),
        env=env,
        dimensions=(40, 120),
        encoding="utf-8",
        timeout=30,
    )
    _pump(child, 8)
    for line in lines:
        for ch in line:
            child.send(ch)
            _pump(child, 0.03)
        _pump(child, 0.5)
        child.send("\r")
        _pump(child, 6)
    child.sendcontrol("c")
    _pump(child, 0.5)
    child.sendcontrol("c")
    _pump(child, 1)
    child.close(force=True)
    return _user_messages(json.loads(mock.bodies[-1]), project)


def main() -> int:
    claude, out = sys.argv[1], Path(sys.argv[2])
    recorded: dict[str, Any] = {"cli_version": claude_version(claude), "note_txt": NOTE}
    with AnthropicMock() as mock:
        for name, lines in CASES.items():
            print("recording", name, flush=True)
            recorded[name] = {"typed": lines, "user_messages": record(claude, lines, mock)}
    out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
