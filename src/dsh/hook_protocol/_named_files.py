"""The files of a project a hook's command line names (the scripts it runs), with digests.

Both bridges put them in a project hook's trust fingerprint, so editing the
script a trusted hook runs needs trust again, as changing the hook does. A
word of the command (split as a POSIX shell would, else on whitespace) or of
its ``args`` names a file when, once the given variables (``$NAME`` or
``${NAME}``) are replaced by their values, it is a path (relative to the
project, or absolute) of a regular file inside the project or one of the
extra roots. A file a script reads or imports on its own is not named.

A review of many hooks passes one ``FileDigests``: each root and each path a
word names is resolved, and each file hashed, once however many hooks name it
(a suite of thousands of hooks that all run one script costs one digest, not
thousands).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, final

from dsh.hook_protocol._trust_record import file_digest

__all__ = ["FileDigests", "named_files"]

_MAX_WORDS: Final = 64
"""Words of a command looked at (a hostile command line costs bounded work)."""


_QUOTING: Final = re.compile(r"['\"\\]")
_SHELL_BLANKS: Final = re.compile(r"[ \t\r\n]+")
"""What ``shlex`` splits on (not every Unicode space, as ``str.split`` would)."""


def _words(command: str, args: Sequence[str]) -> list[str]:
    if _QUOTING.search(command) is None:
        # No quote or escape: what shlex would give, ten times faster (most commands).
        words = [word for word in _SHELL_BLANKS.split(command) if word]
    else:
        try:
            words = shlex.split(command)
        except ValueError:  # an unbalanced quote: the shell will fail too, look at words anyway
            words = command.split()
    return [*words, *args][:_MAX_WORDS]


@final
class FileDigests:
    """The resolved roots, the files the words name and their digests of one review, each
    found once.

    Only for the span of one review (one load, one ``dsh hooks trust``): a file
    edited afterwards is hashed again by the next review.
    """

    __slots__ = ("_digests", "_files", "_roots")

    def __init__(self) -> None:
        self._roots: dict[Path, Path] = {}
        self._digests: dict[Path, str | None] = {}
        self._files: dict[str, Path | None] = {}

    def file(self, path: str) -> Path | None:
        """``path`` resolved when it is a regular file (once), else ``None``."""
        if path in self._files:
            return self._files[path]
        found: Path | None = None
        # Most words (a program on PATH, an argument) name no file: one stat says so
        # (and a word that is no regular file could have no digest anyway).
        try:
            if os.path.isfile(path):
                found = Path(path).resolve()
        except (OSError, ValueError, RuntimeError):
            found = None
        self._files[path] = found
        return found

    def root(self, path: Path) -> Path:
        """``path`` resolved (once)."""
        resolved = self._roots.get(path)
        if resolved is None:
            resolved = self._roots[path] = path.resolve()
        return resolved

    def digest(self, path: Path) -> str | None:
        """``file_digest(path)`` (once); ``path`` is resolved."""
        if path not in self._digests:
            self._digests[path] = file_digest(path)
        return self._digests[path]


def named_files(
    command: str,
    project: Path,
    *,
    args: Sequence[str] = (),
    variables: Mapping[str, str] | None = None,
    roots: Sequence[tuple[str, Path]] = (),
    digests: FileDigests | None = None,
) -> dict[str, str]:
    """Each regular file inside ``project`` (or a folder of ``roots``, tried first) that
    ``command`` or ``args`` names, by its path relative to its root (prefixed with the
    root's name, ``""`` for the project), to its ``file_digest``. ``digests``: the
    review's, shared by its hooks."""
    digests = digests if digests is not None else FileDigests()
    folders = [*((name, digests.root(root)) for name, root in roots)]
    folders.append(("", digests.root(project)))
    found: dict[str, str] = {}
    base = str(project)
    base = base if base.endswith("/") else base + "/"
    for word in _words(command, args):
        if variables and "$" in word:
            for name, value in variables.items():
                word = word.replace("${" + name + "}", value).replace("$" + name, value)
        if not word or "\x00" in word:
            continue
        resolved = digests.file(word if word.startswith("/") else base + word)
        if resolved is None:
            continue
        for prefix, root in folders:
            if resolved == root or not resolved.is_relative_to(root):
                continue
            digest = digests.digest(resolved)
            if digest is not None:
                found[prefix + str(resolved.relative_to(root))] = digest
            break
    return found
