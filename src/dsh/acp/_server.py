"""``DshAgent``: the ACP agent side of ``dsh acp`` (the methods a client calls).

Every session has its own host; the client's ``cwd`` is its project. Each
handler answers with a result or a ``RequestError`` naming the problem: no
exception escapes to the SDK (it would log a traceback), and a prompt always
gets an answer, ``cancelled`` included. The client's MCP servers start with the session
(``_mcp``, ``dsh.mcp``); formerly they were not supported: the
capabilities say so, and a session given some says so as a notice.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from dsh import __version__
from dsh.acp._config import AcpConfig
from dsh.acp._files import EditorFiles
from dsh.acp._prompt import AcpBlock, prompt_content
from dsh.acp._session import AcpSession
from dsh.session import SessionNotFoundError

__all__ = ["DshAgent"]

logger = logging.getLogger("dsh.acp")


class DshAgent:
    """The ACP agent: sessions by id, each with its own host, all closed by ``close``."""

    def __init__(self, config: AcpConfig) -> None:
        self._config = config
        self._client: Client | None = None
        self._sessions: dict[str, AcpSession] = {}
        self._closed = False
        self.client_notices = False
        """Whether the client advertised ``session.notices`` (the pinned SDK drops the field
        from ``initialize``'s parameters: ``saw_message`` reads it from the wire)."""
        self.elicitation_form = False
        """Whether the client advertised ``elicitation.form`` (``_elicitation``)."""
        self._fs: tuple[bool, bool] = (False, False)
        """Whether the client reads and writes text files for us (``initialize``)."""

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    def saw_message(self, message: object) -> None:
        """A message from the client, as read (before the SDK parses it)."""
        if not isinstance(message, dict) or message.get("method") != "initialize":
            return
        params = message.get("params")
        capabilities = params.get("clientCapabilities") if isinstance(params, dict) else None
        session = capabilities.get("session") if isinstance(capabilities, dict) else None
        notices = session.get("notices") if isinstance(session, dict) else None
        self.client_notices = isinstance(notices, dict)

    @property
    def sessions(self) -> tuple[str, ...]:
        return tuple(self._sessions)

    # -- connection --------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        fs = client_capabilities.fs if client_capabilities is not None else None
        elicitation = getattr(client_capabilities, "elicitation", None)
        self.elicitation_form = getattr(elicitation, "form", None) is not None
        if fs is not None:
            self._fs = (bool(fs.read_text_file), bool(fs.write_text_file))
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=True, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
            ),
            agent_info=Implementation(name="dsh", title="dsh", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        raise RequestError.invalid_params({"methodId": f"dsh has no authentication: {method_id}"})

    # -- sessions ----------------------------------------------------------------------

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        session = await self._open(cwd, resume=None, mcp_servers=mcp_servers)
        # Once the client has the answer (it names the session the update is about).
        asyncio.get_running_loop().call_soon(session.announce_commands)
        return NewSessionResponse(
            session_id=session.id,
            modes=session.modes(),
            config_options=list(session.config_options()),
        )

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        session = self._sessions.get(session_id)
        if session is not None and session.running:
            raise RequestError(
                -32600, f"session {session_id} is answering a prompt; load it after that"
            )
        if session is None:
            session = await self._open(cwd, resume=session_id, mcp_servers=mcp_servers)
        await session.replay()
        return LoadSessionResponse(
            modes=session.modes(), config_options=list(session.config_options())
        )

    async def _open(
        self, cwd: str, *, resume: str | None, mcp_servers: list[Any] | None
    ) -> AcpSession:
        if self._closed or self._client is None:
            raise RequestError(-32600, "dsh acp is shutting down")
        project = _project(cwd)
        session = AcpSession(self._client, project, self._config.resolve_model)
        session.elicitation_form = self.elicitation_form
        from dsh.acp._mcp import acp_mcp_servers  # dsh.mcp only when servers are given

        servers, notices = acp_mcp_servers(mcp_servers) if mcp_servers else ((), ())
        try:
            await session.open(self._config, resume=resume, notices=notices, mcp_servers=servers)
        except SessionNotFoundError:
            raise RequestError.resource_not_found(resume) from None
        except Exception as exc:
            logger.warning("could not open a session in %s: %s", project, exc)
            raise RequestError(
                -32603, f"could not open a session in {project}: {exc}", {"cwd": cwd}
            ) from None
        if self._closed:  # stdin closed while the host opened
            await session.close()
            raise RequestError(-32600, "dsh acp is shutting down")
        session.notices = self.client_notices
        reads, writes = self._fs
        if reads or writes:
            session.files = EditorFiles(self._client, session.id, reads=reads, writes=writes)
        self._sessions[session.id] = session
        logger.info("session %s opened in %s", session.id, project)
        return session

    def _session(self, session_id: str) -> AcpSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        return session

    # -- prompts -----------------------------------------------------------------------

    async def prompt(
        self, session_id: str, prompt: list[AcpBlock], **kwargs: Any
    ) -> PromptResponse:
        session = self._session(session_id)
        content = prompt_content(prompt)
        try:
            return await session.prompt(content)
        except RequestError:
            raise
        except Exception as exc:
            logger.exception("session %s: the prompt failed", session_id)
            raise RequestError(-32603, f"dsh failed while answering: {exc}") from None

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        session = self._session(session_id)
        session.set_mode(mode_id)
        await session.flush()
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        if not isinstance(value, str):
            raise RequestError.invalid_params({"value": "dsh's options take a value, not a flag"})
        options = await session.set_option(config_id, value)
        return SetSessionConfigOptionResponse(config_options=list(options))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session is not None:
            session.cancel()

    # -- shutdown ----------------------------------------------------------------------

    async def close(self) -> None:
        """End every session, side by side (session-end fires once each)."""
        self._closed = True
        sessions, self._sessions = list(self._sessions.values()), {}
        async with asyncio.TaskGroup() as group:
            for session in sessions:
                group.create_task(session.close())


def _project(cwd: str) -> Path:
    path = Path(cwd)
    if not path.is_absolute():
        raise RequestError.invalid_params({"cwd": f"must be an absolute path, not {cwd!r}"})
    try:
        if not path.is_dir():
            raise RequestError.invalid_params({"cwd": f"{cwd} is not a directory"})
        return path.resolve()
    except OSError as exc:
        raise RequestError.invalid_params({"cwd": f"{cwd}: {exc.strerror or exc}"}) from None
