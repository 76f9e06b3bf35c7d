"""The slash commands dsh runs itself in an ACP session (not sent to the model).

``COMMANDS_UPDATE`` is the ``available_commands_update`` a session sends once the
client knows it (after ``session/new``'s answer; at the end of ``session/load``'s
replay), so the editor can offer them; ``slash_command`` tells a prompt that is one
of them (its text alone: ``/compact keep the API notes``) from one to send on.
"""

from __future__ import annotations

from typing import Final

from acp.helpers import update_available_commands
from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    UnstructuredCommandInput,
)

from dsh.messages import Content

__all__ = ["COMMANDS", "commands_update", "slash_command"]

COMMANDS: Final = {
    "compact": (
        "Compact the conversation: PreCompact, a summary in place of the history, "
        "SessionStart compact, PostCompact (as Claude Code's /compact)",
        "instructions for the summary (optional)",
    ),
}
"""Each command dsh runs: its description and the hint for what may follow it."""


def commands_update() -> AvailableCommandsUpdate:
    """The session's ``available_commands_update``."""
    update: AvailableCommandsUpdate = update_available_commands(
        AvailableCommand(
            name=name,
            description=description,
            input=AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)),
        )
        for name, (description, hint) in COMMANDS.items()
    )
    return update


def slash_command(content: Content) -> tuple[str, str] | None:
    """``(name, the rest)`` when ``content`` is one of ``COMMANDS`` as text, else ``None``."""
    if not isinstance(content, str):
        return None
    text = content.strip()
    if not text.startswith("/"):
        return None
    word, _, rest = text[1:].partition(" ")
    if word not in COMMANDS:
        return None
    return word, rest.strip()
