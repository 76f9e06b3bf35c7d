"""Test-wide settings: deterministic hypothesis runs on CI, and a cap on examples per property.

Locally hypothesis explores new examples on every run; on CI (``CI`` set) it
replays a fixed derivation and has no deadline, so a shared, loaded machine
cannot turn a slow example into a failure.

A property test that asks for more than ``EXAMPLE_CAP`` examples runs ``EXAMPLE_CAP`` of
them by default (the same property on a smaller sample, so the suite's four CI runs stay
short); ``DSH_FULL_EXAMPLES=1`` runs the counts the tests ask for.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

EXAMPLE_CAP = 300

ONCE: tuple[str, ...] = (
    # What the kernel does (process containment, kill -9, the shell sandbox's Landlock,
    # seccomp and namespaces) and hypothesis fuzzing of decoders: nothing in them depends on
    # the interpreter, so CI runs them on its main Python only (`.ci/run`, marker `once`).
    "hardening/test_hostile_corpus.py",
    "hardening/test_kill_durability.py",
    "hardening/test_answer_fuzz.py",
    "hardening/test_catalog_fuzz.py",
    "hardening/test_codex_config_fuzz.py",
    "hardening/test_manifest_fuzz.py",
    "hardening/test_trust_record_fuzz.py",
    "sandbox/",
    # The wheel is pure Python (py3-none-any, asserted there): the same file set, entry
    # point and metadata whichever interpreter builds or installs it; that each Python
    # can install and import dsh's dependencies, every CI stage's own install shows.
    "packaging/test_wheel.py",
)
_TESTS = os.path.dirname(os.path.abspath(__file__))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = os.path.relpath(str(item.path), _TESTS).replace(os.sep, "/")
        if where.startswith(ONCE):
            item.add_marker(pytest.mark.once)
    if os.environ.get("DSH_FULL_EXAMPLES") == "1":
        return
    for item in items:
        test: Any = getattr(item, "obj", None)
        # Where @settings puts a property test's settings; hypothesis reads them at run time.
        chosen = getattr(test, "_hypothesis_internal_use_settings", None)
        if isinstance(chosen, settings) and chosen.max_examples > EXAMPLE_CAP:
            test._hypothesis_internal_use_settings = settings(chosen, max_examples=EXAMPLE_CAP)
