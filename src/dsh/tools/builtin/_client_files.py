"""The seam through which Read, Write, Edit and MultiEdit reach an editor's files.

An ACP client that offers ``fs/read_text_file`` and ``fs/write_text_file`` holds the
truth about a file it has open (an unsaved buffer wins over the disk). Its session sets
``CLIENT_FILES`` around each call it runs; the tools then read the text through
``read_text`` and write it through ``write_text``. With nothing set (``dsh run``), or
for what the client does not offer, both are the disk, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Final, Protocol

__all__ = ["CLIENT_FILES", "ClientFiles", "read_text", "write_text"]


class ClientFiles(Protocol):
    """An editor's files: ``read`` is ``None`` when the client does not have the file (the
    disk answers); ``write`` is ``False`` when the client does not write files."""

    async def read(self, path: Path, /) -> str | None: ...

    async def write(self, path: Path, text: str, /) -> bool: ...


CLIENT_FILES: Final[ContextVar[ClientFiles | None]] = ContextVar("dsh.client_files", default=None)


async def read_text(path: Path, disk: Callable[[Path], str]) -> str:
    """``path``'s text: the client's (its buffer) if it has it, else ``disk(path)``."""
    files = CLIENT_FILES.get()
    text = await files.read(path) if files is not None else None
    return disk(path) if text is None else text


async def write_text(path: Path, text: str, disk: Callable[[Path, str], None]) -> None:
    """Write ``text`` to ``path``: through the client if it writes files, else ``disk``."""
    files = CLIENT_FILES.get()
    if files is None or not await files.write(path, text):
        disk(path, text)
