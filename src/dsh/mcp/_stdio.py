"""A stdio MCP server as a contained process: its message lines in and out, bounded.

dsh spawns the server as it spawns hooks: its environment is the configured ``env`` over
the session's environment policy (no model keys, no secrets), the process is contained
(its group, its mark, dsh's namespace: it ends with dsh, ``kill -9`` included) and ended
with everything it started when the session closes. Each message line is bounded
(``MAX_LINE``): a longer one is skipped and counted as garbage, never unbounded memory.
Standard error is kept, its last ``_STDERR_KEEP`` bytes, for the notice when the server
fails. Neither asyncio's nor the SDK's streams: a line is bytes, ``_rpc`` reads them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Final

from dsh.base._child_watcher import use_pidfd_child_watcher
from dsh.base._containment import (
    contain_process,
    contained_spawn,
    end_process_tree,
    mark_environment,
    release_process,
)
from dsh.base._process_group import own_session

if TYPE_CHECKING:
    from dsh.mcp._spec import McpServer

__all__ = ["MAX_LINE", "OVERLONG", "StdioProcess", "stdio_process"]

MAX_LINE: Final = 16 << 20
"""The longest message line a server may write (16 MiB)."""
OVERLONG: Final = b"\0overlong"
"""What ``read_line`` gives for a line over ``MAX_LINE`` (skipped)."""
_STDERR_KEEP: Final = 4096
_GRACE: Final = 0.5
"""Seconds a server has to exit once its stdin is closed, before it is killed."""


class StdioProcess:
    """The spawned server: its lines, the tail of its stderr, and how it ended."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdin is not None
        assert proc.stdout is not None
        self.proc = proc
        self._stdin = proc.stdin
        self._stdout = proc.stdout
        self.stderr = bytearray()
        self.garbage: str | None = None
        """The first line it wrote that is no MCP message (its start)."""

    def stderr_tail(self) -> str:
        return self.stderr.decode("utf-8", "replace").strip()[-_STDERR_KEEP:]

    async def read_line(self) -> bytes | None:
        """The next non-empty line (``OVERLONG`` for one too long), ``None`` at its end."""
        while True:
            try:
                line = await self._stdout.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                line = exc.partial  # the last line, unterminated, or nothing: the end
                if not line.strip():
                    return None
            except asyncio.LimitOverrunError as exc:
                await self._stdout.read(exc.consumed)  # skip the over-long line's start
                while True:  # and the rest of it, never holding more than the limit
                    try:
                        await self._stdout.readuntil(b"\n")
                        break
                    except asyncio.LimitOverrunError as more:
                        await self._stdout.read(more.consumed)
                    except asyncio.IncompleteReadError:
                        break
                return OVERLONG
            if line.strip():
                return line

    async def write(self, data: bytes) -> bool:
        """Write one line; ``False`` when the server no longer reads."""
        try:
            self._stdin.write(data + b"\n")
            await self._stdin.drain()
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            return False
        return True


async def _keep_stderr(stream: asyncio.StreamReader, process: StdioProcess) -> None:
    while chunk := await stream.read(65536):
        process.stderr += chunk
        del process.stderr[:-_STDERR_KEEP]


@contextlib.asynccontextmanager
async def stdio_process(
    server: McpServer, env: Mapping[str, str], cwd: str
) -> AsyncIterator[StdioProcess]:
    """The server spawned, ended (its whole tree) and reaped when the context is left."""
    use_pidfd_child_watcher()
    mark, marked = mark_environment({**env, **server.env})
    argv, preexec = contained_spawn([server.command, *server.args], marked, server.cwd or cwd)
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=marked,
        cwd=server.cwd or cwd,
        start_new_session=own_session(),
        process_group=None if own_session() else 0,
        preexec_fn=preexec,
        limit=MAX_LINE,
    )
    contain_process(proc.pid, mark)
    process = StdioProcess(proc)
    assert proc.stderr is not None
    stderr = asyncio.ensure_future(_keep_stderr(proc.stderr, process))
    try:
        yield process
    finally:
        await _end(process, stderr)


async def _end(process: StdioProcess, stderr: asyncio.Future[None]) -> None:
    """Close stdin, give the server ``_GRACE`` to exit, then end its tree; reap it. The kill
    happens however this is left (a second cancellation included)."""
    proc = process.proc
    try:
        with contextlib.suppress(Exception):
            assert proc.stdin is not None
            proc.stdin.close()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(proc.wait()), _GRACE)
    finally:
        end_process_tree(proc.pid)
        try:
            await asyncio.shield(proc.wait())
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(stderr), 1.0)
        finally:
            stderr.cancel()
            release_process(proc.pid)
