"""An optional pytest plugin for ``dsh.testing``: the ``dsh_project`` fixture.

Enable it with ``pytest_plugins = ["dsh.testing.pytest_plugin"]`` in a
``conftest.py`` (or ``pytest -p dsh.testing.pytest_plugin``). ``dsh_project`` is
an empty project directory in the test's ``tmp_path``: give it as ``project=``
to ``run_session`` or ``run_hook`` to keep the project, with whatever the
tools and hooks wrote, for the test to look at afterwards. This is the only
module of ``dsh.testing`` that imports pytest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["dsh_project"]


@pytest.fixture
def dsh_project(tmp_path: Path) -> Path:
    """An empty project directory, ``tmp_path / "project"``."""
    project = tmp_path / "project"
    project.mkdir()
    return project
