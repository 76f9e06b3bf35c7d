"""``ApprovalDecision``: what an ``approval/request`` listener answers.

The ``approval/request`` waterfall runs when a pre-execute policy asks, before
the ``APPROVAL`` service: a listener may settle the question itself (allow,
deny) or abstain and let the service and its channel answer as before.
"""

from __future__ import annotations

from typing import Literal, TypeAlias, final, get_args

from dsh._frozen import frozen

__all__ = ["APPROVAL_DECISION_KINDS", "ApprovalDecision", "ApprovalDecisionKind"]

ApprovalDecisionKind: TypeAlias = Literal["abstain", "allow", "deny"]
APPROVAL_DECISION_KINDS: tuple[ApprovalDecisionKind, ...] = get_args(ApprovalDecisionKind)


@final
@frozen
class ApprovalDecision:
    """An ``approval/request`` listener's answer; build it with the named constructors.

    ``abstain`` leaves the question to the ``APPROVAL`` service. ``allow`` lets
    the call go on (``always``: remembered for the session like an
    allowed-always answer, so later identical requests are not asked at all;
    ``reason`` an optional note). ``deny`` refuses it: ``reason`` is the
    model-visible content of the error result, and ``interrupt`` also ends the
    turn once the step's calls have finished.
    """

    kind: ApprovalDecisionKind
    reason: str | None = None
    always: bool = False
    interrupt: bool = False

    def __post_init__(self) -> None:
        if self.kind not in APPROVAL_DECISION_KINDS:
            raise ValueError(
                f"approval decision kind {self.kind!r} is not one of "
                f"{', '.join(APPROVAL_DECISION_KINDS)}"
            )
        if self.reason is not None and not isinstance(self.reason, str):
            raise TypeError(
                f"approval decision reason must be a str or None, not {type(self.reason).__name__}"
            )
        if self.kind == "deny" and not self.reason:
            raise ValueError("a deny approval decision needs a reason (the model sees it)")
        if self.kind == "abstain" and self.reason is not None:
            raise ValueError("an abstaining approval decision carries no reason")
        if self.always is not True and self.always is not False:
            raise TypeError(f"always must be a bool, not {type(self.always).__name__}")
        if self.interrupt is not True and self.interrupt is not False:
            raise TypeError(f"interrupt must be a bool, not {type(self.interrupt).__name__}")
        if self.always and self.kind != "allow":
            raise ValueError(f"always applies to allow only, not to {self.kind}")
        if self.interrupt and self.kind != "deny":
            raise ValueError(f"interrupt applies to deny only, not to {self.kind}")

    @classmethod
    def abstain(cls) -> ApprovalDecision:
        """No opinion: the ``APPROVAL`` service (memory, then its channel) decides."""
        return _ABSTAIN

    @classmethod
    def allow(cls, *, always: bool = False, reason: str | None = None) -> ApprovalDecision:
        """Let the call run; ``always`` remembers it for the session."""
        return cls("allow", reason, always)

    @classmethod
    def deny(cls, reason: str, *, interrupt: bool = False) -> ApprovalDecision:
        """Refuse the call with ``reason`` (model-visible); ``interrupt`` also ends the turn."""
        return cls("deny", reason, False, interrupt)


_ABSTAIN = ApprovalDecision("abstain")
