"""The workspace fixture: a Workspace in tmp_path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dsh.tools import Workspace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    env = dict(os.environ)
    env["LC_ALL"] = "C"  # messages of ls and friends in English, as the captures
    return Workspace(tmp_path, env=env)
