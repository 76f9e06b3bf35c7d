"""``DshError``: the one root of the error families dsh raises on purpose."""

from __future__ import annotations

__all__ = ["DshError"]


class DshError(Exception):
    """What every package's own errors derive from, beside their builtin base.

    ``except DshError`` catches exactly what dsh raises by design (a corrupt
    session, an unusable tool registration, a model failure, ...), never a
    bug's ``KeyError``. Each family keeps its builtin base
    (``class ToolRegistrationError(DshError, ValueError)``), so code catching
    the builtin still works.
    """
