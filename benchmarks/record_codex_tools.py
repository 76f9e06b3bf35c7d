"""Record the tools Codex 0.171 offers the model (issue 28: is SendMessage among them?).

usage: DSH_CODEX=/path/to/codex python benchmarks/record_codex_tools.py OUT.json

Runs ``codex exec`` (0.171: ``make bench-tools``) once against the loopback Responses mock
(``_codex_side``), the model answering with text, and keeps the name (and type) of every
tool of the first request's body. Never run by ``make test``; its output is
``tests/fixtures/codex_tools.json``.
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


def _name(tool: dict[str, Any]) -> str:
    return str(tool.get("name") or tool.get("type"))


def _entry(tool: dict[str, Any]) -> dict[str, Any]:
    """A tool's name and type; a namespace's members' names too."""
    entry: dict[str, Any] = {"name": _name(tool), "type": tool.get("type")}
    members = [m for m in tool.get("tools") or () if isinstance(m, dict)]
    if members:
        entry["tools"] = [_name(m) for m in members]
    return entry


def record() -> dict[str, Any]:
    case = SideCase(name="tools", prompt="go", replies=(Reply(text="done"),), hooks={})
    with tempfile.TemporaryDirectory() as tmp, ResponsesMock() as mock:
        root = Path(tmp)
        work, home = root / "w", root / "home" / ".codex"
        work.mkdir()
        mock.load(case)
        argv, env = codex_invocation(case, work, home, mock.url)
        done = subprocess.run(
            argv, env=env, cwd=work, stdin=subprocess.DEVNULL, capture_output=True, timeout=300
        )
        first = mock.requests[0] if mock.requests else {}
    tools = [t for t in first.get("tools") or () if isinstance(t, dict)]
    return {
        "exit_code": done.returncode,
        "tools": [_entry(t) for t in tools],
    }


def main() -> int:
    out = Path(sys.argv[1])
    codex = codex_path()
    if codex is None:
        raise SystemExit("no codex: set DSH_CODEX or run `make bench-tools`")
    version = subprocess.run([codex, "--version"], capture_output=True, text=True).stdout
    recorded = {"cli_version": version.strip(), "how": "codex exec go, text reply", **record()}
    out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
