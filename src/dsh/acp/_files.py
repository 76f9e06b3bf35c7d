"""``EditorFiles``: the client's ``fs/read_text_file`` and ``fs/write_text_file`` for Read,
Write, Edit and MultiEdit (``dsh.tools.builtin._client_files``' seam).

Used only for what the client offered in ``initialize`` (``clientCapabilities.fs``): a
read goes to the client, so an unsaved buffer wins over the disk; a client that cannot
read a file (not a text file it knows, an error) leaves it to the disk. A write goes to
the client, which updates its buffer and the file; a refused write fails the call with
the client's words, and nothing is written behind its back.
"""

from __future__ import annotations

import logging
from pathlib import Path

from acp import RequestError
from acp.interfaces import Client

__all__ = ["EditorFiles"]

logger = logging.getLogger("dsh.acp")


class EditorFiles:
    """One session's view of the client's files."""

    __slots__ = ("_client", "_reads", "_session", "_writes")

    def __init__(self, client: Client, session_id: str, *, reads: bool, writes: bool) -> None:
        self._client = client
        self._session = session_id
        self._reads = reads
        self._writes = writes

    async def read(self, path: Path, /) -> str | None:
        if not self._reads:
            return None
        try:
            answer = await self._client.read_text_file(path=str(path), session_id=self._session)
        except (RequestError, ConnectionError, OSError) as exc:
            logger.info("session %s: the client did not read %s (%s)", self._session, path, exc)
            return None
        return answer.content

    async def write(self, path: Path, text: str, /) -> bool:
        if not self._writes:
            return False
        try:
            await self._client.write_text_file(
                content=text, path=str(path), session_id=self._session
            )
        except (RequestError, ConnectionError) as exc:
            raise OSError(f"the editor did not write it ({exc})") from exc
        return True
