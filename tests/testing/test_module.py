"""dsh.testing as a module: no pytest at import, its place in the layers, its public names."""

from __future__ import annotations

import inspect
import subprocess
import sys

import dsh.testing


def test_importing_dsh_testing_does_not_import_pytest() -> None:
    code = "import sys, dsh.testing; print('pytest' in sys.modules, '_pytest' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == ["False", "False"]


def test_every_public_name_is_documented() -> None:
    for name in dsh.testing.__all__:
        value = getattr(dsh.testing, name)
        if inspect.isfunction(value) or inspect.isclass(value):
            assert inspect.getdoc(value), name
