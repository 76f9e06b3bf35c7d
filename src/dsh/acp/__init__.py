"""dsh.acp: ``dsh acp``, an Agent Client Protocol server on stdio.

Editors (Zed, any ACP client) drive dsh sessions through it. Each session
assembles its own host through ``dsh.host`` with the client's ``cwd`` as the
project (its Claude Code hooks, instruction files and trust as ``dsh run``
applies them); ``session_host_options`` is the one place that host is
described. Asks go to the client as ``session/request_permission``
(``AcpApprovalChannel``), and so does the trust question about a project's untrusted hooks
before its session opens (``_trust.ask_trust``); the loop's events stream out as ``session/update``s
(``_updates.UpdateTranslator``); ``_session.stop_reason_for`` maps a turn's end to ACP's stop
reasons. Claude Code's permission modes and the model are session modes and configuration
options (``_modes``); the slash commands dsh runs are ``_commands``; the client's
``fs/*`` serve Read/Write/Edit when offered (``_files``). ``docs/acp.md`` has the details
and the Zed settings.
"""

from dsh._public import publish
from dsh.acp._approval import AcpApprovalChannel
from dsh.acp._config import AcpConfig, session_host_options
from dsh.acp._server import DshAgent
from dsh.acp._stdio import serve_stdio

__all__ = [
    "AcpApprovalChannel",
    "AcpConfig",
    "DshAgent",
    "serve_stdio",
    "session_host_options",
]

publish(globals())
