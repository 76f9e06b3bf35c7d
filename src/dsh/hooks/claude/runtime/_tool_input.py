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
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from dsh.base import thaw_json
from dsh.hooks.claude.payloads import McpServerInfo
from dsh.tools import ToolDefinition
from dsh.tools._deferred import TOOL_SEARCH
from dsh.tools.builtin._tool_search import DEFAULT_MAX_RESULTS

__all__ = ["mcp_server_of", "observable_input"]

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


def mcp_server_of(definition: ToolDefinition | None) -> McpServerInfo | None:
    """The ``mcp_server`` Claude Code adds, last, to an MCP tool's hook payloads."""
    ref = definition.mcp_server if definition is not None else None
    return None if ref is None else {"name": ref.name, "source": ref.source}
