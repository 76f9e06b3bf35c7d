"""The long fuzz run (issue 27): every hostile-input property at N examples, unhandled counted.

Not part of ``make test`` or CI (it takes long): ``make fuzz`` runs it niced as

    CI=1 nice -n 19 .venv/bin/python benchmarks/fuzz_all.py [N] [--minutes M] [NAME ...]

(N: examples per property, default 100,000; ``--minutes``: stop each target after M
minutes of wall time and report what ran, for a loaded machine; NAMEs: a subset of the
targets below, by any word of their names). Each target is a property of
``tests/hardening`` (its ``FUZZ_TARGET``: a name, the check, its hypothesis strategies),
run through the real loaders as the short profile runs it in ``make test``; here an
exception is counted (by type, the first of each shown) and the run goes on. ``CI=1``
replays hypothesis's fixed derivation, as the CI profile does. Prints per target the
examples run, the unhandled exceptions and the time; exits 1 if any target had one. The
figures go in ``docs/reliability.md``.
"""

from __future__ import annotations

import contextlib
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


class _OutOfTime(BaseException):
    """The target's time is up: not an exception of the check's, so hypothesis lets it by."""


def run(
    target: Target, examples: int, seconds: float | None = None
) -> tuple[int, Counter[str], float]:
    """Run ``target``'s check on ``examples`` generated inputs (or for ``seconds``); how
    many ran, the exceptions by type, and the seconds taken."""
    name, check, strategies = target
    ran = 0
    unhandled: Counter[str] = Counter()
    start = time.perf_counter()
    shown = start

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(**strategies)
    def prop(**arguments: Any) -> None:
        nonlocal ran, shown
        now = time.perf_counter()
        if seconds is not None and now - start > seconds:
            raise _OutOfTime
        if now - shown > 60:  # a long run on a loaded machine: show how far it got
            shown = now
            print(f"... {name}: {ran} examples, {now - start:.0f} s", flush=True)
        ran += 1
        try:
            check(**arguments)
        except Exception as exc:
            kind = type(exc).__name__
            if not unhandled[kind]:
                print(f"{name}: {kind} on {arguments!r:.300}", flush=True)
                traceback.print_exc(limit=-4)
            unhandled[kind] += 1

    with contextlib.suppress(_OutOfTime):
        prop()
    return ran, unhandled, time.perf_counter() - start


def main(argv: list[str]) -> int:
    words = list(argv)
    minutes: float | None = None
    if "--minutes" in words:
        at = words.index("--minutes")
        minutes = float(words[at + 1])
        del words[at : at + 2]
    examples = int(words[0]) if words and words[0].isdigit() else 100_000
    wanted = [w.lower() for w in words if not w.isdigit()]
    chosen = [t for t in TARGETS if not wanted or any(w in t[0].lower() for w in wanted)]
    failed = 0
    rows = []
    for target in chosen:
        budget = None if minutes is None else minutes * 60
        ran, unhandled, seconds = run(target, examples, budget)
        total = sum(unhandled.values())
        failed += total
        kinds = ", ".join(f"{k} x{n}" for k, n in unhandled.most_common()) or "-"
        rows.append(f"| {target[0]} | {ran:,} | {total} | {kinds} | {seconds:.0f} s |")
        print(rows[-1], flush=True)
    limit = "" if minutes is None else f", at most {minutes:g} minutes each"
    print(f"\nfuzz run, {examples:,} examples asked per target{limit}:")
    print("| target | examples run | unhandled | by type | time |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
