"""What each permission mode lets a call do by itself, and the Bash commands that only read.

``READ_ONLY_COMMANDS`` (and ``READ_ONLY_GIT``) are the commands that run
without asking in ``default`` mode, as far as Claude Code 2.1.332's recordings
and reference show (``echo``, ``ls``, ``cat``, ``git status`` run; ``touch``,
``rm`` and any output redirection to a file ask). ``FILE_COMMANDS`` are the
commands ``acceptEdits`` lets change files inside the working directories.
docs/permissions.md lists them.
"""

from __future__ import annotations

import os.path
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final, Literal, TypeAlias

from dsh.base._real_path import real_path_or_self
from dsh.hooks.claude.rules._bash import SimpleCommand

__all__ = [
    "FILE_COMMANDS",
    "NO_PERMISSION_TOOLS",
    "READ_ONLY_COMMANDS",
    "READ_ONLY_GIT",
    "PermissionMode",
    "inside",
    "inside_real",
    "is_read_only",
    "written_paths",
]

PermissionMode: TypeAlias = Literal[
    "default", "acceptEdits", "plan", "auto", "bypassPermissions", "dontAsk"
]
"""Claude Code's permission modes, as hooks are sent them (``permission_mode``)."""

READ_ONLY_COMMANDS: Final = frozenset(
    {
        "[", "basename", "cat", "cd", "cksum", "cmp", "column", "comm", "cut", "date", "df",
        "diff", "dirname", "du", "echo", "egrep", "false", "fgrep", "file", "grep", "head",
        "hexdump", "hostname", "id", "jq", "ls", "md5sum", "nl", "od", "printenv", "printf",
        "pwd", "readlink", "realpath", "rg", "seq", "sha1sum", "sha256sum", "sleep", "stat",
        "tail", "test", "tr", "tree", "true", "type", "uname", "wc", "which", "whoami",
    }
)  # fmt: skip
"""Bash commands that read only (with the argument checks of ``is_read_only``)."""

READ_ONLY_GIT: Final = frozenset(
    {
        "blame", "describe", "diff", "grep", "log", "ls-files", "ls-tree", "rev-parse",
        "shortlog", "show", "status",
    }
)  # fmt: skip
"""``git`` subcommands that read only; ``branch``, ``tag`` and ``remote`` only list bare."""

_LISTING_GIT: Final = frozenset({"branch", "tag", "remote"})
_FIND_WRITES: Final = frozenset(
    {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}
)

FILE_COMMANDS: Final = frozenset({"cp", "mkdir", "mv", "rm", "rmdir", "sed", "touch"})
"""Commands that change files and that ``acceptEdits`` runs inside the working directories."""

_WRITING_COMMANDS: Final = FILE_COMMANDS | {"chmod", "chown", "ln", "tee", "truncate"}

NO_PERMISSION_TOOLS: Final = frozenset(
    {
        "Agent", "AskUserQuestion", "ExitPlanMode", "ListAgents", "Skill", "Task",
        "TaskCreate", "TaskGet", "TaskList", "TaskOutput", "TaskStop", "TaskUpdate",
        "TodoRead", "TodoWrite", "ToolSearch",
    }
)  # fmt: skip
"""Tools Claude Code never asks about (they change no files themselves)."""


def is_read_only(command: SimpleCommand) -> bool:
    """Whether one simple command only reads (and redirects no output into a file)."""
    if command.writes or not command.words:
        return not command.writes
    name, args = command.words[0], command.words[1:]
    if name == "git":
        return _git_read_only(args)
    if name not in READ_ONLY_COMMANDS | {"find", "sort", "uniq", "env"}:
        return False
    if name == "find":
        return not any(a in _FIND_WRITES for a in args)
    if name == "sort":
        return not any(a == "-o" or a.startswith(("-o", "--output")) for a in args)
    if name == "uniq":
        return len([a for a in args if not a.startswith("-")]) <= 1
    if name == "env":
        return not args
    return True


def _git_read_only(args: Sequence[str]) -> bool:
    words = [a for a in args if not a.startswith("-")]
    if not words or any(
        a.startswith(("-c", "--exec-path", "--git-dir", "--work-tree")) for a in args
    ):
        return False
    sub, rest = words[0], words[1:]
    if sub in READ_ONLY_GIT:
        return not (sub == "diff" and any(a.startswith("--output") for a in args))
    if sub in _LISTING_GIT:
        flags = [a for a in args if a.startswith("-")]
        return not rest and all(f in ("-a", "-r", "-v", "-vv", "--list", "-l") for f in flags)
    return False


def written_paths(command: SimpleCommand, cwd: Path) -> tuple[Path, ...]:
    """The files a simple command creates, changes or removes, as far as its words say."""
    targets = list(command.writes)
    if command.words and command.words[0] in _WRITING_COMMANDS:
        targets.extend(a for a in command.words[1:] if not a.startswith("-"))
    out: list[Path] = []
    for t in targets:
        p = Path(t).expanduser()
        out.append(Path(os.path.normpath(p if p.is_absolute() else cwd / p)))
    return tuple(out)


def inside(path: Path, directories: Iterable[Path]) -> Path | None:
    """The working directory ``path`` is in, or ``None``."""
    for d in directories:
        if path == d or d in path.parents:
            return d
    return None


def inside_real(path: Path, directories: Sequence[Path]) -> Path | None:
    """The working directory ``path`` is in both as written (normalized) and where it really
    is, symbolic links followed for the file and each parent (``real_path``), or ``None``.

    ``path`` is absolute and may keep its ``..``: after a link, the kernel reads ``..`` as
    the link target's parent, and so does ``real_path``."""
    home = inside(Path(os.path.normpath(path)), directories)
    if home is None:
        return None
    real = real_path_or_self(path)
    return home if inside(real, [real_path_or_self(d) for d in directories]) else None
