"""Record what the real Codex does with a hook's ``additionalContext`` over its limit (issue 27).

usage: DSH_CODEX=/path/to/codex python benchmarks/record_codex_spill.py OUT.json

Runs ``codex exec`` (0.171: ``make bench-tools``) against the loopback Responses mock
(``_codex_side``: hooks trusted with dsh's recipe) once per case: a shell call, with one hook
on the case's event answering an ``additionalContext`` of numbered 100-byte lines. Keeps the
developer message the model was sent (the context as Codex cut it). Never run by ``make
test``; its output is ``tests/fixtures/codex_hook_spill.json``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _codex_side import ResponsesMock, codex_invocation, codex_path
from _side_cases import Reply, SideCase

# event, lines, a tail after them (the last newline dropped when there is one)
CASES: dict[str, tuple[str, int, str | None]] = {
    "posttool-20k": ("PostToolUse", 200, None),
    "pretool-15k-utf8": ("PreToolUse", 150, "é" * 7),
}


def context(lines: int, tail: str | None) -> str:
    """The ``additionalContext`` of a case: ``lines`` lines of 101 bytes, then ``tail``."""
    text = "".join(f"{i:05d} " + "c" * 94 + "\n" for i in range(lines))
    return text if tail is None else text.rstrip() + tail


def _hook(event: str, lines: int, tail: str | None) -> str:
    made = f"''.join(f'{{i:05d}} ' + 'c' * 94 + chr(10) for i in range({lines}))" + (
        "" if tail is None else f".rstrip() + {tail!r}"
    )
    body = (
        "import json, sys; sys.stdin.read(); print(json.dumps({'hookSpecificOutput': "
        f"{{'hookEventName': '{event}', 'additionalContext': {made}}}}}))"
    )
    return f'python3 -c "{body}"'


def record(event: str, lines: int, tail: str | None) -> dict[str, Any]:
    hooks = {event: _hook(event, lines, tail)}
    replies = (Reply(bash=("echo hi",)), Reply(text="done"))
    case = SideCase(name="spill", prompt="go", replies=replies, hooks=hooks)
    with tempfile.TemporaryDirectory() as tmp, ResponsesMock() as mock:
        root = Path(tmp)
        work, home = root / "w", root / "home" / ".codex"
        work.mkdir()
        mock.load(case)
        argv, env = codex_invocation(case, work, home, mock.url)
        done = subprocess.run(
            argv, env=env, cwd=work, stdin=subprocess.DEVNULL, capture_output=True, timeout=300
        )
        seen = [
            "".join(part.get("text", "") for part in item.get("content") or ())
            for body in mock.requests
            for item in body.get("input") or ()
            if isinstance(item, dict) and item.get("role") == "developer"
        ]
    texts = [t for t in seen if "ccccc" in t]
    return {
        "event": event,
        "lines": lines,
        "tail": tail,
        "exit_code": done.returncode,
        "developer_text": texts[-1] if texts else None,
    }


def main() -> int:
    out = Path(sys.argv[1])
    codex = codex_path()
    if codex is None:
        raise SystemExit("no codex: set DSH_CODEX or run `make bench-tools`")
    version = subprocess.run([codex, "--version"], capture_output=True, text=True).stdout
    version = version.strip()
    recorded: dict[str, Any] = {"cli_version": version}
    for name, (event, lines, tail) in CASES.items():
        print("recording", name, flush=True)
        recorded[name] = record(event, lines, tail)
    out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
