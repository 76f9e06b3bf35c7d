"""PreToolUse (matcher Bash): refuse dangerous shell commands before they run.

Exit 2 blocks the call and its stderr becomes the reason Claude reads (Claude
Code's simplest way to deny); exit 0 with no output lets the call proceed.
Standard library only.
"""

import json
import re
import sys

# Pattern -> why it is refused. Searched anywhere in the command.
DANGEROUS = [
    (r"\bgit\s+push\b.*\s(--force|-f)\b", "force-pushing rewrites shared history"),
    (r"\b(curl|wget)\b[^|]*\|\s*(ba|z)?sh\b", "piping a download into a shell runs unseen code"),
    (r"\bsudo\b", "sudo is not available to the agent"),
    (r"\bchmod\s+(-R\s+)?777\b", "world-writable files are a security hole"),
]


def main() -> int:
    payload = json.load(sys.stdin)
    command = str(payload.get("tool_input", {}).get("command", ""))
    for pattern, why in DANGEROUS:
        if re.search(pattern, command):
            print(f"{why}; ask the user to run it", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
