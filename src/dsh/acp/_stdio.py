"""``serve_stdio``: ``dsh acp``'s process: the protocol on stdin/stdout, everything else on stderr.

The protocol's two descriptors are duplicated away first; then standard
input becomes ``/dev/null`` and standard output a copy of standard error, so
nothing a tool, a hook process or a library writes (or reads) can corrupt the
stream. Closing stdin (or SIGTERM) ends every session cleanly: session-end
fires once for each, then the process exits. A line that is not JSON is answered
with JSON-RPC's parse error (-32700); an input the event loop cannot wait on
(``</dev/null``, a file) is read by a thread into a pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import selectors
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, Final, cast

from acp import run_agent
from acp.interfaces import Agent

from dsh.acp._config import AcpConfig
from dsh.acp._server import DshAgent

__all__ = ["serve_stdio"]

logger = logging.getLogger("dsh.acp")

_LINE_LIMIT = 50 * 1024 * 1024


def _take_stdio() -> tuple[BinaryIO, BinaryIO]:
    """The protocol's input and output, moved off descriptors 0 and 1."""
    sys.stdout.flush()
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(proto_in, "rb", buffering=0), os.fdopen(proto_out, "wb", buffering=0)


_PARSE_ERROR: Final = (
    b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n'
)


class _CheckedReader(asyncio.StreamReader):
    """The protocol's input: a line that is not JSON is answered with JSON-RPC's -32700
    (the SDK would drop it with a logged traceback) and not passed on."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit=limit)
        self.writer: asyncio.StreamWriter | None = None
        self.seen: Callable[[object], None] | None = None
        """Told each message as read (what the SDK's models would drop)."""

    async def readuntil(self, separator: Any = b"\n") -> bytes:
        while True:
            line = await super().readuntil(separator)
            if not line.strip():
                return line
            try:
                message = json.loads(line)
            except ValueError:
                message = _NOT_JSON
            if message is not _NOT_JSON:
                if self.seen is not None:
                    self.seen(message)
                return line
            if self.writer is not None and not self.writer.is_closing():
                self.writer.write(_PARSE_ERROR)
            logger.warning("dsh acp: a line on stdin is not JSON (answered -32700)")


_NOT_JSON: Final = object()


def _pollable(source: BinaryIO) -> bool:
    """Whether the event loop can wait on ``source`` (``/dev/null`` and files it cannot)."""
    with selectors.DefaultSelector() as selector:
        try:
            selector.register(source, selectors.EVENT_READ)
        except (OSError, ValueError):
            return False
    return True


def _piped(source: BinaryIO) -> BinaryIO:
    """``source`` copied into a pipe by a thread (the pipe's size bounds what is read ahead)."""
    read_end, write_end = os.pipe()

    def copy() -> None:
        try:
            while chunk := source.read(65536):
                os.write(write_end, chunk)
        except OSError:
            pass
        finally:
            os.close(write_end)
            source.close()

    threading.Thread(target=copy, name="dsh-acp-stdin", daemon=True).start()
    return os.fdopen(read_end, "rb", buffering=0)


async def _streams(
    source: BinaryIO, sink: BinaryIO
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = _CheckedReader(limit=_LINE_LIMIT)
    if not _pollable(source):
        source = _piped(source)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), source)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sink)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    reader.writer = writer
    return reader, writer


async def serve_stdio(config: AcpConfig) -> None:
    """Serve ACP on this process's stdin/stdout until stdin closes."""
    source, sink = _take_stdio()
    try:
        reader, writer = await _streams(source, sink)
    except (OSError, ValueError) as exc:
        raise OSError(f"dsh acp needs pipes (or a terminal) on stdin and stdout: {exc}") from exc
    agent = DshAgent(config)
    if isinstance(reader, _CheckedReader):
        reader.seen = agent.saw_message
    serving = asyncio.current_task()
    loop = asyncio.get_running_loop()
    if serving is not None:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGTERM, serving.cancel)
    logger.info("dsh acp: serving ACP on stdio (model %s)", config.model.name)
    try:
        # Not an ``acp.Agent`` subclass on purpose: the methods dsh does not implement
        # then answer "Method not found" instead of the protocol stubs' null.
        await run_agent(cast(Agent, agent), writer, reader)
    except asyncio.CancelledError:
        logger.info("dsh acp: terminated")
    finally:
        # Session-end hooks run even if a second signal arrives meanwhile.
        closing = asyncio.ensure_future(agent.close())
        while not closing.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(closing)
        with contextlib.suppress(Exception):
            closing.result()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)
        writer.close()
    logger.info("dsh acp: stdin closed, every session ended")
