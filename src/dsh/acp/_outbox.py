"""One ACP session's outbox: its ``session/update``s sent in order, by one sender task.

Updates are put as the loop produces them and written to the client by one task, in
that order; ``flush`` waits until everything put so far was written (before a prompt
is answered or a permission asked, so the client has seen what came before). A
``Notice`` goes as ACP's ``notice`` update to a client that advertised
``session.notices`` (the pinned SDK has no model of it: the raw connection sends it),
else as an agent message marked as a notice. A client that went away drops the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import final

from acp.interfaces import Client

from dsh.acp._updates import Notice, Update

__all__ = ["Outbox"]

logger = logging.getLogger("dsh.acp")


@final
class Outbox:
    """The updates of one session (``session_id``, set once the host is open), in order."""

    __slots__ = ("_client", "_queue", "_sender", "notices", "session_id")

    def __init__(self, client: Client) -> None:
        self._client = client
        self._queue: asyncio.Queue[Update] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None
        self.session_id = ""
        self.notices = False
        """Whether the client advertised ``session.notices``."""

    def start(self, session_id: str) -> None:
        self.session_id = session_id
        self._sender = asyncio.create_task(self._send_all(), name=f"dsh-acp-send-{session_id}")

    def put(self, update: Update) -> None:
        self._queue.put_nowait(update)

    async def flush(self) -> None:
        """Wait until every update put so far has been written to the client."""
        await self._queue.join()

    async def close(self, *, grace: float = 2) -> None:
        """Send what is left (at most ``grace`` seconds), then stop the sender."""
        if self._sender is None:
            return
        with contextlib.suppress(asyncio.TimeoutError):
            async with asyncio.timeout(grace):
                await self._queue.join()
        self._sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._sender

    async def _send_all(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                if isinstance(update, Notice):
                    await self._send_notice(update)
                else:
                    await self._client.session_update(session_id=self.session_id, update=update)
            except Exception as exc:  # the client went away: the rest is dropped
                logger.debug("session %s: update not sent: %s", self.session_id, exc)
            finally:
                self._queue.task_done()

    async def _send_notice(self, notice: Notice) -> None:
        send = getattr(getattr(self._client, "_conn", None), "send_notification", None)
        if self.notices and callable(send):
            update = {"sessionId": self.session_id, "update": notice.wire()}
            await send("session/update", update)
        else:
            await self._client.session_update(
                session_id=self.session_id, update=notice.as_message()
            )
