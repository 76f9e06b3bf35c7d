"""The shared corpus is found one way, by tests and benchmarks, and on CI never skipped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared_paths import ROOT, CorpusNotFoundError, conformance_dir, on_ci

BENCH = ROOT / "benchmarks" / "bench_claude_cases.py"


def _shared(tmp_path: Path, *kinds: str) -> Path:
    for kind in ("", *kinds):
        (tmp_path / "shared" / "conformance" / kind).mkdir(parents=True, exist_ok=True)
    return tmp_path / "shared"


def test_the_override_is_looked_in_first(tmp_path: Path) -> None:
    shared = _shared(tmp_path, "claude")
    env = {"DSH_SHARED_DIR": str(shared), "CI": "true"}
    assert conformance_dir("claude", env) == shared / "conformance" / "claude"


def test_a_missing_corpus_fails_on_ci_and_is_only_a_path_elsewhere(tmp_path: Path) -> None:
    shared = _shared(tmp_path)
    with pytest.raises(CorpusNotFoundError, match=r"'claude' is missing.*DSH_SHARED_DIR"):
        conformance_dir("claude", {"DSH_SHARED_DIR": str(shared), "CI": "true"})
    missing = conformance_dir("claude", {"DSH_SHARED_DIR": str(shared), "CI": "false"})
    assert missing == shared / "conformance" / "claude"
    assert not missing.exists()


@pytest.mark.parametrize(
    ("value", "ci"), [("true", True), ("1", True), ("", False), ("0", False), ("false", False)]
)
def test_ci_is_what_ci_services_set(value: str, ci: bool) -> None:
    assert on_ci({"CI": value}) is ci
    assert on_ci({}) is False


def _bench(shared: Path, ci: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "DSH_SHARED_DIR")}
    env |= {"DSH_SHARED_DIR": str(shared), "CI": ci}
    return subprocess.run(
        [sys.executable, str(BENCH), "--repeats", "1"],
        env=env,
        cwd=shared,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_case_benchmark_finds_the_corpus_as_the_tests_do(tmp_path: Path) -> None:
    shared = _shared(tmp_path)
    on_ci_run = _bench(shared, "true")
    assert on_ci_run.returncode != 0
    assert "CorpusNotFoundError" in on_ci_run.stderr
    assert str(shared / "conformance" / "claude") in on_ci_run.stderr
    local = _bench(shared, "")
    assert local.returncode == 0, local.stderr
    assert f"no conformance corpus at {shared / 'conformance' / 'claude'}" in local.stderr
