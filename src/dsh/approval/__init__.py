"""The approval seam: the ``APPROVAL`` service, its request and outcome types, and channels.

The tool pipeline asks it when a pre-execute policy answers ``ask``. Provide
an ``ApprovalBroker`` routed to a channel: ``PolicyChannel`` (rules, for
headless runs), ``TerminalChannel`` (a person at a TTY) or ``ScriptedChannel``
(tests). Before the service, the ``approval/request`` waterfall
(``dsh.tools.APPROVAL_REQUEST``) lets listeners answer with an
``ApprovalDecision`` or abstain. The channels load on first use: what a run asks through is
its front end's (the terminal's prompt, an ACP client, the headless policy).
"""

from typing import TYPE_CHECKING

from dsh._public import lazy, publish
from dsh.approval._broker import ApprovalBroker, by_call, by_tool
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

if TYPE_CHECKING:
    from dsh.approval._channels import (
        PolicyAction,
        PolicyChannel,
        PolicyRule,
        ScriptedChannel,
        TerminalChannel,
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

__getattr__ = lazy(
    globals(),
    {
        "dsh.approval._channels": (
            "PolicyAction",
            "PolicyChannel",
            "PolicyRule",
            "ScriptedChannel",
            "TerminalChannel",
        ),
    },
)
