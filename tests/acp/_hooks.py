"""Claude Code hooks for the ``dsh acp`` tests: real scripts, declared in a project's settings."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# One script for every test: it reads the hook's input and answers from a rules file
# (event name -> what to print and how to exit), recording every input it saw.
_HOOK = """\
import json, pathlib, sys
here = pathlib.Path(__file__).parent
data = json.load(sys.stdin)
event = data.get("hook_event_name")
with open(here / "seen.jsonl", "a") as seen:
    seen.write(json.dumps(data) + "\\n")
rule = json.loads((here / "rules.json").read_text()).get(event)
if rule is None:
    sys.exit(0)
if rule.get("stderr"):
    sys.stderr.write(rule["stderr"])
if "stdout" in rule:
    sys.stdout.write(json.dumps(rule["stdout"]))
sys.exit(rule.get("exit", 0))
"""

EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionEnd", "SessionStart")


def install_hooks(
    project: Path, rules: dict[str, Any], *, events: tuple[str, ...] = EVENTS
) -> Path:
    """Declare the test hook for every event in ``project/.claude/settings.json``; ``rules``
    (event -> ``{"stdout": obj, "stderr": str, "exit": int}``) says what it answers."""
    hooks_dir = project / ".claude" / "hooks"
    hooks_dir.mkdir(parents=True, exist_ok=True)
    script = hooks_dir / "hook.py"
    script.write_text(_HOOK)
    (hooks_dir / "rules.json").write_text(json.dumps(rules))
    command = f"{sys.executable} {script}"
    entry = [{"hooks": [{"type": "command", "command": command}]}]
    tool_entry = [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]
    settings = {
        "hooks": {event: tool_entry if event.endswith("ToolUse") else entry for event in events}
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    return hooks_dir


def seen(hooks_dir: Path, event: str) -> list[dict[str, Any]]:
    path = hooks_dir / "seen.jsonl"
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r.get("hook_event_name") == event]


def pre_tool(decision: str, reason: str, **extra: Any) -> dict[str, Any]:
    """A PreToolUse answer: ``permissionDecision`` ``decision`` with ``reason``."""
    out = {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
        **extra,
    }
    return {"stdout": {"hookSpecificOutput": out}}
