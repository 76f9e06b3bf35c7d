"""The agent loop: ``Agent``, its seams and decisions, subagents and compaction.

A native hook is an ordinary plugin: it subscribes to these channels (and to
``dsh.tools``'s) and returns the typed decisions below.
"""

from dsh.agent._agent import Agent, CancelWhen, TurnResult
from dsh.agent._channels import (
    POST_COMPACT,
    POST_TOOL_BATCH,
    PRE_COMPACT,
    PROMPT_SUBMIT,
    SESSION_END,
    SESSION_START,
    SUBAGENT_END,
    SUBAGENT_START,
    TURN_CONTINUATION,
    TURN_ERROR,
    TURN_STOP,
)
from dsh.agent._decisions import (
    CompactRequest,
    CompactTrigger,
    ContinuationDecision,
    ContinuationState,
    Notice,
    NoticeLevel,
    PostToolBatchDecision,
    PreCompactDecision,
    PromptDecision,
    PromptSource,
    SessionEndReason,
    SessionStartSource,
    SteeringSource,
    TurnStop,
    TurnStopDecision,
)
from dsh.agent._subagent import AGENT_TOOL, AgentToolInput, subagent_plugin

__all__ = [
    "AGENT_TOOL",
    "POST_COMPACT",
    "POST_TOOL_BATCH",
    "PRE_COMPACT",
    "PROMPT_SUBMIT",
    "SESSION_END",
    "SESSION_START",
    "SUBAGENT_END",
    "SUBAGENT_START",
    "TURN_CONTINUATION",
    "TURN_ERROR",
    "TURN_STOP",
    "Agent",
    "AgentToolInput",
    "CancelWhen",
    "CompactRequest",
    "CompactTrigger",
    "ContinuationDecision",
    "ContinuationState",
    "Notice",
    "NoticeLevel",
    "PostToolBatchDecision",
    "PreCompactDecision",
    "PromptDecision",
    "PromptSource",
    "SessionEndReason",
    "SessionStartSource",
    "SteeringSource",
    "TurnResult",
    "TurnStop",
    "TurnStopDecision",
    "subagent_plugin",
]
