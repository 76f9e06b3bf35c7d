"""The real Codex 0.171 accepts dsh's trust (opt-in: ``DSH_REAL_CODEX=1``; skipped otherwise).

``DSH_CODEX`` names the binary (else ``codex`` on PATH, else ``.bench-tools/``,
``make bench-tools``). Two checks: ``codex app-server``'s ``hooks/list`` still
gives the fixture's hashes and trusts what dsh recorded; and ``codex exec``
against a loopback Responses API runs the hooks dsh trusted (their marker
lines are written) and skips one whose recorded hash is wrong.
"""

from __future__ import annotations

import os
import re
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
)

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


def verdicts(listing: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(h["key"], h["currentHash"], h["trustStatus"]) for h in listing["hooks"]]


def test_codex_computes_the_fixture_hashes_and_trusts_what_dsh_records(
    codex: str, tmp_path: Path
) -> None:
    home, project = materialize(tmp_path)
    assert verdicts(codex_listing(codex, home, project)) == verdicts(recorded("hooks-list.json"))
    trust_as_dsh(home, project)
    after = codex_listing(codex, home, project)
    assert verdicts(after) == verdicts(recorded("hooks-list-trusted.json"))
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
