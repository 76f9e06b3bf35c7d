"""The real Codex 0.171's model-request hooks beside dsh's (opt-in: ``DSH_REAL_CODEX=1``).

``hooks/list`` on the fixture home (``fixtures/codex-model-request``) still gives its
keys, hashes and order; and ``codex exec`` against the loopback Responses API, with the
pair trusted by dsh's ``trust`` code (not bypassed), runs both around each request with
the payload keys dsh sends, and a blocking answer changes nothing.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hooks_codex.codex_trust_fixture import BENCHMARKS, with_placeholders
from tests.hooks_codex.test_model_requests import FIXTURE, POST_KEYS, PRE_KEYS

pytestmark = pytest.mark.skipif(
    os.environ.get("DSH_REAL_CODEX") != "1",
    reason="the real Codex is opt-in: DSH_REAL_CODEX=1 (and DSH_CODEX=path, or make bench-tools)",
)


@pytest.fixture
def codex() -> str:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    from _codex_side import codex_path

    found = codex_path()
    assert found is not None, "DSH_REAL_CODEX=1 but no codex: set DSH_CODEX or make bench-tools"
    return found


def test_hooks_list_still_gives_the_fixture(codex: str, tmp_path: Path) -> None:
    from _codex_side import hooks_list

    home, project = tmp_path / "home" / ".codex", tmp_path / "proj"
    home.mkdir(parents=True)
    project.mkdir()
    (home / "hooks.json").write_bytes((FIXTURE / "hooks.json").read_bytes())
    listing = with_placeholders(hooks_list(codex, home, project), home, project)
    recorded = json.loads((FIXTURE / "hooks-list.json").read_text(encoding="utf-8"))
    assert listing == recorded


def test_codex_exec_fires_the_pair_with_dshs_payload_keys(codex: str, tmp_path: Path) -> None:
    from _codex_side import codex_env, exec_flags, provider_toml, trust_with_dsh
    from _responses_mock import ResponsesMock

    from dsh.hooks.codex._trust import toml_string

    home, work = tmp_path / "home" / ".codex", tmp_path / "work"
    home.mkdir(parents=True)
    work.mkdir()
    log = tmp_path / "payloads.jsonl"
    hooks = ""
    for event in ("PreModelRequest", "PostModelRequest"):
        block = json.dumps({"decision": "block", "reason": "CASE-NO"})
        command = f"cat >> {shlex.quote(str(log))}; echo >> {shlex.quote(str(log))}; echo '{block}'"
        hooks += f'[[hooks.{event}]]\n[[hooks.{event}.hooks]]\ntype = "command"\n'
        hooks += f"command = {toml_string(command)}\n\n"
    script = {"rules": [], "default": {"type": "text", "text": "hello"}}
    with ResponsesMock() as mock:
        mock.load_script(script)
        (home / "config.toml").write_text(provider_toml(mock.url, work) + "\n" + hooks)
        trust_with_dsh(home, work)
        run = subprocess.run(
            [codex, "exec", *exec_flags(work), "say hi"],
            env=codex_env(home),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        requests = list(mock.requests)
    assert run.returncode == 0, run.stderr[-2000:]
    assert len(requests) == 1
    assert "CASE-NO" not in json.dumps(requests)
    payloads = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert [list(p) for p in payloads] == [PRE_KEYS, POST_KEYS]
    assert payloads[1]["status"] == "completed"
    assert set(payloads[1]["token_usage"]) == {
        "input_tokens",
        "cached_input_tokens",
        "cache_write_input_tokens",
        "output_tokens",
        "reasoning_output_tokens",
        "total_tokens",
    }
