"""PostToolUse (matcher Write|Edit): check the file just written and tell Claude the result.

A tiny linter: counts lines, looks for a missing final newline, trailing
whitespace and TODO markers, and reports as ``additionalContext`` (added next
to the tool result). Standard library only.
"""

import json
import sys
from pathlib import Path


def check(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    problems: list[str] = []
    if text and not text.endswith("\n"):
        problems.append("no final newline")
    trailing = [i for i, line in enumerate(lines, 1) if line != line.rstrip()]
    if trailing:
        problems.append(f"trailing whitespace on line(s) {', '.join(map(str, trailing))}")
    if any("TODO" in line for line in lines):
        problems.append("a TODO marker is left")
    verdict = "; ".join(problems) if problems else "looks clean"
    return f"check_edit.py: {path.name} has {len(lines)} line(s), {verdict}."


def main() -> int:
    payload = json.load(sys.stdin)
    file_path = payload.get("tool_input", {}).get("file_path")
    if not isinstance(file_path, str):
        return 0
    # Relative paths are the session's: resolve them against the payload's cwd.
    path = Path(payload.get("cwd", ".")) / file_path
    if not path.is_file():
        return 0
    answer = {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": check(path)}
    }
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
