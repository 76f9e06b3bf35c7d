"""The ``SendMessage`` tool's pydantic input model (imported at the tool's first call)."""

# No ``from __future__ import annotations``: pydantic reads the annotations as objects.
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SendMessageInput"]


class SendMessageInput(BaseModel):
    """SendMessage's input, as 2.1.332 names it (its schema: ``_send_message_text``)."""

    model_config = ConfigDict(extra="forbid")

    to: str = Field(max_length=300, pattern=r"^[^\n\r]*$")
    summary: str | None = None
    message: str = ""
    notify_when_idle: bool | None = None
