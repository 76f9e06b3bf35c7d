"""The ``Skill`` tool's pydantic input model (imported when there is a skill to offer)."""

# No ``from __future__ import annotations``: pydantic reads the annotations as objects.
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SkillInput"]


class SkillInput(BaseModel):
    """The ``Skill`` tool's input, as Claude Code names it."""

    model_config = ConfigDict(extra="ignore")

    skill: str = Field(description='The skill name, e.g. "commit" or "review-pr"')
    args: str | None = Field(default=None, description="Optional arguments for the skill")
