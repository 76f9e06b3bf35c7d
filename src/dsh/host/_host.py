"""``open_host``: the one composition root, as an async context manager yielding a ``Host``.

It builds the parts (``Assembly``), mounts the native plugins and the
profiles, opens the session (new, resumed or forked) and makes the agent.
However the body ends (returns, raises, is cancelled), the agent is closed to
the end, so ``agent/session-end`` fires exactly once, then the session log is
closed and the context disposed. The host prints nothing: what the profiles
diagnosed is ``host.diagnostics``, for the caller to show.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import final

from dsh._frozen import frozen
from dsh.agent import Agent
from dsh.approval import ApprovalService
from dsh.base._containment import sweep_processes
from dsh.context import Context
from dsh.host._assembly import Assembly
from dsh.host._options import HostOptions
from dsh.host._profile import ProfileDiagnostic
from dsh.models import Model
from dsh.session import SessionLog, SessionStore
from dsh.tools import ToolRegistry

__all__ = ["Host", "open_host"]


@final
@frozen
class Host:
    """An open host: its parts, the session and the agent on it.

    ``diagnostics`` are what the profiles' catalogs did not admit (the host
    prints nothing). ``assembly`` makes more agents on the same context (a
    second session); closing those is then the caller's business.
    """

    ctx: Context
    registry: ToolRegistry
    approval: ApprovalService | None
    store: SessionStore
    model: Model
    session: SessionLog
    agent: Agent
    diagnostics: tuple[ProfileDiagnostic, ...]
    assembly: Assembly


@contextlib.asynccontextmanager
async def open_host(options: HostOptions) -> AsyncIterator[Host]:
    """Build the host ``options`` describe; close all of it on every way out."""
    assembly = Assembly(options)
    try:
        assembly.mount_configured()
        assembly.start_mcp_servers()
        if assembly.mcp is not None:
            await asyncio.sleep(0)  # each server's task spawns it now, before the session opens
            await assembly.mcp.required_started()  # Codex's `required`: no session without it
        session = assembly.open_session()
        try:
            agent = assembly.agent(session)
            try:
                yield Host(
                    assembly.ctx,
                    assembly.registry,
                    assembly.approval,
                    assembly.store,
                    assembly.model,
                    session,
                    agent,
                    assembly.diagnostics,
                    assembly,
                )
            finally:
                await _close(agent)
        finally:
            session.close()
    finally:
        await assembly.dispose()
        # What hooks and commands left running, and what escaped their groups, ends here.
        sweep_processes()


async def _close(agent: Agent) -> None:
    """``agent.close()`` run to its end even if this task is cancelled meanwhile.

    Session-end listeners (a bridge's SessionEnd hooks) finish before the
    session log closes under them; a cancellation that arrived while they ran
    is raised afterwards.
    """
    closing = asyncio.ensure_future(agent.close("other"))
    interrupted = False
    while not closing.done():
        try:
            await asyncio.shield(closing)
        except asyncio.CancelledError:
            interrupted = True
    closing.result()
    if interrupted:
        raise asyncio.CancelledError
