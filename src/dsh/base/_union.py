"""``ClosedUnion``: the root of every decision family, closed to code outside its package.

A family's base (``PreToolDecision``, ``PromptDecision``, ``ApprovalDecision``)
has no fields and carries the named constructors; its variants are the
``@final`` frozen classes its own module declares. A class declared anywhere
else cannot join the union, so what a listener can return is exactly what the
declaring module lists, at run time as for the type checker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["ClosedUnion"]


class ClosedUnion:
    """Subclass once per family, in the module that declares its variants."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        family = next(c for c in reversed(cls.__mro__) if ClosedUnion in c.__bases__)
        if cls.__module__ != family.__module__:
            raise TypeError(
                f"{cls.__qualname__}: {family.__name__} is a closed union; build one with"
                f" the named constructors of {family.__name__}"
            )

    if not TYPE_CHECKING:
        # Variants get their own __init__ (dataclass), so only a bare base lands here;
        # type checkers see object's, which takes no arguments.
        def __init__(self, *args: object, **kwargs: object) -> None:
            raise TypeError(f"{type(self).__name__} is built with its named constructors")
