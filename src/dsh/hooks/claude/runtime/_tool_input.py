"""A tool call's input as Claude Code shows it to tool hooks.

Claude Code 2.1.332 gives PreToolUse and PostToolUse hooks a file tool's path
absolute and normalized (the corpus's ``file-path-write``), while the tool,
its result and PostToolBatch keep the path the model wrote. They also get the
input as the tool parsed it, its defaults filled in: ToolSearch's
``max_results: 5`` (``task-tools-search``) and Edit's ``replace_all: false`` (the
``file-tools`` recording), which PostToolBatch's lacks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from dsh.base import thaw_json
from dsh.hooks.claude.payloads import McpServerInfo
from dsh.tools import ToolDefinition
from dsh.tools._deferred import TOOL_SEARCH
from dsh.tools.builtin._declarations import DEFAULT_MAX_RESULTS

__all__ = ["SEND_MESSAGE_ADDED", "mcp_server_of", "observable_input", "pre_tool_input"]

# Claude Code's own file tools and their path fields, which PreToolUse/PostToolUse hooks get
# absolute and normalized (`file-path-write`); the tool and PostToolBatch keep the model's.
_PATH_FIELDS: Final[Mapping[str, str]] = {
    "Read": "file_path",
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
# The defaults 2.1.332's input parsing fills in before PreToolUse/PostToolUse see the input.
_DEFAULTS: Final[Mapping[str, Mapping[str, Any]]] = {
    TOOL_SEARCH: {"max_results": DEFAULT_MAX_RESULTS},
    "Edit": {"replace_all": False},  # tests/fixtures/claude_strict.json, `file-tools`
}


def observable_input(name: str, arguments: Mapping[str, Any], cwd: Path) -> dict[str, Any]:
    """A call's input as Claude Code shows it to tool hooks: a file tool's path made absolute
    (``~`` expanded, joined to ``cwd``) and normalized (``..`` resolved), so a guard that
    checks a path prefix cannot be bypassed by ``~/`` or ``sub/../``; the defaults Claude
    Code's parsing fills in, filled in."""
    shown: dict[str, Any] = thaw_json(arguments)
    for field, default in _DEFAULTS.get(name, {}).items():
        shown.setdefault(field, default)
    key = _PATH_FIELDS.get(name)
    value = shown.get(key) if key is not None else None
    if key is not None and isinstance(value, str) and value:
        shown[key] = os.path.normpath(cwd / Path(value).expanduser())
    return shown


# The keys 2.1.332 adds to a SendMessage call's input for PreToolUse (its
# `backfillObservableInput`; tests/fixtures/claude_send_message.json), after removing any the
# model gave; PostToolUse and PostToolBatch get the input without them.
SEND_MESSAGE_ADDED: Final = (
    "type",
    "recipient",
    "recipient_kind",
    "content",
    "request_id",
    "approve",
)
_CONTENT_WIDTH: Final = 50  # `content`: the message cut to 50 columns, an ellipsis last
_AGENT_ID: Final = re.compile(r"a[0-9a-f]{16}")  # Claude Code's agent id shape


def pre_tool_input(name: str, arguments: Mapping[str, Any], cwd: Path) -> dict[str, Any]:
    """A call's input as 2.1.332 shows it to PreToolUse: ``observable_input``, and for a
    SendMessage with a plain-text message the keys its hooks read (``type``, ``recipient``,
    ``recipient_kind``, ``content``)."""
    shown = observable_input(name, arguments, cwd)
    if name != "SendMessage" or "to" not in shown or "message" not in shown:
        return shown
    for key in SEND_MESSAGE_ADDED:
        shown.pop(key, None)
    to, message = shown["to"], shown["message"]
    if isinstance(to, str) and isinstance(message, str):
        shown["type"] = "message"
        shown["recipient"] = to
        shown["recipient_kind"] = _recipient_kind(to)
        # Columns as code points: dsh measures no display width (wide characters differ).
        long = len(message) > _CONTENT_WIDTH
        shown["content"] = message[: _CONTENT_WIDTH - 1] + "\u2026" if long else message
    return shown


def _recipient_kind(to: str) -> str:
    """2.1.332's kind of a SendMessage recipient: the session's ``main``, an agent by its
    id, else a name (the session kinds it also knows dsh cannot address)."""
    if to == "main":
        return "main"
    return "agent" if _AGENT_ID.fullmatch(to) else "name"


def mcp_server_of(definition: ToolDefinition | None) -> McpServerInfo | None:
    """The ``mcp_server`` Claude Code adds, last, to an MCP tool's hook payloads."""
    ref = definition.mcp_server if definition is not None else None
    return None if ref is None else {"name": ref.name, "source": ref.source}
