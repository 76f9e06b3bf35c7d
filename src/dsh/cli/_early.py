"""What a session starts before its own imports are done: dsh's namespace, when MCP servers
are likely configured.

Every stdio MCP server is spawned inside dsh's namespace (``dsh.base._containment``), which
the watchdog makes at its first need: a Python process's start, the namespaces, a check
that ``nsenter`` joins them (some 30-50 ms). The files that name the servers are read only
once the run's modules are imported and its profiles loaded, and the servers are then on
the path to the first model request (its tools are named there). So the command, right
after click has read its flags, looks at those files the cheap way (a name given with
``--mcp-config``, a project ``.mcp.json``, a non-empty ``mcpServers`` in Claude Code's
``.claude.json``, an ``mcp_servers`` table in a Codex ``config.toml``) and, if one may
declare a server, has the namespace made meanwhile, in the background
(``prepare_containment``), unless dsh's own configuration names a ``process_containment``
(``"marks"`` makes none; the run decides once it read it). A wrong guess costs one idle
watchdog (or a namespace made at the first spawn, as before); what is started is decided
later, by the configuration read properly. Nothing here imports the harness.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

__all__ = ["prepare_for_servers", "servers_likely"]

_READ_BOUND: Final = 8 << 20
"""Bytes of a configuration file looked at; past it, a server is assumed."""
_CLAUDE_SERVERS: Final = re.compile(rb'"mcpServers"\s*:\s*\{\s*"')
_CODEX_SERVERS: Final = re.compile(rb"^\s*\[\s*mcp_servers\s*\.", re.MULTILINE)
_CONTAINMENT: Final = re.compile(rb"^\s*process_containment\s*=", re.MULTILINE)


def _mentions(path: Path, pattern: re.Pattern[bytes]) -> bool:
    """Whether ``path`` exists and ``pattern`` is in its first ``_READ_BOUND`` bytes."""
    try:
        with path.open("rb") as f:
            head = f.read(_READ_BOUND + 1)
    except OSError:
        return False
    return len(head) > _READ_BOUND or pattern.search(head) is not None


def servers_likely(project: Path, mcp_config: Sequence[str], env: Mapping[str, str]) -> bool:
    """Whether a session in ``project`` may start an MCP server (a cheap guess: see above)."""
    if mcp_config or (project / ".mcp.json").is_file():
        return True
    home = Path(env.get("HOME") or Path.home())
    claude_dir = env.get("CLAUDE_CONFIG_DIR")
    claude = Path(claude_dir).expanduser() if claude_dir else home
    codex = Path(env.get("CODEX_HOME") or home / ".codex")
    return (
        _mentions(claude / ".claude.json", _CLAUDE_SERVERS)
        or _mentions(codex / "config.toml", _CODEX_SERVERS)
        or _mentions(project / ".codex" / "config.toml", _CODEX_SERVERS)
    )


def _containment_chosen(project: Path, env: Mapping[str, str]) -> bool:
    """Whether dsh's own configuration may choose ``process_containment`` (then the run
    decides once it has read it: ``"marks"`` makes no namespace at all). The user file is
    found as ``dsh.host._config.user_config_file`` finds it (not imported here: the host)."""
    configured = env.get("DSH_CONFIG_DIR")
    xdg = env.get("XDG_CONFIG_HOME", "")
    if configured:
        user = Path(configured).expanduser()
    elif os.path.isabs(xdg):
        user = Path(xdg) / "dsh"
    else:
        from dsh._data_dir import user_config_dir

        user = user_config_dir()
    return any(
        _mentions(folder / "config.toml", _CONTAINMENT) for folder in (user, project / ".dsh")
    )


def prepare_for_servers(project: Path, mcp_config: Sequence[str]) -> None:
    """Have dsh's namespace made in the background when a server is likely and dsh's own
    configuration leaves the containment as it is by default (see above)."""
    env = os.environ
    if servers_likely(project, mcp_config, env) and not _containment_chosen(project, env):
        from dsh.base._containment import prepare_containment

        prepare_containment()
