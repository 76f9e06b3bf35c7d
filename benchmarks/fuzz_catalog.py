"""The long fuzz run of ``load_catalog`` (issue 15): N generated settings examples, none may raise.

Not part of ``make test`` or ``make bench`` (it takes many minutes): run it as

    CI=1 .venv/bin/python benchmarks/fuzz_catalog.py 100000

(``CI=1`` replays hypothesis's fixed derivation, as the CI profile does). It runs the
property of ``tests/hardening/test_catalog_fuzz.py`` (``check_settings``: a project
settings file, a ``--settings`` file and an inline ``--settings`` string, hostile each)
and prints the examples run, the failures found and the time taken. The figure goes in
``docs/reliability.md``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tests.conftest  # noqa: F401  (the ci/dev hypothesis profiles)
from tests.hardening.test_catalog_fuzz import FILE_BYTES, FILE_TEXT, check_settings


def main() -> int:
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    ran = 0
    start = time.perf_counter()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(project_file=FILE_BYTES, cli_file=FILE_BYTES, inline=FILE_TEXT)
    def prop(project_file: bytes, cli_file: bytes, inline: str) -> None:
        nonlocal ran
        ran += 1
        if ran % 5000 == 0:  # a long run on a loaded machine: show how far it got
            print(f"... {ran} examples, {time.perf_counter() - start:.0f} s", flush=True)
        check_settings(project_file, cli_file, inline)

    failed = 0
    try:
        prop()
    except Exception as exc:  # hypothesis re-raises the shrunk failure
        failed = 1
        print(f"FAILED: {type(exc).__name__}: {exc}")
    seconds = time.perf_counter() - start
    print(
        f"load_catalog fuzz: {ran} examples run ({examples} asked),"
        f" {failed} failing, {seconds:.0f} s"
    )
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
