"""The effort level hooks are told by default: a constant the profile and the runtime share, in a
module of its own so that declaring the profile loads none of the runtime."""

from typing import Final

__all__ = ["EFFORT_LEVEL"]

EFFORT_LEVEL: Final = "medium"
"""The ``effort.level`` (and ``CLAUDE_EFFORT``) hooks get by default: 2.1.332's default model's."""
