"""The slash commands dsh runs itself in an ACP session (not sent to the model).

``COMMANDS`` is what the session's ``available_commands_update`` offers (sent once the
client knows the session: after ``session/new``'s answer, at the end of ``session/load``'s
replay), so the editor can offer them; ``slash_command`` tells a prompt that is one of them
(its text alone: ``/compact keep the API notes``) from one to send on. ``report`` answers the
ones that only say something (``/model``, ``/status``, ``/cost``, ``/permissions``,
``/memory``); ``/compact`` and ``/init`` are the session's (a compaction; a turn).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from acp.helpers import update_available_commands
from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    UnstructuredCommandInput,
)

from dsh.agent import Agent, ModelSwitchDeny
from dsh.base import DshError
from dsh.messages import Content, Usage
from dsh.models import Model

__all__ = ["COMMANDS", "commands_update", "report", "slash_command", "switch_model"]

COMMANDS: Final = {
    "compact": (
        "Compact the conversation: PreCompact, a summary in place of the history, "
        "SessionStart compact, PostCompact (as Claude Code's /compact)",
        "instructions for the summary (optional)",
    ),
    "init": ("Ask the model to write a CLAUDE.md for this project", "what to stress (optional)"),
    "model": ("Show the model, or switch to another (PreModelSwitch may refuse)", "model name"),
    "status": ("Show dsh's version, the session, the model and the permission mode", ""),
    "cost": ("Show the tokens this session's model calls used", ""),
    "permissions": (
        "Show the permission mode, working directories and rules; add or remove a rule",
        "[add|remove allow|ask|deny RULE [local|project|user|session]]",
    ),
    "memory": ("Show the memory files (CLAUDE.md) in context", ""),
}
"""Each command dsh runs: its description and the hint for what may follow it."""


def commands_update() -> AvailableCommandsUpdate:
    """The session's ``available_commands_update``."""
    update: AvailableCommandsUpdate = update_available_commands(
        AvailableCommand(
            name=name,
            description=description,
            input=AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None,
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


async def switch_model(agent: Agent, name: str, resolve: Callable[[str], Model]) -> str | None:
    """Switch ``agent`` to the model ``name`` names; why not, or ``None`` once switched."""
    try:
        model = resolve(name)
    except (DshError, OSError, ValueError) as exc:
        return f"Model {name!r} is not available: {exc}"
    decision = await agent.switch_model(model, requested=name, source="command")
    if isinstance(decision, ModelSwitchDeny):
        return (
            f"Model switch to {model.name} was blocked by a PreModelSwitch hook: {decision.reason}"
        )
    return None


async def report(
    name: str, rest: str, *, agent: Agent, state: Any | None, resolve: Callable[[str], Model]
) -> str:
    """What ``/name rest`` says (``/model NAME`` switches first)."""
    if name == "model":
        if not rest:
            return f"Current model: {agent.model.name}"
        said = await switch_model(agent, rest, resolve)
        return said or f"Set model to `{agent.model.name}` for this session only"
    if name == "status":
        from dsh import __version__

        lines = [
            f"dsh {__version__}",
            f"Session ID: {agent.session_id}",
            f"cwd: {agent.workspace.cwd}",
            f"Model: {agent.model.name}",
        ]
        if state is not None:
            lines.append(f"Permission mode: {state.mode} ({state.mode_source})")
        return "\n".join(lines)
    if name == "cost":
        total, replies = Usage(), 0
        for event in agent.events:
            if event.type == "assistant/message":
                replies += 1
                usage = getattr(event, "usage", None)
                total = total + usage if usage is not None else total
        return (
            f"Model replies: {replies}\nUsage: {total.input_tokens} input, "
            f"{total.output_tokens} output, {total.cache_read_input_tokens} cache read, "
            f"{total.cache_creation_input_tokens} cache write (tokens)"
        )
    if name == "permissions":
        if state is None:
            return "No permission rules."
        if rest.strip():  # add|remove BEHAVIOR RULE [WHERE]: where 2.1.332 writes the rule
            return "\n".join(state.edit(rest.strip()))
        return "\n".join([*state.report(), *state.edit("")])
    assert name == "memory"
    from dsh.instructions import find_instructions

    found = find_instructions(agent.workspace.cwd, config_dir=_claude_config_dir())
    lines = [f"  {f.file.scope:<8} {f.file.path}" for f in found] or ["  (none)"]
    return "\n".join(["Memory files in context:", *lines])


def _claude_config_dir() -> Path:
    given = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(given).expanduser() if given else Path.home() / ".claude"
