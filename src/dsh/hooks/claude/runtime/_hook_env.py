"""What a hook process gets besides its stdin, as Claude Code gives it.

The variables 2.1.332 sets for every hook (``claude_env``), the ``CLAUDE_ENV_FILE`` of the
events that may export the session's Bash environment (``ENV_FILE_EVENTS``,
``env_files``) and a plugin hook's ``CLAUDE_PLUGIN_DATA`` folder (``make_plugin_data``).
``_machinery``'s firing hands them to each handler.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from dsh.agent import Agent
from dsh.hooks.claude.settings._types import HookDeclaration
from dsh.session._private_files import make_private_dir

__all__ = [
    "ENTRYPOINT",
    "ENV_FILE_EVENTS",
    "claude_env",
    "env_files",
    "make_plugin_data",
    "session_env",
]

ENTRYPOINT: Final = "sdk-cli"

ENV_FILE_EVENTS: Final = frozenset({"SessionStart", "Setup", "CwdChanged", "FileChanged"})
"""The events whose hooks get a ``CLAUDE_ENV_FILE`` to export the session's Bash environment."""


def make_plugin_data(hooks: Sequence[HookDeclaration]) -> None:
    """Each plugin hook's ``CLAUDE_PLUGIN_DATA`` folder, there before the plugin's first hook
    runs, as Claude Code makes it."""
    for folder in {h.env.get("CLAUDE_PLUGIN_DATA", "") for h in hooks} - {""}:
        Path(folder).mkdir(parents=True, exist_ok=True)


def env_files(folder: Path, root: Agent, event: str, count: int) -> list[Path]:
    """One ``CLAUDE_ENV_FILE`` per hook in ``folder``, as 2.1.332 names them
    (``<event>-hook-<n>.sh``); the file is the hook's to create. Each is sourced before the
    session's later Bash commands (``root``'s workspace), never in a hook. The folder is
    0700, whatever the umask: a script planted there would run before every command."""
    make_private_dir(folder)
    files = [folder / f"{event.lower()}-hook-{n}.sh" for n in range(count)]
    for path in files:
        root.workspace.add_env_script(path)
    return files


def session_env(session_id: str, *, attended: bool) -> dict[str, str]:
    """The variables Claude Code sets for every hook of session ``session_id`` (the
    worktree hooks, which run outside a session's agent, get these alone)."""
    return {
        "CLAUDECODE": "1",
        "CLAUDE_CODE_SESSION_ID": session_id,
        "CLAUDE_CODE_ENTRYPOINT": ENTRYPOINT,
        "CLAUDE_CODE_CHILD_SESSION": "1",
        # Whether a person is at the terminal (`0` headless): hooks skip prompts when not.
        "CLAUDE_CODE_SESSION_ATTENDED": "1" if attended else "0",
        # The CLI's pid in Claude Code; dsh's own process is the host of the session.
        "CLAUDE_PID": str(os.getpid()),
    }


def claude_env(root: Agent, payload: Mapping[str, Any], *, attended: bool) -> dict[str, str]:
    """The variables Claude Code sets for its hooks (beside each hook's own)."""
    env = session_env(root.session_id, attended=attended)
    effort = payload.get("effort")
    if isinstance(effort, dict) and isinstance(effort.get("level"), str):
        env["CLAUDE_EFFORT"] = effort["level"]
    return env
