"""Bare ``dsh`` as ``claude`` is typed: ``dsh [PROMPT]``, ``dsh -p PROMPT``, ``-c``, ``-r [ID]``.

``FrontGroup`` is the ``dsh`` group: the first word that is not an option (nor an
option's value) names a subcommand when it is one (``dsh log``, ``dsh hooks check``),
as ``claude mcp`` does; otherwise every word is the prompt and the group's own
options (``dsh run``'s, plus Claude Code's ``-p/--print``, ``--max-turns``,
``--allowedTools``, ``--disallowedTools``) say how it runs. As with ``claude``, with
``-p`` before it, or after ``--``, a subcommand's name is a prompt
(``dsh -p log``, ``dsh -- log``). Declared with click alone; the work is ``_front``'s.

The place for a session flag Claude Code has and dsh adds later (``--mcp-config``, issue 30)
is ``dsh run``'s declaration (``_run_flags``): ``front_params`` gives the group every one of
``run``'s options, so bare ``dsh`` takes it as ``dsh run`` does (a test holds this).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any, Final

import click

__all__ = ["PROMPT_KEY", "FrontGroup", "front_params"]

PROMPT_KEY: Final = "dsh.front.prompt"
"""Where the group's context keeps the prompt's words (``ctx.meta``)."""
_SUBCOMMAND_ONLY: Final = "dsh.front.subcommand-only"
"""Set (``ctx.meta``) when the command line starts with a subcommand's name."""

_OWN: Final[tuple[click.Parameter, ...]] = (
    click.Option(
        ["-p", "--print", "print_mode"],
        is_flag=True,
        help="Print the response and exit, as `dsh run` (and `claude -p`): the prompt is "
        "PROMPT, else standard input.",
    ),
    click.Option(
        ["--max-turns"],
        type=click.IntRange(min=1),
        default=None,
        help="The most model replies a turn may take (dsh's --max-steps).",
    ),
    click.Option(
        ["--allowedTools", "--allowed-tools", "allowed_tools"],
        multiple=True,
        metavar="TOOLS",
        help='Permission rules to allow, comma or space separated (e.g. "Bash(git *) Edit"); '
        "repeatable; one argument each (quote a list).",
    ),
    click.Option(
        ["--disallowedTools", "--disallowed-tools", "disallowed_tools"],
        multiple=True,
        metavar="TOOLS",
        help="Permission rules to deny, as --allowedTools.",
    ),
)


def front_params(group: click.Group, run: click.Command) -> list[click.Parameter]:
    """The group's options: ``run``'s (not its PROMPT argument nor what the group has
    already, ``--debug``), then Claude Code's own."""
    have = {p.name for p in group.params}
    options = [p for p in run.params if isinstance(p, click.Option) and p.name not in have]
    return options + list(_OWN)


class FrontGroup(click.Group):
    """``dsh``: a subcommand, or Claude Code's command line (see the module).

    Subcommands may be declared later (``declare_later``): their names are known at once,
    their declarations made when one of them is first looked up or the commands are listed
    (``commands``, ``dsh --help``); a command declared with the group (``run``) is found
    without them."""

    later_names: frozenset[str] = frozenset()
    _declare: Callable[[], None] | None = None

    def declare_later(self, names: frozenset[str], declare: Callable[[], None]) -> None:
        """``declare`` adds the commands ``names`` to this group when first needed."""
        self.later_names = names
        self._declare = declare

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        """Every subcommand: the later ones are declared now if they were not yet."""
        declare, self._declare = self._declare, None
        if declare is not None:
            declare()
        return self._commands

    @commands.setter
    def commands(self, value: MutableMapping[str, click.Command]) -> None:
        self._commands = value

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        declared = self._commands.get(cmd_name)
        return declared if declared is not None else super().get_command(ctx, cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and self._names_command(args[0]):
            # `dsh run ...`: no option of the group's before its subcommand, so each would
            # take its default, which only bare `dsh` reads; parsed without them (``get_params``),
            # ~0.4 ms of click for its ~40 options on every `dsh run`.
            ctx.meta[_SUBCOMMAND_ONLY] = True
            return super().parse_args(ctx, args)
        if self._subcommand_first(args):
            return super().parse_args(ctx, args)
        ctx.allow_interspersed_args = True  # `dsh "fix it" --model x`, as claude takes it
        rest = click.Command.parse_args(self, ctx, args)
        ctx.meta[PROMPT_KEY] = tuple(rest)
        ctx.args = []
        return []

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        return [] if ctx.meta.get(_SUBCOMMAND_ONLY) else super().get_params(ctx)

    def _names_command(self, word: str) -> bool:
        return word in self._commands or word in self.later_names

    def _subcommand_first(self, args: list[str]) -> bool:
        """Whether the first word that is not an option names a subcommand (no ``-p`` or
        ``--`` before it)."""
        valued, optional = _value_options(self.params)
        words = iter(args)
        for word in words:
            if word == "--" or word in ("-p", "--print"):
                return False
            if not word.startswith("-") or word == "-":
                return self._names_command(word)
            if "=" in word:
                continue
            if word in valued:
                next(words, None)
            elif word in optional:
                following = next(words, None)
                if following is not None and following.startswith("-"):
                    return self._subcommand_first([following, *words])
        return False


def _value_options(params: list[click.Parameter]) -> tuple[set[str], set[str]]:
    """The option names that take a value, and those whose value is optional (``-r [ID]``)."""
    valued: set[str] = set()
    optional: set[str] = set()
    for param in params:
        if not isinstance(param, click.Option) or param.is_flag or param.count:
            continue
        names = {*param.opts, *param.secondary_opts}
        target = optional if _optional_value(param) else valued
        target.update(names)
    return valued, optional


def _optional_value(param: click.Option) -> Any:
    return getattr(param, "_flag_needs_value", False)
