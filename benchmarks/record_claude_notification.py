"""Record which Notification hooks Claude Code 2.1.332 runs around an MCP elicitation in ``-p``
(issue 31): a server's ``elicitation/create`` that nobody answers (no Elicitation hook), one an
Elicitation hook answers, and one an ElicitationResult hook blocks.

usage: DSH_CLAUDE=... python benchmarks/record_claude_notification.py OUT.json

``claude -p`` against the loopback Anthropic mock (``bench_mcp.McpCallScript``) calling
``mcp__everything__trigger-elicitation-request`` of the reference server (``make test``
installs it under ``tests/mcp/node``; ``DSH_MCP_EVERYTHING`` names another), a form
elicitation, with a logging hook (``record_claude_defer.HOOK``) on Notification,
Elicitation, ElicitationResult and PostToolUse, a private ``HOME``. Kept per case: the
hooks in order with their payloads (ids scrubbed) and what the model was sent back. Never
run by ``make test``; its output is ``tests/fixtures/claude_notification.json``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _claude_side import claude_path
from record_claude_defer import HOOK, _scrub
from record_mcp_hooks import run_elicitation

ROOT = Path(__file__).resolve().parent.parent
EVERYTHING = os.environ.get("DSH_MCP_EVERYTHING") or str(
    ROOT / "tests" / "mcp" / "node" / "node_modules" / ".bin" / "mcp-server-everything"
)
EVENTS = ("Notification", "Elicitation", "ElicitationResult", "PostToolUse")
ACCEPT = {
    "hookSpecificOutput": {
        "hookEventName": "Elicitation",
        "action": "accept",
        "content": {"name": "Ada", "check": True},
    }
}
CASES: dict[str, dict[str, Any]] = {
    "elicitation-unanswered": {},
    "elicitation-hook-accepts": {"Elicitation": ACCEPT},
    "elicitation-result-blocks": {"ElicitationResult": {"exit": 2, "stderr": "CASE-BLOCKED"}},
}


def record(claude: str, answers: dict[str, Any]) -> dict[str, Any]:
    run = Path(tempfile.mkdtemp(prefix="dsh-rec-notify-"))
    project, home = run / "project", run / "home"
    project.mkdir()
    (home / ".claude").mkdir(parents=True)
    (run / "hook.py").write_text(HOOK)
    hooks: dict[str, Any] = {}
    for event in EVENTS:
        command = f"python3 {run}/hook.py {event}"
        answer = answers.get(event)
        if answer is not None and "exit" in answer:
            command = (
                f"python3 {run}/hook.py {event} >/dev/null; echo {answer['stderr']} >&2; exit 2"
            )
        elif answer is not None:
            command = f"python3 {run}/hook.py {event} >/dev/null; echo '{json.dumps(answer)}'"
        hooks[event] = [{"hooks": [{"type": "command", "command": command}]}]
    (run / "settings.json").write_text(json.dumps({"hooks": hooks}))
    done, view = run_elicitation(claude, run, home, project, EVERYTHING)
    log = run / "hooks.jsonl"
    seen = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    shown = json.dumps({"hooks": _scrub(seen), "model_view": view}).replace(str(run), "${RUN_DIR}")
    return {"exit_code": done.returncode, "stderr": done.stderr[-2000:], **json.loads(shown)}


def main() -> None:
    out, claude = Path(sys.argv[1]), claude_path()
    if claude is None:
        raise SystemExit("no Claude Code: set DSH_CLAUDE")
    cases = {name: record(claude, answers) for name, answers in CASES.items()}
    out.write_text(json.dumps({"claude": "2.1.332", "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
