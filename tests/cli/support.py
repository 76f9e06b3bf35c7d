"""The ``dsh`` command as the CLI tests run it: a real process, no stray ``DSH_*`` settings."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path


def run_dsh(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m dsh ARGS`` in ``cwd``: this environment less its ``DSH_*`` variables, plus
    ``env``; plain output (``NO_COLOR``, 200 columns); ``python3`` on ``PATH`` is this
    interpreter (``python3_dir``) unless ``env`` sets ``PATH``."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    environ["PATH"] = os.pathsep.join([str(python3_dir()), environ.get("PATH", os.defpath)])
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


@functools.cache
def python3_dir() -> Path:
    """A folder holding this interpreter as ``python3``, put first on the ``PATH`` of the
    ``dsh`` processes the tests start: a hook written ``python3 x.py`` starts it directly,
    not through a version manager's shim (pyenv's runs two shell scripts first: four times
    the wall time and twice the CPU of each hook process). One per test process."""
    folder = Path(tempfile.mkdtemp(prefix="dsh-tests-python3-"))
    (folder / "python3").symlink_to(sys.executable)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
