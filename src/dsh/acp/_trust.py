"""The trust question over ACP: a project's untrusted hooks, asked about before its session opens.

As at a terminal (``dsh.cli._trust.ask_to_trust``), what the project controls and
the user has not trusted (its hooks, the plugins its settings enable, its
instructions files, permission entries) is shown before anything of it runs, here
as one ``session/request_permission`` naming the session it is for (the id the
session then gets, or the one ``session/load`` continues). Two options: trust
them (recorded, as ``dsh hooks trust`` records it) or leave them out for this
session. Declined, cancelled, or a client that cannot be asked (an error
answer, a client that knows no session before ``session/new`` returned): the
session opens without them, and one notice names them and how to trust.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from acp import RequestError, text_block, tool_content
from acp.interfaces import Client
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

__all__ = ["TRUST_OPTIONS", "ask_trust"]

logger = logging.getLogger("dsh.acp")

TRUST_OPTIONS: Final = (
    PermissionOption(option_id="trust-project", name="Trust and run them", kind="allow_always"),
    PermissionOption(option_id="leave-out", name="Leave them out", kind="reject_once"),
)


async def ask_trust(client: Client, session_id: str, project: Path, lines: Sequence[str]) -> bool:
    """Whether the client trusts ``project``'s untrusted ``lines`` (asked once)."""
    call = ToolCallUpdate(
        tool_call_id=f"dsh-trust-{uuid.uuid4().hex}",
        title=f"Trust the project {project}? Its hooks, permissions, plugins or instructions"
        " files are not trusted yet",
        kind="other",
        status="pending",
        content=[tool_content(text_block("\n".join(lines)))],
        raw_input={"project": str(project), "untrusted": list(lines)},
    )
    try:
        response = await client.request_permission(
            session_id=session_id, tool_call=call, options=list(TRUST_OPTIONS)
        )
    except (RequestError, ConnectionError, OSError) as exc:
        logger.warning("the trust question could not be asked: %s", exc)
        return False
    outcome = response.outcome
    return isinstance(outcome, AllowedOutcome) and outcome.option_id == "trust-project"
