"""The agent loop: ``Agent``, its seams and decisions, subagents and compaction.

A native hook is an ordinary plugin: it subscribes to these channels (and to
``dsh.tools``'s) and returns the typed decisions below. The subagent names
(``AGENT_TOOL``, ``AgentToolInput``, ``subagent_plugin``) load on first use: a
run that never mounts the ``Agent`` tool never builds its input model.
"""

from typing import TYPE_CHECKING

from dsh._public import lazy, publish
from dsh.agent._agent import Agent
from dsh.agent._agent_types import (
    AGENT_TYPES,
    SUBAGENT_MODELS,
    WORKTREE_MAKER,
    WORKTREE_SETTINGS,
    AgentType,
    AgentTypes,
)
from dsh.agent._background import (
    notifications_ready,
    run_notifications,
    run_ready_notifications,
    watch_background,
)
from dsh.agent._caller import calling_agent
from dsh.agent._channels import (
    COMPACTION_REPLY,
    CWD_CHANGED,
    INSTRUCTIONS_LOADED,
    MESSAGE_DISPLAY,
    NOTIFICATION,
    POST_COMPACT,
    POST_TOOL_BATCH,
    PRE_COMPACT,
    PROMPT_SUBMIT,
    SESSION_END,
    SESSION_START,
    SETUP,
    SUBAGENT_END,
    SUBAGENT_START,
    TURN_CONTINUATION,
    TURN_ERROR,
    TURN_STOP,
)
from dsh.agent._decisions import (
    CompactRequest,
    CompactTrigger,
    ContinuationContinue,
    ContinuationDecision,
    ContinuationState,
    ContinuationStop,
    ContinuationVariant,
    DisplayDecision,
    DisplayReplace,
    DisplayRequest,
    DisplayShow,
    DisplayVariant,
    InstructionsFile,
    InstructionsLoadReason,
    InstructionsScope,
    PostToolBatchDecision,
    PostToolBatchProceed,
    PostToolBatchStop,
    PostToolBatchVariant,
    PreCompactDecision,
    PreCompactProceed,
    PreCompactVariant,
    PreCompactVeto,
    PromptAllow,
    PromptBlock,
    PromptDecision,
    PromptSource,
    PromptVariant,
    SessionEndReason,
    SessionStartSource,
    SetupTrigger,
    TurnStop,
    TurnStopDecision,
)
from dsh.agent._deferral import DeferredCall, Settlement
from dsh.agent._model_calls import (
    MODEL_REQUEST,
    MODEL_RESPONSE,
    ModelCall,
    ModelCallEnd,
)
from dsh.agent._options import AgentOptions
from dsh.agent._summary_ask import SummaryAsk
from dsh.agent._switching import (
    DIRECTORY_ADDED,
    MODEL_SWITCH,
    MODEL_SWITCHED,
    DirectorySource,
    ModelSwitchAllow,
    ModelSwitchDecision,
    ModelSwitchDeny,
    ModelSwitchRequest,
    ModelSwitchSource,
    ModelSwitchVariant,
)
from dsh.agent._turn import CancelWhen, TurnResult

__all__ = [
    "AGENT_TOOL",
    "AGENT_TYPES",
    "COMPACTION_REPLY",
    "CWD_CHANGED",
    "DIRECTORY_ADDED",
    "INSTRUCTIONS_LOADED",
    "MESSAGE_DISPLAY",
    "MODEL_REPLY",
    "MODEL_REQUEST",
    "MODEL_REQUEST_POLICY",
    "MODEL_RESPONSE",
    "MODEL_SWITCH",
    "MODEL_SWITCHED",
    "NOTIFICATION",
    "PERMISSION_NOTIFY_SECONDS",
    "POST_COMPACT",
    "POST_TOOL_BATCH",
    "PRE_COMPACT",
    "PROMPT_SUBMIT",
    "SESSION_END",
    "SESSION_START",
    "SETUP",
    "SPEND_CAP_KIND",
    "SUBAGENT_END",
    "SUBAGENT_MODELS",
    "SUBAGENT_START",
    "TURN_CONTINUATION",
    "TURN_ERROR",
    "TURN_STOP",
    "WORKTREE_MAKER",
    "WORKTREE_SETTINGS",
    "Agent",
    "AgentOptions",
    "AgentToolInput",
    "AgentType",
    "AgentTypes",
    "CancelWhen",
    "CompactRequest",
    "CompactTrigger",
    "ContinuationContinue",
    "ContinuationDecision",
    "ContinuationState",
    "ContinuationStop",
    "ContinuationVariant",
    "DeferredCall",
    "DirectorySource",
    "DisplayDecision",
    "DisplayReplace",
    "DisplayRequest",
    "DisplayShow",
    "DisplayVariant",
    "InstructionsFile",
    "InstructionsLoadReason",
    "InstructionsScope",
    "ModelCall",
    "ModelCallEnd",
    "ModelSubstitutedEvent",
    "ModelSwitchAllow",
    "ModelSwitchDecision",
    "ModelSwitchDeny",
    "ModelSwitchRequest",
    "ModelSwitchSource",
    "ModelSwitchVariant",
    "PostToolBatchDecision",
    "PostToolBatchProceed",
    "PostToolBatchStop",
    "PostToolBatchVariant",
    "PreCompactDecision",
    "PreCompactProceed",
    "PreCompactVariant",
    "PreCompactVeto",
    "Pricer",
    "PromptAllow",
    "PromptBlock",
    "PromptDecision",
    "PromptSource",
    "PromptVariant",
    "ReplyBlock",
    "ReplyDecision",
    "ReplyKeep",
    "ReplyRewrite",
    "RequestAnswer",
    "RequestDecision",
    "RequestRewrite",
    "RequestSend",
    "SessionEndReason",
    "SessionStartSource",
    "Settlement",
    "SetupTrigger",
    "SummaryAsk",
    "TurnResult",
    "TurnStop",
    "TurnStopDecision",
    "calling_agent",
    "dialog_notify_delay",
    "notifications_ready",
    "notify_later",
    "notify_when_idle",
    "permission_notify_delay",
    "run_notifications",
    "run_ready_notifications",
    "spend_cap",
    "subagent_plugin",
    "watch_background",
]

if TYPE_CHECKING:
    from dsh.agent._model_policy import (
        MODEL_REPLY,
        MODEL_REQUEST_POLICY,
        ModelSubstitutedEvent,
        ReplyBlock,
        ReplyDecision,
        ReplyKeep,
        ReplyRewrite,
        RequestAnswer,
        RequestDecision,
        RequestRewrite,
        RequestSend,
    )
    from dsh.agent._notify_later import (
        PERMISSION_NOTIFY_SECONDS,
        dialog_notify_delay,
        notify_later,
        notify_when_idle,
        permission_notify_delay,
    )
    from dsh.agent._spend_cap import SPEND_CAP_KIND, Pricer, spend_cap
    from dsh.agent._subagent_input import AgentToolInput
    from dsh.agent._subagent_tools import AGENT_TOOL, subagent_plugin

publish(globals())

__getattr__ = lazy(
    globals(),
    {
        # The model-call policies: loaded by the first plugin that names them (the loop
        # looks for the module, so a run without one never imports it).
        "dsh.agent._model_policy": (
            "MODEL_REPLY",
            "MODEL_REQUEST_POLICY",
            "ModelSubstitutedEvent",
            "ReplyBlock",
            "ReplyDecision",
            "ReplyKeep",
            "ReplyRewrite",
            "RequestAnswer",
            "RequestDecision",
            "RequestRewrite",
            "RequestSend",
        ),
        "dsh.agent._spend_cap": ("SPEND_CAP_KIND", "Pricer", "spend_cap"),
        # A front end's question that waits (the terminal's, an ACP client's).
        "dsh.agent._notify_later": (
            "PERMISSION_NOTIFY_SECONDS",
            "dialog_notify_delay",
            "notify_later",
            "notify_when_idle",
            "permission_notify_delay",
        ),
        "dsh.agent._subagent_tools": ("AGENT_TOOL", "subagent_plugin"),
        "dsh.agent._subagent_input": ("AgentToolInput",),  # pydantic comes with it
    },
)
