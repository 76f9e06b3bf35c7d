"""The approval seam: the ``APPROVAL`` service, its request and outcome types, and channels.

The tool pipeline asks it when a pre-execute policy answers ``ask``. Provide
an ``ApprovalBroker`` routed to a channel: ``PolicyChannel`` (rules, for
headless runs), ``TerminalChannel`` (a person at a TTY) or ``ScriptedChannel``
(tests). Before the service, the ``approval/request`` waterfall
(``dsh.tools.APPROVAL_REQUEST``) lets listeners answer with an
``ApprovalDecision`` or abstain.
"""

from dsh._public import publish
from dsh.approval._broker import ApprovalBroker, by_call, by_tool
from dsh.approval._channels import (
    PolicyAction,
    PolicyChannel,
    PolicyRule,
    ScriptedChannel,
    TerminalChannel,
)
from dsh.approval._decisions import (
    ApprovalAbstain,
    ApprovalAllow,
    ApprovalDecision,
    ApprovalDeny,
    ApprovalVariant,
)
from dsh.approval._types import (
    APPROVAL,
    ApprovalAnswer,
    ApprovalChannel,
    ApprovalOutcome,
    ApprovalRequest,
    ApprovalService,
    ChannelAnswer,
)

__all__ = [
    "APPROVAL",
    "ApprovalAbstain",
    "ApprovalAllow",
    "ApprovalAnswer",
    "ApprovalBroker",
    "ApprovalChannel",
    "ApprovalDecision",
    "ApprovalDeny",
    "ApprovalOutcome",
    "ApprovalRequest",
    "ApprovalService",
    "ApprovalVariant",
    "ChannelAnswer",
    "PolicyAction",
    "PolicyChannel",
    "PolicyRule",
    "ScriptedChannel",
    "TerminalChannel",
    "by_call",
    "by_tool",
]

publish(globals())
