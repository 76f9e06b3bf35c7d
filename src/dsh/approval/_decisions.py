"""``ApprovalDecision``: what an ``approval/request`` listener answers.

The ``approval/request`` waterfall runs when a pre-execute policy asks, before
the ``APPROVAL`` service answers: a listener may settle the question itself
(allow, deny) or abstain and let the service and its channel answer as before.

A closed union: ``ApprovalDecision`` only carries the named constructors, each
returning its precise variant (``ApprovalAbstain``, ``ApprovalAllow``,
``ApprovalDeny``); ``ApprovalVariant`` names the union for ``match``.
"""

from __future__ import annotations

from typing import ClassVar, Literal, TypeAlias, final, get_args

from dsh._frozen import frozen
from dsh.base._union import ClosedUnion

__all__ = [
    "APPROVAL_DECISION_KINDS",
    "ApprovalAbstain",
    "ApprovalAllow",
    "ApprovalDecision",
    "ApprovalDecisionKind",
    "ApprovalDeny",
    "ApprovalVariant",
]

ApprovalDecisionKind: TypeAlias = Literal["abstain", "allow", "deny"]
APPROVAL_DECISION_KINDS: tuple[ApprovalDecisionKind, ...] = get_args(ApprovalDecisionKind)


def _flag(value: object, what: str) -> None:
    if value is not True and value is not False:
        raise TypeError(f"{what} must be a bool, not {type(value).__name__}")


class ApprovalDecision(ClosedUnion):
    """An ``approval/request`` listener's answer; build it with the named constructors.

    ``abstain`` leaves the question to the ``APPROVAL`` service. ``allow`` lets
    the call go on (``always``: remembered for the session like an
    allowed-always answer, so later identical requests are not asked at all;
    ``reason`` an optional note). ``deny`` refuses it: ``reason`` is the
    model-visible content of the error result, and ``interrupt`` also ends the
    turn once the step's calls have finished.
    """

    __slots__ = ()
    kind: ClassVar[ApprovalDecisionKind]

    @staticmethod
    def abstain() -> ApprovalAbstain:
        """No opinion: the ``APPROVAL`` service (memory, then its channel) decides."""
        return _ABSTAIN

    @staticmethod
    def allow(*, always: bool = False, reason: str | None = None) -> ApprovalAllow:
        """Let the call run; ``always`` remembers it for the session."""
        return ApprovalAllow(always, reason)

    @staticmethod
    def deny(reason: str, *, interrupt: bool = False) -> ApprovalDeny:
        """Refuse the call with ``reason`` (model-visible); ``interrupt`` also ends the turn."""
        return ApprovalDeny(reason, interrupt)


@final
@frozen
class ApprovalAbstain(ApprovalDecision):
    """Leave the question to the ``APPROVAL`` service."""

    kind: ClassVar[Literal["abstain"]] = "abstain"


@final
@frozen
class ApprovalAllow(ApprovalDecision):
    """Let the call run; ``always`` remembers the answer for the session."""

    kind: ClassVar[Literal["allow"]] = "allow"
    always: bool = False
    reason: str | None = None

    def __post_init__(self) -> None:
        _flag(self.always, "always")
        if self.reason is not None and not isinstance(self.reason, str):
            raise TypeError(
                f"approval decision reason must be a str or None, not {type(self.reason).__name__}"
            )


@final
@frozen
class ApprovalDeny(ApprovalDecision):
    """Refuse the call with ``reason`` (model-visible); ``interrupt`` also ends the turn."""

    kind: ClassVar[Literal["deny"]] = "deny"
    reason: str
    interrupt: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.reason, str):
            raise TypeError(
                f"approval decision reason must be a str, not {type(self.reason).__name__}"
            )
        if not self.reason:
            raise ValueError("a deny approval decision needs a reason (the model sees it)")
        _flag(self.interrupt, "interrupt")


_ABSTAIN = ApprovalAbstain()

ApprovalVariant: TypeAlias = ApprovalAbstain | ApprovalAllow | ApprovalDeny
