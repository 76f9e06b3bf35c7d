"""Codex's hooks keep the ``OTEL_*`` variables, as the real Codex 0.171 passes them.

``tests/fixtures/hook_otel_env_codex.json`` (``benchmarks/record_codex_hook_otel_env.py``):
the real Codex, with ``OTEL_*``, ``ANT_OTEL_*``, ``CLAUDE_CODE_OTEL_DIAG_STDERR`` and
``TRACEPARENT`` set, export off and on, handed its UserPromptSubmit hook every one of them
(where Claude Code 2.1.332 leaves the ``OTEL_*`` ones and the diagnostics switch out). The
same variables set here: a real hook process under each bridge sees what its own CLI's did.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from dsh.testing import run_session, say

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CODEX = json.loads((FIXTURES / "hook_otel_env_codex.json").read_text())
CLAUDE = json.loads((FIXTURES / "hook_otel_env_claude.json").read_text())
DUMP = """
import json, os, sys
sys.stdin.read()
names = [k for k in os.environ if "OTEL" in k or k.startswith(("TRACE", "REC_"))]
open("seen.json", "w").write(json.dumps(sorted(names)))
print(json.dumps(sorted(k for k in os.environ if k.endswith("_API_KEY"))), file=open("keys", "w"))
"""


def seen(tmp_path: Path, bridge: str) -> tuple[list[str], list[str]]:
    hooks: dict[str, Any] = {
        "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "python3 d.py"}]}]}
    }
    project = tmp_path / bridge
    project.mkdir()
    asyncio.run(
        run_session(
            "go",
            say("done"),
            files={"d.py": DUMP},
            project=project,
            codex_hooks=hooks if bridge == "codex" else None,
            claude_settings=hooks if bridge == "claude" else None,
        )
    )
    names = json.loads((project / "seen.json").read_text())
    return names, json.loads((project / "keys").read_text())


def test_codex_hooks_keep_the_otel_variables_and_claude_hooks_do_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert CODEX["cli_version"] == "codex-cli 0.171.0"
    recorded = CODEX["export-off"]
    assert CODEX["export-on"]["hook_saw"] == recorded["hook_saw"] == recorded["set"]
    assert CLAUDE["export-off"]["set"] == recorded["set"]
    for name in recorded["set"]:
        monkeypatch.setenv(name, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
    monkeypatch.setenv("DSH_API_KEY", "sk-dsh-secret")
    codex, codex_keys = seen(tmp_path, "codex")
    assert [n for n in codex if n in recorded["set"]] == recorded["hook_saw"]
    claude, _ = seen(tmp_path, "claude")
    assert [n for n in claude if n in recorded["set"]] == CLAUDE["export-off"]["hook_saw"]
    assert "DSH_API_KEY" not in codex_keys  # the model keys stay withheld under both
