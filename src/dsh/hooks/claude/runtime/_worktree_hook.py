"""WorktreeCreate hooks making a worktree, as 2.1.332 lets them replace ``git worktree add``.

``worktree_of`` reads a firing's runs (``Tried``) as 2.1.332 reads them (the folder the
first hook that exited 0 printed last, else each failure in words); ``session_worktree``
fires the catalog's WorktreeCreate hooks for ``dsh run --worktree`` before the session
exists (2.1.332 fires it first, before SessionStart: ``worktree-flag``), with the payload
and environment recorded there: the session's id, the project's transcript path and
``cwd``, and ``name``. ``_agents`` fires the same event for an ``isolation: worktree``
subagent through the runtime and reads it with ``tried_of``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, final

from dsh._frozen import frozen
from dsh.base._worktree import WorktreeError, repository_root
from dsh.hook_protocol._executor import run_hook
from dsh.hooks.claude.runtime._hook_env import session_env

if TYPE_CHECKING:
    from dsh.hook_protocol import MergedAnswers
    from dsh.hooks.claude.answers._answer import HookAnswer
    from dsh.hooks.claude.payloads import WorktreeCreateHookInput
    from dsh.hooks.claude.settings._types import Catalog, HookDeclaration

__all__ = [
    "WORKTREE_HOOK_FAILED",
    "WORKTREE_HOOK_NOT_RUN",
    "FolderError",
    "Tried",
    "session_worktree",
    "tried_of",
    "worktree_by_hooks",
    "worktree_of",
]

WORKTREE_HOOK_FAILED: Final = (
    "WorktreeCreate hook failed: hook succeeded but returned no worktree path (command: echo"
    " the path to stdout; http/callback: return hookSpecificOutput.worktreePath)"
)
"""2.1.332's words when every WorktreeCreate hook exited 0 and none printed a path
(``flag-hook-empty`` in tests/fixtures/claude_worktree.json)."""

WORKTREE_HOOK_NOT_RUN: Final = (
    "WorktreeCreate hook failed: hook is configured but did not run (workspace not trusted or"
    " matcher mismatch)"
)
"""2.1.332's words when WorktreeCreate hooks are declared but none ran (in dsh: the project's
own, while it is not trusted); it does not fall back to git then."""


@final
@frozen
class Tried:
    """One WorktreeCreate hook's run, as far as the worktree goes: its command (or URL), exit
    code (``None``: it timed out or never started) and what it printed."""

    hook: HookDeclaration
    exit_code: int | None
    stdout: str
    stderr: str


class FolderError(WorktreeError):
    """A hook named a folder that cannot be the worktree (2.1.332 prefixes ``Error:``, not
    ``Error creating worktree:``, for one that is not there)."""


def tried_of(merged: MergedAnswers[HookDeclaration, HookAnswer]) -> list[Tried]:
    """A runtime firing's answers and failures as ``Tried``, in declaration order."""
    tried = [
        Tried(d, a.exit_code, a.plain or (json.dumps(a.json) if a.json else ""), "")
        if a.blocking_error is None
        else Tried(d, a.exit_code, "", a.blocking_error)
        for d, a in merged.answers
    ]
    tried += [Tried(d, o.run.exit_code, o.run.stdout, o.run.stderr) for d, o in merged.failed]
    return tried


def _named(tried: Tried) -> str | None:
    """The path a hook that exited 0 gave: the last line of a command's stdout (JSON or not,
    ``flag-hook-json``), an http hook's ``hookSpecificOutput.worktreePath``."""
    if tried.exit_code != 0:
        return None
    if tried.hook.http is not None:
        try:
            data: Any = json.loads(tried.stdout)
        except ValueError:
            return None
        specific = data.get("hookSpecificOutput") if isinstance(data, dict) else None
        named = specific.get("worktreePath") if isinstance(specific, dict) else None
        return named if isinstance(named, str) and named.strip() else None
    lines = [line.strip() for line in tried.stdout.splitlines() if line.strip()]
    return lines[-1] if lines else None


def worktree_of(tried: Sequence[Tried], cwd: Path) -> Path:
    """The worktree a WorktreeCreate firing made, as 2.1.332 takes it (``flag-hook-*``): the
    first hook that exited 0 with a path, relative to ``cwd``; else ``WorktreeError`` naming
    each hook that failed (``<command>: <stderr>``), or ``FolderError`` for a path that is no
    folder or that git resolves to another checkout's working tree."""
    named = next((n for n in map(_named, tried) if n is not None), None)
    if named is None:
        failed = [
            f"{t.hook.command}: {(t.stderr.strip() or t.stdout.strip()) or 'no output'}"
            for t in tried
            if t.exit_code != 0
        ]
        if not failed:
            raise WorktreeError(WORKTREE_HOOK_FAILED)
        raise WorktreeError(f"WorktreeCreate hook failed: {'; '.join(failed)}")
    path = cwd / Path(named.replace("\0", "\ufffd")).expanduser()
    if not path.is_dir():
        raise FolderError(
            f"worktree directory {path} does not exist or is not a directory. The path came from"
            " a WorktreeCreate hook \u2014 the hook must print the directory it created as the"
            " last line of its stdout."
        )
    real = path.resolve()
    top = repository_root(real)
    if top is not None and top.resolve() != real:
        raise WorktreeError(
            f"Refusing to use {real} as an isolation worktree: git resolves its working tree to"
            f" {top} (a core.worktree redirect, or a checkout discovered above it), so commands"
            " run there would write outside the worktree. Remove the redirect, restore the"
            " worktree's own .git, or recreate the worktree, then retry."
        )
    return real


async def session_worktree(
    hooks: tuple[HookDeclaration, ...],
    project: Path,
    name: str,
    *,
    session_id: str,
    transcript_path: Path,
    attended: bool,
) -> Path:
    """The folder ``dsh run --worktree NAME`` runs its session in, made by ``hooks`` (they
    run at once, as an event's hooks do; ``worktree_of`` reads them); ``WorktreeError`` with
    2.1.332's words, its prefix included, when they made none."""
    payload: WorktreeCreateHookInput = {
        "session_id": session_id,
        "transcript_path": str(transcript_path),
        "cwd": str(project),
        "hook_event_name": "WorktreeCreate",
        "name": name,
    }
    data = (json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    env = session_env(session_id, attended=attended)
    runs = await asyncio.gather(
        *(run_hook(h.to_command(cwd=project, env=env), data) for h in hooks)
    )
    tried = [Tried(h, r.exit_code, r.stdout, r.stderr) for h, r in zip(hooks, runs, strict=True)]
    try:
        return worktree_of(tried, project)
    except FolderError as exc:
        raise WorktreeError(f"Error: {exc}") from None
    except WorktreeError as exc:
        raise WorktreeError(f"Error creating worktree: {exc}") from None


def worktree_by_hooks(
    catalog: Catalog,
    declared: Catalog,
    project: Path,
    name: str,
    *,
    session_id: str,
    transcript_dir: Path | None,
    attended: bool,
) -> Path | None:
    """``session_worktree`` for the hooks ``catalog`` admitted (``None``: ``declared`` has
    none, git makes the worktree); ``WorktreeError`` when ``declared`` has some that were
    left out (a project's own, not trusted), as 2.1.332 refuses then rather than use git."""
    from dsh.hooks.claude.transcript._projection import default_transcript_dir, project_slug

    hooks = tuple(catalog.for_event("WorktreeCreate"))
    if not hooks:
        if declared.for_event("WorktreeCreate"):
            raise WorktreeError(f"Error creating worktree: {WORKTREE_HOOK_NOT_RUN}")
        return None
    base = transcript_dir if transcript_dir is not None else default_transcript_dir()
    transcript = base / project_slug(project) / f"{session_id}.jsonl"
    made = session_worktree(
        hooks, project, name, session_id=session_id, transcript_path=transcript, attended=attended
    )
    return asyncio.run(made)
