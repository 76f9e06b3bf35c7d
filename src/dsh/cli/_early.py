"""What a session starts before its own imports are done: dsh's namespace, when hooks or MCP
servers are likely configured.

Every hook and stdio MCP server is spawned inside dsh's namespace
(``dsh.base._containment``), which the watchdog makes at its first need: a Python
process's start, the namespaces, a check that ``nsenter`` joins them (some 15-30 ms). The
files that declare hooks and servers are read only once the run's modules are imported
and its profiles loaded, and the first hook (UserPromptSubmit) or server is then on the
path to the first model request. So the command, right after click has read its flags,
looks at those files the cheap way (the first ``_READ_BOUND`` bytes of each, a pattern,
no parsing) and, if one may declare a hook or a server, has the namespace made meanwhile,
in the background (``prepare_containment``), unless dsh's own configuration names a
``process_containment`` (``"marks"`` makes none; the run decides once it read it).

- **Servers**: a name given with ``--mcp-config``, a project ``.mcp.json``, a non-empty
  ``mcpServers`` in Claude Code's ``.claude.json``, an ``mcp_servers`` table in a Codex
  ``config.toml`` (the user's, the project's).
- **Hooks** (``hooks_likely``): a ``--settings`` or ``--plugin-dir`` given; a non-empty
  ``hooks`` or ``enabledPlugins`` object in a Claude Code settings file (the user's, the
  project's ``settings.json`` and ``settings.local.json``, the managed one); a
  ``hooks.json`` or a ``hooks`` table in ``config.toml`` in a Codex layer (``/etc/codex``,
  ``$CODEX_HOME``, the project's ``.codex/``). ``--hooks claude`` or ``codex`` leaves the
  other's files out.

A wrong guess costs one idle watchdog and namespace, which end with dsh; a missed one, the
namespace made when the run's profile mounts hooks or at the first spawn, as before; what
is started is decided later, by the configuration read properly. Nothing here imports the
harness.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

__all__ = ["hooks_likely", "prepare_for_processes", "servers_likely"]

_READ_BOUND: Final = 8 << 20
"""Bytes of a configuration file looked at; past it, a server or hook is assumed."""
_CLAUDE_SERVERS: Final = re.compile(rb'"mcpServers"\s*:\s*\{\s*"')
_CODEX_SERVERS: Final = re.compile(rb"^\s*\[\s*mcp_servers\s*\.", re.MULTILINE)
_CONTAINMENT: Final = re.compile(rb"^\s*process_containment\s*=", re.MULTILINE)
_CLAUDE_HOOKS: Final = re.compile(rb'"(?:hooks|enabledPlugins)"\s*:\s*\{\s*"')
# A [hooks] table, [[hooks.EVENT]] or a dotted hooks key (as dsh.hooks._select reads it).
_CODEX_HOOKS: Final = re.compile(rb"^[ \t]*(\[\[?[ \t]*hooks\b|hooks[ \t]*[.=])", re.MULTILINE)
_MANAGED_CLAUDE: Final = Path("/etc/claude-code/managed-settings.json")
_SYSTEM_CODEX: Final = Path("/etc/codex")


def _mentions(path: Path, pattern: re.Pattern[bytes]) -> bool:
    """Whether ``path`` exists and ``pattern`` is in its first ``_READ_BOUND`` bytes."""
    try:
        with path.open("rb") as f:
            head = f.read(_READ_BOUND + 1)
    except (OSError, ValueError):  # unreadable, a directory, a name with a NUL
        return False
    return len(head) > _READ_BOUND or pattern.search(head) is not None


def _claude_file(env: Mapping[str, str], name: str) -> Path:
    """Claude Code's user file ``name``: in ``$CLAUDE_CONFIG_DIR``, else in ``~/.claude``
    (``.claude.json``: in the home)."""
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured).expanduser() / name
    home = Path(env.get("HOME") or Path.home())
    return home / name if name == ".claude.json" else home / ".claude" / name


def _codex_home(env: Mapping[str, str]) -> Path:
    """Codex's user layer: ``$CODEX_HOME``, else ``~/.codex``."""
    configured = env.get("CODEX_HOME")
    return (
        Path(configured).expanduser()
        if configured
        else Path(env.get("HOME") or Path.home()) / ".codex"
    )


def servers_likely(project: Path, mcp_config: Sequence[str], env: Mapping[str, str]) -> bool:
    """Whether a session in ``project`` may start an MCP server (a cheap guess: see above)."""
    if mcp_config or (project / ".mcp.json").is_file():
        return True
    return (
        _mentions(_claude_file(env, ".claude.json"), _CLAUDE_SERVERS)
        or _mentions(_codex_home(env) / "config.toml", _CODEX_SERVERS)
        or _mentions(project / ".codex" / "config.toml", _CODEX_SERVERS)
    )


def hooks_likely(
    project: Path,
    env: Mapping[str, str],
    *,
    settings_files: Sequence[str] = (),
    plugin_dirs: Sequence[object] = (),
    choice: str | None = None,
) -> bool:
    """Whether a session in ``project`` may run a hook (a cheap guess: see above);
    ``choice`` is ``--hooks``."""
    if choice != "codex":
        settings = [
            _claude_file(env, "settings.json"),
            project / ".claude" / "settings.json",
            project / ".claude" / "settings.local.json",
            _MANAGED_CLAUDE,
        ]
        if settings_files or plugin_dirs or any(_mentions(p, _CLAUDE_HOOKS) for p in settings):
            return True
    if choice != "claude":
        for layer in (_SYSTEM_CODEX, _codex_home(env), project / ".codex"):
            if (layer / "hooks.json").is_file() or _mentions(layer / "config.toml", _CODEX_HOOKS):
                return True
    return False


def _containment_chosen(project: Path, env: Mapping[str, str]) -> bool:
    """Whether dsh's own configuration may choose ``process_containment`` (then the run
    decides once it has read it: ``"marks"`` makes no namespace at all): ``DSH_PROCESS_CONTAINMENT``
    (any case, as the host reads it; the last spelling wins, empty is none) other than
    ``namespace``, or the key in a file. The user file is found as
    ``dsh.host._config.user_config_file`` finds it (not imported here: the host)."""
    chosen = [v for k, v in env.items() if k.upper() == "DSH_PROCESS_CONTAINMENT" and v]
    if chosen:
        return chosen[-1] != "namespace"
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


def prepare_for_processes(
    project: Path,
    mcp_config: Sequence[str],
    *,
    settings_files: Sequence[str] = (),
    plugin_dirs: Sequence[object] = (),
    hooks_choice: str | None = None,
) -> None:
    """Have dsh's namespace made in the background when a hook or a server is likely and
    dsh's own configuration leaves the containment as it is by default (see above)."""
    env = os.environ
    likely = servers_likely(project, mcp_config, env) or hooks_likely(
        project, env, settings_files=settings_files, plugin_dirs=plugin_dirs, choice=hooks_choice
    )
    if likely and not _containment_chosen(project, env):
        from dsh.base._containment import prepare_containment

        prepare_containment()
