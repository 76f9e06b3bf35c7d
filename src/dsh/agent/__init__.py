"""The agent loop: ``Agent``, its seams and decisions, subagents and compaction.

A native hook is an ordinary plugin: it subscribes to these channels (and to
``dsh.tools``'s) and returns the typed decisions below. The subagent names
(``AGENT_TOOL``, ``AgentToolInput``, ``subagent_plugin``) load on first use: a
run that never mounts the ``Agent`` tool never builds its input model.
"""

from typing import TYPE_CHECKING, Any

from dsh.agent._agent import Agent
from dsh.agent._background import (
    BackgroundSubagent,
    background_subagents,
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
    ContinuationVerdict,
    DisplayDecision,
    DisplayReplace,
    DisplayRequest,
    DisplayShow,
    DisplayVerdict,
    InstructionsFile,
    InstructionsLoadReason,
    InstructionsScope,
    Notice,
    NoticeLevel,
    PostToolBatchDecision,
    PostToolBatchProceed,
    PostToolBatchStop,
    PostToolBatchVerdict,
    PreCompactDecision,
    PreCompactProceed,
    PreCompactVerdict,
    PreCompactVeto,
    PromptAllow,
    PromptBlock,
    PromptDecision,
    PromptSource,
    PromptVerdict,
    SessionEndReason,
    SessionStartSource,
    SetupTrigger,
    SteeringSource,
    TurnStop,
    TurnStopDecision,
)
from dsh.agent._model_calls import (
    MODEL_REQUEST,
    MODEL_RESPONSE,
    ModelCall,
    ModelCallEnd,
    ModelCallKind,
    ModelCallStatus,
)
from dsh.agent._options import AgentOptions
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
    ModelSwitchVerdict,
)
from dsh.agent._turn import CancelWhen, TurnResult

__all__ = [
    "AGENT_TOOL",
    "COMPACTION_REPLY",
    "CWD_CHANGED",
    "DIRECTORY_ADDED",
    "INSTRUCTIONS_LOADED",
    "MESSAGE_DISPLAY",
    "MODEL_REQUEST",
    "MODEL_RESPONSE",
    "MODEL_SWITCH",
    "MODEL_SWITCHED",
    "POST_COMPACT",
    "POST_TOOL_BATCH",
    "PRE_COMPACT",
    "PROMPT_SUBMIT",
    "SESSION_END",
    "SESSION_START",
    "SETUP",
    "SUBAGENT_END",
    "SUBAGENT_START",
    "TURN_CONTINUATION",
    "TURN_ERROR",
    "TURN_STOP",
    "Agent",
    "AgentOptions",
    "AgentToolInput",
    "BackgroundSubagent",
    "CancelWhen",
    "CompactRequest",
    "CompactTrigger",
    "ContinuationContinue",
    "ContinuationDecision",
    "ContinuationState",
    "ContinuationStop",
    "ContinuationVerdict",
    "DirectorySource",
    "DisplayDecision",
    "DisplayReplace",
    "DisplayRequest",
    "DisplayShow",
    "DisplayVerdict",
    "InstructionsFile",
    "InstructionsLoadReason",
    "InstructionsScope",
    "ModelCall",
    "ModelCallEnd",
    "ModelCallKind",
    "ModelCallStatus",
    "ModelSwitchAllow",
    "ModelSwitchDecision",
    "ModelSwitchDeny",
    "ModelSwitchRequest",
    "ModelSwitchSource",
    "ModelSwitchVerdict",
    "Notice",
    "NoticeLevel",
    "PostToolBatchDecision",
    "PostToolBatchProceed",
    "PostToolBatchStop",
    "PostToolBatchVerdict",
    "PreCompactDecision",
    "PreCompactProceed",
    "PreCompactVerdict",
    "PreCompactVeto",
    "PromptAllow",
    "PromptBlock",
    "PromptDecision",
    "PromptSource",
    "PromptVerdict",
    "SessionEndReason",
    "SessionStartSource",
    "SetupTrigger",
    "SteeringSource",
    "TurnResult",
    "TurnStop",
    "TurnStopDecision",
    "background_subagents",
    "calling_agent",
    "notifications_ready",
    "run_notifications",
    "run_ready_notifications",
    "subagent_plugin",
    "watch_background",
]

if TYPE_CHECKING:
    from dsh.agent._subagent import AGENT_TOOL, subagent_plugin
    from dsh.agent._subagent_input import AgentToolInput

_SUBAGENT_NAMES = frozenset({"AGENT_TOOL", "subagent_plugin"})


def __getattr__(name: str) -> Any:
    if name in _SUBAGENT_NAMES:
        from dsh.agent import _subagent

        value = getattr(_subagent, name)
        globals()[name] = value
        return value
    if name == "AgentToolInput":  # pydantic comes with it
        from dsh.agent._subagent_input import AgentToolInput

        globals()[name] = AgentToolInput
        return AgentToolInput
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
