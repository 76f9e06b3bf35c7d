"""Where the project's shared/ folder (conformance corpus, references) is.

CI lays a copy of shared/ beside the clone; a developer's checkout has it at
/work/shared; ``DSH_SHARED_DIR`` overrides both.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _find_shared() -> Path:
    override = os.environ.get("DSH_SHARED_DIR")
    candidates = [Path(override)] if override else []
    candidates += [ROOT.parent / "shared", Path("/work/shared")]
    for candidate in candidates:
        if (candidate / "conformance").is_dir():
            return candidate
    return candidates[0]


SHARED = _find_shared()
CONFORMANCE = SHARED / "conformance"
REFERENCE = SHARED / "reference"
