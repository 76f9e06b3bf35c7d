"""Record what the real Codex sends to have a conversation summarised (issue 28).

usage: DSH_CODEX=/path/to/codex python benchmarks/record_codex_compaction.py OUT.json

Runs ``codex exec "Please run echo hi"`` (0.171) against the loopback Responses mock
(``_codex_side``) with ``model_auto_compact_token_limit = 1000`` and every response reporting
10,000 input tokens, answering as the corpus case ``auto-compact`` does (a shell call, then
text; a request offering no tools gets ``CASE-SUMMARY: ran echo hi.``). Keeps every request's
``instructions`` length, tool count and ``input`` (its items' types and roles, and their text,
one over 1,000 characters as its length and head), so the compaction request (the one offering
no tools) shows the prompt Codex sends to summarise. Never run by ``make test``; its output is
``tests/fixtures/codex_compaction.json``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _codex_side import ResponsesMock, codex_invocation, codex_path
from _side_cases import SideCase

PROMPT = "Please run echo hi"
SUMMARY = "CASE-SUMMARY: ran echo hi."
SCRIPT: dict[str, Any] = {
    "rules": [
        {"no_tools": True, "responses": [[{"type": "text", "text": SUMMARY}]]},
        {
            "contains": "Another language model started",
            "responses": [[{"type": "text", "text": "Continuing after compaction: done."}]],
        },
        {
            "responses": [
                [{"type": "auto_shell", "command": "echo hi"}],
                [{"type": "text", "text": "Done: printed hi."}],
            ]
        },
    ]
}


def _short(text: Any) -> Any:
    """A text over 1,000 characters as its length and head (the vendor's instructions)."""
    if isinstance(text, str) and len(text) > 1_000:
        return {"length": len(text), "head": text[:200]}
    return text


def _item(item: dict[str, Any]) -> dict[str, Any]:
    content = item.get("content")
    parts = content if isinstance(content, list) else []
    texts = [_short(p.get("text")) for p in parts if isinstance(p, dict)]
    kept: dict[str, Any] = {k: item[k] for k in ("type", "role", "name") if k in item}
    return {**kept, "texts": texts} if texts else kept


def record() -> dict[str, Any]:
    case = SideCase(name="compaction", prompt=PROMPT, replies=(), hooks={})
    with tempfile.TemporaryDirectory() as tmp, ResponsesMock() as mock:
        root = Path(tmp)
        work, home = root / "w", root / "home" / ".codex"
        work.mkdir()
        mock.load_script(SCRIPT)
        mock.input_tokens = lambda body: 10_000
        argv, env = codex_invocation(case, work, home, mock.url)
        config = home / "config.toml"
        config.write_text("model_auto_compact_token_limit = 1000\n" + config.read_text())
        done = subprocess.run(
            argv, env=env, cwd=work, stdin=subprocess.DEVNULL, capture_output=True, timeout=300
        )
        requests = [
            {
                "instructions_chars": len(body.get("instructions") or ""),
                "tools": len(body.get("tools") or []),
                "input": [_item(i) for i in body.get("input") or () if isinstance(i, dict)],
            }
            for body in mock.requests
        ]
        text = json.dumps(requests).replace(str(work), "${PROJECT_DIR}").replace(tmp, "${RUN_DIR}")
    return {"exit_code": done.returncode, "requests": json.loads(text)}


def main() -> int:
    out = Path(sys.argv[1])
    codex = codex_path()
    if codex is None:
        raise SystemExit("no codex: set DSH_CODEX or run `make bench-tools`")
    version = subprocess.run([codex, "--version"], capture_output=True, text=True).stdout
    recorded = {"cli_version": version.strip(), "auto-compact": record()}
    out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
