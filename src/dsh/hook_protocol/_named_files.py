"""The files of a project a hook's command line names (the scripts it runs), with digests.

Both bridges put them in a project hook's trust fingerprint, so editing the
script a trusted hook runs needs trust again, as changing the hook does. A
word of the command (split as a POSIX shell would, else on whitespace) or of
its ``args`` names a file when, once the given variables (``$NAME`` or
``${NAME}``) are replaced by their values, it is a path (relative to the
project, or absolute) of a regular file inside the project or one of the
extra roots. A file a script reads or imports on its own is not named.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from dsh.hook_protocol._trust_record import file_digest

__all__ = ["named_files"]

_MAX_WORDS: Final = 64
"""Words of a command looked at (a hostile command line costs bounded work)."""


def _words(command: str, args: Sequence[str]) -> list[str]:
    try:
        words = shlex.split(command)
    except ValueError:  # an unbalanced quote: the shell will fail too, look at words anyway
        words = command.split()
    return [*words, *args][:_MAX_WORDS]


def named_files(
    command: str,
    project: Path,
    *,
    args: Sequence[str] = (),
    variables: Mapping[str, str] | None = None,
    roots: Sequence[tuple[str, Path]] = (),
) -> dict[str, str]:
    """Each regular file inside ``project`` (or a folder of ``roots``, tried first) that
    ``command`` or ``args`` names, by its path relative to its root (prefixed with the
    root's name, ``""`` for the project), to its ``file_digest``."""
    folders = [*((name, root.resolve()) for name, root in roots), ("", project.resolve())]
    found: dict[str, str] = {}
    for word in _words(command, args):
        for name, value in (variables or {}).items():
            word = word.replace("${" + name + "}", value).replace("$" + name, value)
        if not word or "\x00" in word:
            continue
        try:
            resolved = (project / word).resolve()
        except (OSError, ValueError, RuntimeError):
            continue
        for prefix, root in folders:
            if resolved == root or not resolved.is_relative_to(root):
                continue
            digest = file_digest(resolved)
            if digest is not None:
                found[prefix + str(resolved.relative_to(root))] = digest
            break
    return found
