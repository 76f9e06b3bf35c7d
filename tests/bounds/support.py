"""The CLI runs of the bounds tests: a temporary project, data dir, and a scripted model."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.cli.support import run_dsh


def environment(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir(exist_ok=True)
    return {
        "HOME": str(tmp_path / "home"),
        "DSH_DATA_DIR": str(tmp_path / "sessions"),
        "DSH_CONFIG_DIR": str(tmp_path / "config"),
    }


def script(tmp_path: Path, *replies: list[dict[str, Any]]) -> str:
    """``--model`` for a scripted model giving ``replies`` in turn (Anthropic blocks)."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"anthropic": {"rules": [{"responses": list(replies)}]}}))
    return f"scripted:{path}"


def tool_use(name: str, ident: str, **arguments: Any) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "id": ident, "name": name, "input": arguments}]


def text(reply: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": reply}]


def run(
    tmp_path: Path, project: Path, model: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = environment(tmp_path) | (env or {})
    return run_dsh("run", "go", "--model", model, *args, cwd=project, env=environ)


def events(tmp_path: Path) -> list[dict[str, Any]]:
    """The one session log's events."""
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def of_type(tmp_path: Path, kind: str) -> list[dict[str, Any]]:
    return [e for e in events(tmp_path) if e.get("type") == kind]
