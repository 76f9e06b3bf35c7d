#!/usr/bin/env python3
"""A test hook that answers with far more output than Claude Code lets through.

usage: python3 big_hook.py <Event>. SessionStart: 50,000 characters of plain stdout;
UserPromptSubmit: a 50,000-character additionalContext and systemMessage; PreToolUse:
exit 2 with 32 MiB of stderr; Stop: the first time, exit 2 with 32 MiB of stderr.
"""

import json
import sys

payload = json.load(sys.stdin)
event = sys.argv[1]
if event == "SessionStart":
    sys.stdout.write("S" * 50_000)
elif event == "UserPromptSubmit":
    specific = {"hookEventName": event, "additionalContext": "U" * 50_000}
    print(json.dumps({"systemMessage": "M" * 50_000, "hookSpecificOutput": specific}))
elif event == "PreToolUse" or (event == "Stop" and not payload.get("stop_hook_active")):
    chunk = ("P" if event == "PreToolUse" else "T") * (1 << 20)
    for _ in range(32):
        sys.stderr.write(chunk)
    sys.exit(2)
