"""The interactive session's slash commands: one table, as Claude Code 2.1.332 names them.

``COMMANDS`` maps each ``/name`` to a ``SlashCommand``: what ``/help`` and Tab completion
show (its description and the hint for what may follow it) and the coroutine that runs it
against the session (a ``Repl``). ``register`` adds one: the place another part of dsh puts
its command (``_slash_builtin.BUILTIN`` holds dsh's own: ``/agents`` and ``/mcp``, issue
31's and 30's, are rows to add there). A prompt whose
first word is not in the table goes to the agent as it is, as ``dsh run`` sends it (the
Claude Code bridge expands a project's custom commands and skills).

The commands that only read (``/status``, ``/cost``, ``/permissions``, ``/memory``,
``/config``, ``/doctor``, ``/hooks``) print a report and start no turn; ``/init`` is a
turn (the model is asked to write ``CLAUDE.md``, as Claude Code's ``/init`` asks it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, Protocol, final

from dsh._frozen import frozen

if TYPE_CHECKING:
    from dsh.cli._run import RunOptions
    from dsh.cli._terminal import TerminalHost

__all__ = ["COMMANDS", "Repl", "SlashCommand", "command_of", "help_text", "register"]


class Repl(Protocol):
    """What a command may use of the interactive session."""

    term: TerminalHost
    options: RunOptions
    leaving: bool

    def say(self, text: str) -> None:
        """Print ``text`` as it is (escaped for the terminal, no markup)."""

    async def guarded(self, work: Awaitable[Any], *, cancellable: bool = False) -> Any:
        """Run ``work`` so that Ctrl-C or Esc interrupts it; its result, or ``None``
        (``cancellable``: work that is not a turn, cancelled outright)."""

    async def send(self, text: str) -> None:
        """Run ``text`` as the user's prompt: a turn."""

    def recent_history(self) -> None:
        """Show the current session's last turns."""


Run = Callable[["Repl", str], Awaitable[None]]


@final
@frozen
class SlashCommand:
    """One ``/name``: ``description`` and ``hint`` for ``/help`` and completion; ``run`` gets
    the session and what followed the name (stripped)."""

    name: str
    description: str
    run: Run
    hint: str = ""


COMMANDS: Final[dict[str, SlashCommand]] = {}
"""Every slash command, by its ``/name`` (aliases are entries of their own)."""


def register(command: SlashCommand, *aliases: str) -> SlashCommand:
    """Add ``command`` (and its ``aliases``, each a ``/name``) to the table."""
    for name in (command.name, *aliases):
        COMMANDS[name] = command
    return command


def command_of(text: str) -> tuple[SlashCommand, str] | None:
    """The command ``text`` runs and what follows its name, or ``None`` for a prompt."""
    if not text.startswith("/"):
        return None
    word, _, rest = text.partition(" ")
    command = COMMANDS.get(word)
    return None if command is None else (command, rest.strip())


def help_text() -> str:
    """``/help``'s lines: each command with its hint and description, then the keys."""
    lines = []
    for name, command in sorted(COMMANDS.items()):
        if name != command.name:
            continue
        usage = f"{name} {command.hint}".strip()
        lines.append(f"{usage:<26} {command.description}")
    lines += [
        "",
        "@path attaches a file (Tab completes it); !command runs it in the shell, and its",
        "output joins the conversation. Esc or Ctrl-C interrupts the running turn; Ctrl-C",
        "twice (or Ctrl-D) leaves.",
    ]
    return "\n".join(lines)
