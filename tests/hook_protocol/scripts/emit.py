"""emit.py MODE: write a fixed, possibly broken, answer to stdout."""

import sys

MODE = sys.argv[1]
out = sys.stdout.buffer
if MODE == "bad-utf8":
    out.write(b"ok \xff\xfe then \xc3(")
elif MODE == "bad-json":
    out.write(b'{"decision": "block", ')
elif MODE == "other-event":
    out.write(b'{"hookSpecificOutput": {"hookEventName": "PostToolUse"}}')
elif MODE == "block":
    out.write(b'{"decision": "block", "reason": "no"}')
elif MODE == "empty":
    pass
else:
    sys.exit(f"emit.py: unknown mode {MODE!r}")
