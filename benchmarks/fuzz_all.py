"""The long fuzz run (issue 27): every hostile-input property at N examples, unhandled counted.

Not part of ``make test`` or CI (it takes long): ``make fuzz`` runs it niced as

    CI=1 nice -n 19 .venv/bin/python benchmarks/fuzz_all.py [N] [NAME ...]

(N: examples per property, default 100,000; NAMEs: a subset of the targets below, by any
word of their names). Each target is a property of ``tests/hardening`` (its ``FUZZ_TARGET``:
a name, the check, its hypothesis strategies), run through the real loaders as the short
profile runs it in ``make test``; here every example runs whatever the one before did, an
exception being counted (by type, the first of each kept) rather than stopping the run.
``CI=1`` replays hypothesis's fixed derivation, as the CI profile does. Prints per target the
examples run, the unhandled exceptions and the time; exits 1 if any target had one. The
figures go in ``docs/reliability.md``.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis.strategies import SearchStrategy

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tests.conftest  # noqa: F401  (the ci/dev hypothesis profiles)
from tests.hardening import (
    test_catalog_fuzz,
    test_codex_config_fuzz,
    test_manifest_fuzz,
    test_trust_record_fuzz,
)

Target = tuple[str, Callable[..., None], Mapping[str, SearchStrategy[Any]]]
TARGETS: tuple[Target, ...] = (
    test_manifest_fuzz.FUZZ_TARGET,
    test_catalog_fuzz.FUZZ_TARGET,
    test_codex_config_fuzz.FUZZ_TARGET,
    test_trust_record_fuzz.FUZZ_TARGET,
)


def run(target: Target, examples: int) -> tuple[int, Counter[str], float]:
    """Run ``target``'s check on ``examples`` generated inputs; how many ran, the exceptions
    by type, and the seconds taken."""
    name, check, strategies = target
    ran = 0
    unhandled: Counter[str] = Counter()
    start = time.perf_counter()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(**strategies)
    def prop(**arguments: Any) -> None:
        nonlocal ran
        ran += 1
        if ran % 5000 == 0:  # a long run on a loaded machine: show how far it got
            print(f"... {name}: {ran} examples, {time.perf_counter() - start:.0f} s", flush=True)
        try:
            check(**arguments)
        except Exception as exc:
            kind = type(exc).__name__
            if not unhandled[kind]:
                print(f"{name}: {kind} on {arguments!r:.300}", flush=True)
                traceback.print_exc(limit=-4)
            unhandled[kind] += 1

    prop()
    return ran, unhandled, time.perf_counter() - start


def main(argv: list[str]) -> int:
    examples = int(argv[0]) if argv and argv[0].isdigit() else 100_000
    wanted = [a.lower() for a in argv[1:] if not a.isdigit()] or argv[1:]
    chosen = [t for t in TARGETS if not wanted or any(w in t[0].lower() for w in wanted)]
    failed = 0
    rows = []
    for target in chosen:
        ran, unhandled, seconds = run(target, examples)
        total = sum(unhandled.values())
        failed += total
        kinds = ", ".join(f"{k} x{n}" for k, n in unhandled.most_common()) or "-"
        rows.append(f"| {target[0]} | {ran:,} | {total} | {kinds} | {seconds:.0f} s |")
        print(rows[-1], flush=True)
    print(f"\nfuzz run, {examples:,} examples asked per target:")
    print("| target | examples run | unhandled | by type | time |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
