"""The ``dsh`` command as the CLI tests run it: a real process, no stray ``DSH_*`` settings."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def run_dsh(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m dsh ARGS`` in ``cwd``: this environment less its ``DSH_*`` variables, plus
    ``env``; plain output (``NO_COLOR``, 200 columns)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    environ.update({"NO_COLOR": "1", "COLUMNS": "200", **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "dsh", *args],
        cwd=cwd,
        env=environ,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
