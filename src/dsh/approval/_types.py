"""The approval seam's vocabulary: requests, outcomes, the service protocol and its key.

The tool pipeline asks the ``APPROVAL`` service when a ``tools/pre-execute``
listener answers ``ask``. The seam speaks of a tool name and its sealed
arguments only, so it sits below ``dsh.tools``.
"""

from __future__ import annotations

from typing import Literal, Protocol, TypeAlias, final, get_args

from dsh._frozen import frozen
from dsh.base import FrozenDict
from dsh.context import ServiceKey

__all__ = [
    "APPROVAL",
    "APPROVAL_OUTCOMES",
    "ApprovalAnswer",
    "ApprovalChannel",
    "ApprovalOutcome",
    "ApprovalRequest",
    "ApprovalService",
    "ChannelAnswer",
    "answer_outcome",
]

ApprovalOutcome: TypeAlias = Literal["allowed-once", "allowed-always", "rejected", "cancelled"]
APPROVAL_OUTCOMES: tuple[ApprovalOutcome, ...] = get_args(ApprovalOutcome)


@final
@frozen
class ApprovalRequest:
    """One question to whoever approves: may ``tool_name`` run with ``arguments``?

    ``reason`` is why a policy asked; ``session_id`` scopes an allowed-always
    answer; ``tool_use_id`` lets a channel point at the model's call.
    """

    tool_name: str
    arguments: FrozenDict
    reason: str
    session_id: str | None = None
    tool_use_id: str | None = None


@final
@frozen
class ApprovalAnswer:
    """An outcome with the channel's reason for it (a policy rule, a headless run)."""

    outcome: ApprovalOutcome
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.outcome not in APPROVAL_OUTCOMES:
            raise ValueError(
                f"approval outcome {self.outcome!r} is not one of {', '.join(APPROVAL_OUTCOMES)}"
            )


ChannelAnswer: TypeAlias = ApprovalOutcome | ApprovalAnswer | None
"""A channel's or service's answer: an outcome, one with a reason, or ``None`` (no channel)."""


class ApprovalChannel(Protocol):
    """Something that can answer an approval request (a terminal, a policy, a client)."""

    async def request(self, req: ApprovalRequest, /) -> ChannelAnswer: ...


class ApprovalService(Protocol):
    """The ``APPROVAL`` service: ``None`` means nobody can answer."""

    async def request(self, req: ApprovalRequest, /) -> ChannelAnswer: ...


APPROVAL: ServiceKey[ApprovalService] = ServiceKey("approval")


def answer_outcome(reply: object) -> tuple[ApprovalOutcome | None, str | None]:
    """Split a reply into its outcome and reason; raises ``ValueError`` on anything else."""
    if reply is None:
        return None, None
    if isinstance(reply, ApprovalAnswer):
        return reply.outcome, reply.reason
    if isinstance(reply, str) and reply in APPROVAL_OUTCOMES:
        return reply, None
    raise ValueError(
        f"approval reply {reply!r} is not one of {', '.join(APPROVAL_OUTCOMES)}, "
        "an ApprovalAnswer or None"
    )
