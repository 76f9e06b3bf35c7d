"""``dsh run``'s machine and configuration flags, declared with click alone.

``io_options`` adds ``--output-format``, ``--input-format``,
``--system-prompt``, ``--append-system-prompt``, ``-c/--continue``,
``--resume [ID]`` and ``--plugin`` to the command; nothing heavier is imported
to declare them (``dsh --version`` pays only for click).
``dsh.cli._run_settle.settle`` turns them into a run's settings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

__all__ = ["IO_KEYS", "io_options"]

IO_KEYS = (
    "output_format",
    "input_format",
    "system_prompt",
    "append_system_prompt",
    "continue_session",
    "resume",
    "plugins",
    "verbose",
)


def io_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The flags this module settles, added to ``f`` (``dsh run``)."""
    options = [
        click.option(
            "--output-format",
            type=click.Choice(["text", "json", "stream-json"]),
            default=None,
            help="Claude Code's -p output: text (the final answer), json (the result object) "
            "or stream-json (one event a line). Default: the transcript (or output_format "
            "from the config).",
        ),
        click.option(
            "--verbose",
            is_flag=True,
            help="Accepted as claude -p takes it (scripts pass it with --output-format "
            "stream-json); dsh's stream-json always carries every event.",
        ),
        click.option(
            "--input-format",
            type=click.Choice(["text", "stream-json"]),
            default="text",
            show_default=True,
            help="stream-json: read user messages from stdin, one JSON object a line, as "
            "claude -p --input-format stream-json (each is a turn).",
        ),
        click.option(
            "--system-prompt",
            default=None,
            help="Replace dsh's system prompt (the environment block is still added).",
        ),
        click.option(
            "--append-system-prompt",
            default=None,
            help="Add this text after dsh's system prompt.",
        ),
        click.option(
            "-c",
            "--continue",
            "continue_session",
            is_flag=True,
            help="Continue the latest session of this project.",
        ),
        click.option(
            "--resume",
            is_flag=False,
            flag_value="",
            default=None,
            metavar="[ID]",
            help="Continue the session with this id (a unique prefix will do); with no ID, "
            "pick one of this project's sessions at a terminal, else the latest. It runs in "
            "the directory it was created in.",
        ),
        click.option(
            "--plugin",
            "plugins",
            multiple=True,
            metavar="MODULE:FUNCTION",
            help="Mount a native plugin (a function taking the Context); repeatable; replaces "
            "the config's plugins. MODULE is imported from the current directory too.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f
