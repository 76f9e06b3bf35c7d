"""WorktreeRemove hooks removing a worktree a WorktreeCreate hook made, as 2.1.332 fires them.

2.1.332 fires WorktreeRemove only from the exit question of an interactive ``--worktree``
session whose worktree a WorktreeCreate hook made, once the person chose "Remove worktree"
(read in the binary: ``gws``; a git-made worktree is removed by git, no hook fires; ``-p``
keeps the worktree and fires nothing: ``worktree-flag``, ``flag-hook-not-git``). The payload
is the session's base fields with ``worktree_path``; ``cwd`` is the project the session
started in. ``worktree_removal`` reads the runs as 2.1.332 reads them: none declared, git
removes it (``not-configured``); declared but none admitted (a project's own, not trusted),
``failed``; every hook exited 0, ``removed``; else ``failed`` with the first failure's
``exited N (first line)``, unless nothing is left at the path.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Final

from dsh.base._worktree import WorktreeRemoval
from dsh.hook_protocol._executor import run_hook
from dsh.hooks.claude.runtime._hook_env import session_env

if TYPE_CHECKING:
    from dsh.hooks.claude.payloads import WorktreeRemoveHookInput
    from dsh.hooks.claude.settings._types import Catalog

__all__ = ["NOT_RUN", "worktree_removal"]

NOT_RUN: Final = (
    "is configured but did not run (workspace not trusted, or no matching hook entries)"
)
"""2.1.332's summary when WorktreeRemove hooks are declared and none ran."""

_MAX_LINE: Final = 200


def _first_line(text: str) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= _MAX_LINE else f"{line[: _MAX_LINE - 1]}\u2026"


def worktree_removal(
    catalog: Catalog,
    declared: Catalog,
    project: Path,
    worktree_path: Path,
    *,
    session_id: str,
    transcript_path: Path,
    attended: bool,
) -> WorktreeRemoval:
    """WorktreeRemove fired for ``worktree_path`` with the hooks ``catalog`` admitted (all at
    once, as an event's hooks run), read as 2.1.332 reads them."""
    hooks = tuple(catalog.for_event("WorktreeRemove"))
    if not hooks:
        if declared.for_event("WorktreeRemove"):
            return WorktreeRemoval("failed", NOT_RUN)
        return WorktreeRemoval("not-configured")
    payload: WorktreeRemoveHookInput = {
        "session_id": session_id,
        "transcript_path": str(transcript_path),
        "cwd": str(project),
        "hook_event_name": "WorktreeRemove",
        "worktree_path": str(worktree_path),
    }
    data = (json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    env = session_env(session_id, attended=attended)

    async def fire() -> list[tuple[int | None, str]]:
        runs = await asyncio.gather(
            *(run_hook(h.to_command(cwd=project, env=env), data) for h in hooks)
        )
        return [(r.exit_code, r.stderr or r.stdout) for r in runs]

    failed = [(code, out) for code, out in asyncio.run(fire()) if code != 0]
    if not failed or not worktree_path.exists():
        return WorktreeRemoval("removed")
    code, output = failed[0]
    line = _first_line(output)
    said = f" ({line})" if line else ""
    summary = f"exited {code}{said}" if code is not None else f"failed{said or ' with no output'}"
    return WorktreeRemoval("failed", summary)
