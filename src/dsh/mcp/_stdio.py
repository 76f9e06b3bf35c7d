"""A stdio MCP server as a contained process, its pipes as the SDK's message streams.

The SDK's own ``stdio_client`` spawns with its own environment and process group; dsh
spawns the server as it spawns hooks instead: its environment is the configured ``env``
over the session's environment policy (no model keys, no secrets), the process is
contained (its group, its mark, dsh's namespace: it ends with dsh, ``kill -9`` included)
and ended with everything it started when the session closes. Each message line is
bounded (``MAX_LINE``): a server that writes more, or garbage, gives the session a parse
error for that line, never unbounded memory. Standard error is kept, its last
``_STDERR_KEEP`` bytes, for the notice when the server fails.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

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

__all__ = ["MAX_LINE", "StdioProcess", "stdio_streams"]

MAX_LINE: Final = 16 << 20
"""The longest message line a server may write (16 MiB)."""
_STDERR_KEEP: Final = 4096
_GRACE: Final = 0.5
"""Seconds a server has to exit once its stdin is closed, before it is killed."""


class StdioProcess:
    """The spawned server: its pid, the tail of its stderr, and how it ended."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.stderr = bytearray()
        self.garbage: str | None = None
        """The first line it wrote that is no MCP message (its start)."""

    def stderr_tail(self) -> str:
        return self.stderr.decode("utf-8", "replace").strip()[-_STDERR_KEEP:]


async def _keep_stderr(stream: asyncio.StreamReader, process: StdioProcess) -> None:
    while chunk := await stream.read(65536):
        process.stderr += chunk
        del process.stderr[:-_STDERR_KEEP]


@contextlib.asynccontextmanager
async def stdio_streams(
    server: McpServer, env: Mapping[str, str], cwd: str
) -> AsyncIterator[tuple[Any, Any, StdioProcess]]:
    """The server spawned, and the SDK's (read, write) streams over its stdout and stdin."""
    import anyio
    import mcp_types
    from mcp.shared.message import SessionMessage

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
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    stdin, stdout = proc.stdin, proc.stdout
    read_writer, read_stream = anyio.create_memory_object_stream[Any](16)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](16)

    async def reader() -> None:
        async with read_writer:
            while True:
                try:
                    line = await stdout.readuntil(b"\n")
                except asyncio.IncompleteReadError:
                    return  # the server closed its stdout
                except asyncio.LimitOverrunError as exc:
                    await stdout.read(exc.consumed)  # skip the over-long line's start
                    await read_writer.send(ValueError(f"a message over {MAX_LINE} bytes"))
                    continue
                if not line.strip():
                    continue
                try:
                    message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except ValueError as exc:
                    if process.garbage is None:
                        process.garbage = line[:120].decode("utf-8", "replace").strip()
                    await read_writer.send(exc)
                    continue
                await read_writer.send(SessionMessage(message))

    async def writer() -> None:
        async with write_reader:
            async for session_message in write_reader:
                data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                try:
                    stdin.write(data.encode() + b"\n")
                    await stdin.drain()
                except (BrokenPipeError, ConnectionResetError):
                    return

    tasks = [
        asyncio.ensure_future(reader()),
        asyncio.ensure_future(writer()),
        asyncio.ensure_future(_keep_stderr(proc.stderr, process)),
    ]
    try:
        yield read_stream, write_stream, process
    finally:
        await _end(process, tasks)


async def _end(process: StdioProcess, tasks: Sequence[asyncio.Future[None]]) -> None:
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
        for task in tasks:
            task.cancel()
        try:
            await asyncio.shield(proc.wait())
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            release_process(proc.pid)
