"""The real Codex 0.171 accepts dsh's trust (opt-in: ``DSH_REAL_CODEX=1``; skipped otherwise).

``DSH_CODEX`` names the binary (else ``codex`` on PATH, else ``.bench-tools/``,
``make bench-tools``). Two checks: ``codex app-server``'s ``hooks/list`` still
gives the fixture's hashes and trusts what dsh recorded; and ``codex exec``
against a loopback Responses API runs the hooks dsh trusted (their marker
lines are written) and skips one whose recorded hash is wrong. And the model-request pair:
``hooks/list`` on ``fixtures/codex-model-request`` still gives its keys, hashes and order,
and ``codex exec``, with the pair trusted by dsh's ``trust`` code, runs both around each
request with the payload keys dsh sends, a blocking answer changing nothing.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hooks_codex.codex_trust_fixture import (
    BENCHMARKS,
    codex_listing,
    materialize,
    recorded,
    trust_as_dsh,
    with_placeholders,
)
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


def statuses(listing: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(h["key"], h["currentHash"], h["trustStatus"]) for h in listing["hooks"]]


def test_codex_computes_the_fixture_hashes_and_trusts_what_dsh_records(
    codex: str, tmp_path: Path
) -> None:
    home, project = materialize(tmp_path)
    assert statuses(codex_listing(codex, home, project)) == statuses(recorded("hooks-list.json"))
    trust_as_dsh(home, project)
    after = codex_listing(codex, home, project)
    assert statuses(after) == statuses(recorded("hooks-list-trusted.json"))
    assert {h["trustStatus"] for h in after["hooks"] if h["enabled"]} == {"trusted"}


def test_codex_exec_runs_the_hooks_dsh_trusted_and_not_a_wrong_hash(
    codex: str, tmp_path: Path
) -> None:
    from _codex_side import ResponsesMock, check_side_run, codex_invocation
    from _side_cases import CASES

    case = next(c for c in CASES if c.name == "one-bash")
    home = tmp_path / "home" / ".codex"
    with ResponsesMock() as mock:
        for run, tamper in enumerate((False, True)):
            workdir = tmp_path / f"work{run}"
            workdir.mkdir()
            mock.load(case)
            argv, env = codex_invocation(case, workdir, home, mock.url)
            config = home / "config.toml"
            text = config.read_text()
            assert "--dangerously-bypass-hook-trust" not in argv
            assert text.count("trusted_hash") == 4  # recorded by dsh, one per hook
            if tamper:  # the PreToolUse record no longer matches the hook
                text = re.sub(
                    r'(pre_tool_use:0:0"\]\ntrusted_hash = "sha256:)[0-9a-f]{4}', r"\g<1>0000", text
                )
                config.write_text(text)
            done = subprocess.run(
                argv,
                env=env,
                cwd=workdir,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=180,
            )
            assert done.returncode == 0, done.stderr.decode()[-2000:]
            problems = check_side_run(case, workdir, mock)
            if tamper:
                assert problems == ["PreToolUse hook runs: 0, want 1"]
            else:
                assert problems == []


# -- the model-request pair (fixtures/codex-model-request) --


def test_model_request_hooks_list_still_gives_the_fixture(codex: str, tmp_path: Path) -> None:
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

    from dsh.hooks.codex.config._trust import toml_string

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
