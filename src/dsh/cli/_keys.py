"""``WorkKeys``: the keys a person presses while a turn (or a ``!command``) runs.

Between prompts the terminal is in cooked mode, so Esc would wait for Enter and typed text
would echo over the live output. While work runs, ``watching`` puts standard input in
cbreak mode without echo (Ctrl-C still raises SIGINT, which the session handles) and reads
it: a lone Esc calls ``escape``; other text is kept (``pending``) for whoever reads next, as a
terminal keeps type-ahead: an approval question takes a line typed before it was asked as its
answer, and the prompt after the turn starts with the rest (a whole line is the next prompt).
An approval question takes the terminal meanwhile: ``suspend(True)`` gives it back,
``suspend(False)`` takes it again. Nothing happens when standard input is not a terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import termios
from collections.abc import Callable, Iterator
from typing import Any, Final

__all__ = ["WorkKeys"]

_ESC: Final = b"\x1b"


class WorkKeys:
    """Reads standard input while work runs (see the module)."""

    def __init__(self, escape: Callable[[], None]) -> None:
        self._escape = escape
        self.pending = ""
        """What was typed while work ran, not read by anyone yet (``\n`` ends a line)."""
        self._fd: int | None = None
        self._saved: list[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        if self._fd is not None or not _is_terminal():
            yield
            return
        self._fd = sys.stdin.fileno()
        self._loop = asyncio.get_running_loop()
        try:
            self._take()
            yield
        finally:
            self._give_back()
            self._fd = None

    def suspend(self, paused: bool) -> None:
        """An approval question starts (``True``) or ends (``False``) while watching."""
        if self._fd is None:
            return
        if paused:
            self._give_back()
        else:
            self._take()

    def _take(self) -> None:
        fd, loop = self._fd, self._loop
        if fd is None or loop is None or self._saved is not None:
            return
        try:
            saved = termios.tcgetattr(fd)
            quiet = list(saved)
            quiet[3] &= ~(termios.ICANON | termios.ECHO)
            quiet[6] = list(quiet[6])
            quiet[6][termios.VMIN] = 1
            quiet[6][termios.VTIME] = 0
            termios.tcsetattr(fd, termios.TCSANOW, quiet)
        except (termios.error, OSError):
            return
        self._saved = saved
        loop.add_reader(fd, self._read)

    def _give_back(self) -> None:
        fd, loop, saved = self._fd, self._loop, self._saved
        if fd is None or saved is None:
            return
        self._saved = None
        if loop is not None:
            loop.remove_reader(fd)
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(fd, termios.TCSANOW, saved)

    def _read(self) -> None:
        fd = self._fd
        if fd is None:
            return
        try:
            data = os.read(fd, 1024)
        except OSError:
            data = b""
        if not data:  # the terminal closed: stop reading it
            self._give_back()
            return
        if data == _ESC:
            self._escape()
            return
        if data.startswith(_ESC):  # an arrow or function key: nothing to keep
            return
        text = data.decode("utf-8", errors="replace").replace("\r", "\n")
        self.pending += "".join(c for c in text if c in " \n" or c.isprintable())

    def take_line(self) -> tuple[str, bool]:
        """The first line typed ahead and whether Enter ended it (then it is an answer);
        what is taken is no longer pending."""
        line, enter, rest = self.pending.partition("\n")
        self.pending = rest
        return line, bool(enter)


def _is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False
