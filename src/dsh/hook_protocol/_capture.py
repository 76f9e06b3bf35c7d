"""``Capture``: a hook process's output, bounded as it arrives, and its exit and EOF.

The executor reads a hook through this bare ``SubprocessProtocol`` rather than
stream readers: each chunk is kept up to the cap and the rest dropped as it
arrives, so memory stays bounded whatever a hook prints, and the child's exit is
seen at once even while a grandchild keeps the pipes open.
"""

from __future__ import annotations

import asyncio

__all__ = ["Capture"]


class Capture(asyncio.SubprocessProtocol):
    """Keeps the first ``cap`` bytes of stdout and stderr; notes exit and EOF."""

    def __init__(self, loop: asyncio.AbstractEventLoop, stdout_cap: int, stderr_cap: int) -> None:
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.stdout_truncated = False
        self.stderr_truncated = False
        self._stdout_cap = stdout_cap
        self._stderr_cap = stderr_cap
        self._open_outputs = 2
        self.exited: asyncio.Future[None] = loop.create_future()
        self.output_closed: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        assert isinstance(data, bytes)
        if fd == 1:
            room = self._stdout_cap - len(self.stdout)
            if len(data) <= room:
                self.stdout += data
            else:
                self.stdout += data[: max(room, 0)]
                self.stdout_truncated = True
        else:
            room = self._stderr_cap - len(self.stderr)
            if len(data) <= room:
                self.stderr += data
            else:
                self.stderr += data[: max(room, 0)]
                self.stderr_truncated = True

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        # stdin (fd 0) closing, EPIPE included, is none of our business: a hook
        # may exit or close stdin without reading its payload.
        if fd != 0:
            self._open_outputs -= 1
            if self._open_outputs == 0 and not self.output_closed.done():
                self.output_closed.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)
