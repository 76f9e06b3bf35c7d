"""The ``Agent`` tool's pydantic input model (imported at the tool's first call)."""

# No ``from __future__ import annotations``: pydantic reads the annotations as objects.
from pydantic import BaseModel, ConfigDict, Field

from dsh.agent._subagent_tools import DEFAULT_SUBAGENT_TYPE

__all__ = ["AgentToolInput"]


class AgentToolInput(BaseModel):
    """The ``Agent`` tool's input, as Claude Code names it."""

    model_config = ConfigDict(extra="ignore")

    description: str = Field(description="A short (3-5 word) description of the task")
    prompt: str = Field(description="The task for the subagent to perform")
    subagent_type: str = Field(
        default=DEFAULT_SUBAGENT_TYPE, description="The type of specialized agent to use"
    )
    run_in_background: bool | None = Field(
        default=None,
        description="Run the agent in the background (the default): the call returns at"
        " once, and a notification arrives when it finishes; false waits for its answer",
    )
