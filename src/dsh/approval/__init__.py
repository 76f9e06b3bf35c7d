"""The approval seam: the ``APPROVAL`` service, its request and outcome types, and channels.

The tool pipeline asks it when a pre-execute policy answers ``ask``. Provide
an ``ApprovalBroker`` routed to a channel: ``PolicyChannel`` (rules, for
headless runs), ``TerminalChannel`` (a person at a TTY) or ``ScriptedChannel``
(tests). Before the service, the ``approval/request`` waterfall
(``dsh.tools.APPROVAL_REQUEST``) lets listeners answer with an
``ApprovalDecision`` or abstain.
"""

from dsh.approval._broker import ApprovalBroker, by_call, by_tool
from dsh.approval._channels import (
    PolicyAction,
    PolicyChannel,
    PolicyRule,
    ScriptedChannel,
    TerminalChannel,
)
from dsh.approval._decisions import (
    APPROVAL_DECISION_KINDS,
    ApprovalAbstain,
    ApprovalAllow,
    ApprovalDecision,
    ApprovalDecisionKind,
    ApprovalDeny,
    ApprovalVerdict,
)
from dsh.approval._types import (
    APPROVAL,
    APPROVAL_OUTCOMES,
    ApprovalAnswer,
    ApprovalChannel,
    ApprovalOutcome,
    ApprovalReply,
    ApprovalRequest,
    ApprovalService,
    reply_outcome,
)

__all__ = [
    "APPROVAL",
    "APPROVAL_DECISION_KINDS",
    "APPROVAL_OUTCOMES",
    "ApprovalAbstain",
    "ApprovalAllow",
    "ApprovalAnswer",
    "ApprovalBroker",
    "ApprovalChannel",
    "ApprovalDecision",
    "ApprovalDecisionKind",
    "ApprovalDeny",
    "ApprovalOutcome",
    "ApprovalReply",
    "ApprovalRequest",
    "ApprovalService",
    "ApprovalVerdict",
    "PolicyAction",
    "PolicyChannel",
    "PolicyRule",
    "ScriptedChannel",
    "TerminalChannel",
    "by_call",
    "by_tool",
    "reply_outcome",
]
