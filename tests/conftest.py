"""Test-wide settings: deterministic hypothesis runs on CI.

Locally hypothesis explores new examples on every run; on CI (``CI`` set) it
replays a fixed derivation and has no deadline, so a shared, loaded machine
cannot turn a slow example into a failure.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
