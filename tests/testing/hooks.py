"""Hook configurations the dsh.testing tests share: a Claude Code and a Codex guard that deny
any Bash command containing ``rm `` (a real python3 command hook each)."""

from __future__ import annotations

from typing import Any

GUARD = """\
import json, sys

payload = json.load(sys.stdin)
if "rm " in payload["tool_input"].get("command", ""):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no rm here"}}))
"""

EXIT2 = """\
import sys

sys.stderr.write("not on a Friday")
sys.exit(2)
"""

CLAUDE_SETTINGS: dict[str, Any] = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": 'python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/no_rm.py"',
                        "timeout": 30,
                    }
                ],
            }
        ]
    }
}
CLAUDE_FILES = {".claude/hooks/no_rm.py": GUARD}

CODEX_HOOKS: dict[str, Any] = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "python3 .codex/no_rm.py", "timeout": 30}],
            }
        ]
    }
}
CODEX_FILES = {".codex/no_rm.py": GUARD}
