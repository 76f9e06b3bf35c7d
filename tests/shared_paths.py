"""Where the project's shared/ folder (conformance corpus, references) is.

CI lays a copy of shared/ beside the clone; a developer's checkout has it at
/work/shared; ``DSH_SHARED_DIR`` overrides both. The tests and the benchmarks
both find it here (``benchmarks/bench_claude_cases.py`` imports this module).

``conformance_dir(kind)`` is what a replay of the corpus asks for: on CI
(``CI`` set, as CI services set it, to anything but ``0``/``false``) a
missing corpus raises ``CorpusNotFoundError``, a failure, so a replay can
never pass by skipping; elsewhere the caller may skip.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "CONFORMANCE",
    "REFERENCE",
    "ROOT",
    "SHARED",
    "CorpusNotFoundError",
    "conformance_dir",
    "on_ci",
]

ROOT = Path(__file__).resolve().parents[1]


class CorpusNotFoundError(RuntimeError):
    """On CI, the conformance corpus a replay needs is not where it is looked for."""


def on_ci(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether this is a CI run (``CI=true``), where a missing corpus is a failure."""
    return environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _candidates(environ: Mapping[str, str]) -> list[Path]:
    override = environ.get("DSH_SHARED_DIR")
    candidates = [Path(override)] if override else []
    return [*candidates, ROOT.parent / "shared", Path("/work/shared")]


def _find_shared(environ: Mapping[str, str] = os.environ) -> Path:
    candidates = _candidates(environ)
    for candidate in candidates:
        if (candidate / "conformance").is_dir():
            return candidate
    return candidates[0]


def conformance_dir(kind: str, environ: Mapping[str, str] = os.environ) -> Path:
    """The corpus of ``kind`` (``"claude"``, ``"codex"``, ...) under ``shared/conformance/``.

    When it is not there, the path it would have: the caller skips, except on
    CI, where this raises ``CorpusNotFoundError`` naming every place it looked.
    """
    found = _find_shared(environ) / "conformance" / kind
    if not found.is_dir() and on_ci(environ):
        looked = ", ".join(str(c / "conformance" / kind) for c in _candidates(environ))
        raise CorpusNotFoundError(
            f"the conformance corpus {kind!r} is missing (looked in {looked}); "
            "CI must lay shared/ beside the clone or set DSH_SHARED_DIR"
        )
    return found


SHARED = _find_shared()
CONFORMANCE = SHARED / "conformance"
REFERENCE = SHARED / "reference"
