"""``SessionError``: the root of the session store's errors, below every store module.

It has a module of its own so that the private-file layer (which the stored
events read through) and the store base (which holds the stored events) can
both raise it without importing each other.
"""

from __future__ import annotations

from dsh.base import DshError

__all__ = ["SessionError"]


class SessionError(DshError):
    """A session store operation failed."""
