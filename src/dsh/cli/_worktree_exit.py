"""The exit question of an interactive ``--worktree`` session: keep the worktree or remove it.

As 2.1.332's exit dialog asks it (read in its binary): a worktree git made with nothing
changed (no file, no commit since it was made) is removed with its branch, unasked
(``Worktree removed (no changes)``); otherwise "Exiting worktree session", what would be
lost, and two choices, "Keep worktree" (the default, and what Ctrl-C or Ctrl-D choose) and
"Remove worktree". A worktree a WorktreeCreate hook made is always asked about (2.1.332
cannot count its commits); removing it fires WorktreeRemove (``hooks_worktree_removed``):
with no such hook git removes it, and a hook that fails keeps it, with a warning. ``-p``
never asks: the worktree is kept and WorktreeRemove never fires (``worktree-flag``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, final

import click

from dsh._frozen import frozen
from dsh.base._worktree import Worktree, remove_if_unchanged, repository_root, run_git

if TYPE_CHECKING:
    from dsh.hooks import HookSelection

__all__ = ["SessionWorktree", "exit_worktree", "session_worktree_of"]


@final
@frozen
class SessionWorktree:
    """The worktree an interactive session ran in: git's (``git``: its branch and the commit
    it started from) or a WorktreeCreate hook's (``git`` ``None``)."""

    path: Path
    git: Worktree | None


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return run_git(cwd, *args)
    except (OSError, subprocess.SubprocessError):
        return None


def session_worktree_of(project: Path, flat: str, path: Path) -> SessionWorktree:
    """``path``, where ``--worktree`` of ``project`` runs the session: git's when it is
    where git makes the worktree ``flat`` (``<repository>/.claude/worktrees/<flat>``), else
    a hook's."""
    root = repository_root(project)
    if root is None or path.resolve() != (root / ".claude" / "worktrees" / flat).resolve():
        return SessionWorktree(path, None)
    head = _git(path, "rev-parse", "HEAD")
    base = head.stdout.strip() if head is not None and head.returncode == 0 else ""
    return SessionWorktree(path, Worktree(path, f"worktree-{flat}", root, base))


def _changed(path: Path) -> tuple[int, int]:
    """The uncommitted files and the new folders of untracked files at ``path`` (none when
    git cannot tell)."""
    done = _git(path, "status", "--porcelain")
    lines = [line for line in (done.stdout if done else "").splitlines() if line.strip()]
    folders = sum(1 for line in lines if line.startswith("?? ") and line.rstrip('"').endswith("/"))
    return len(lines) - folders, folders


def _commits(worktree: Worktree) -> int:
    done = _git(worktree.path, "rev-list", "--count", "HEAD", f"^{worktree.base}")
    try:
        return int(done.stdout.strip()) if done is not None and done.returncode == 0 else 0
    except ValueError:
        return 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _held(files: int, folders: int) -> str:
    """2.1.332's words for what is uncommitted: ``2 uncommitted files and 1 new folder``."""
    parts = [f"{files} uncommitted {'file' if files == 1 else 'files'}"] if files else []
    if folders:
        parts.append(_plural(folders, "new folder") + ("" if files else " of uncommitted files"))
    return " and ".join(parts)


def _subtitle(wt: SessionWorktree, files: int, folders: int, commits: int) -> str:
    held = _held(files, folders)
    if wt.git is None:
        lost = f"You have {held}. These will be lost if you remove the worktree. " if held else ""
        return (
            f"{lost}A WorktreeCreate hook made this worktree, so Claude Code can't tell whether"
            " it has unpushed commits."
        )
    on = f"{_plural(commits, 'commit')} on {wt.git.branch}"
    if held and commits:
        return f"You have {held} and {on}. All will be lost if you remove."
    if held:
        return f"You have {held}. These will be lost if you remove the worktree."
    return f"You have {on}. The branch will be deleted if you remove the worktree."


def _ask(wt: SessionWorktree, subtitle: str, lost: str) -> bool:
    """The question; whether the person chose to remove."""
    click.echo("\nExiting worktree session")
    click.echo(subtitle)
    click.echo(f"  1. Keep worktree    Stays at {wt.path}")
    click.echo(f"  2. Remove worktree  {lost}")
    try:
        answer = click.prompt("Choose", type=click.Choice(["1", "2"]), default="1")
    except click.Abort:  # Ctrl-C or Ctrl-D: keep, as 2.1.332's cancel does
        return False
    return bool(answer == "2")


def _git_remove(wt: Worktree) -> bool:
    done = _git(wt.repository, "worktree", "remove", "--force", str(wt.path))
    if done is None or done.returncode != 0:
        return False
    _git(wt.repository, "branch", "-D", wt.branch)
    return True


def _removed_words(files: int, commits: int, branch: str | None) -> str:
    if branch is None or not commits:
        return "Worktree removed." + (" Uncommitted changes were discarded." if files else "")
    if files:
        counted = _plural(commits, "commit")
        return f"Worktree removed. {counted} and uncommitted changes were discarded."
    verb = "was" if commits == 1 else "were"
    return f"Worktree removed. {_plural(commits, 'commit')} on {branch} {verb} discarded."


def _remove_hooks_made(
    project: Path, path: Path, selection: HookSelection, session_id: str
) -> bool:
    """WorktreeRemove fired for a hook's worktree; with none declared, git removes it."""
    from dsh.hooks import hooks_worktree_removed

    removal = hooks_worktree_removed(project, path, selection, session_id=session_id)
    if removal.kind == "failed":
        click.echo(
            f"dsh: WorktreeRemove hook {removal.summary}; kept worktree at: {path}", err=True
        )
        return False
    if removal.kind == "removed":
        return True
    root = repository_root(path)
    done = _git(root, "worktree", "remove", "--force", str(path)) if root is not None else None
    return done is not None and done.returncode == 0


def exit_worktree(
    project: Path, wt: SessionWorktree, selection: HookSelection, *, session_id: str
) -> None:
    """Ask what becomes of the session's worktree ``wt`` as it ends, and do it."""
    if not wt.path.is_dir():
        return
    if wt.git is not None and remove_if_unchanged(wt.git):
        click.echo("Worktree removed (no changes)")
        return
    files, folders = _changed(wt.path)
    commits = _commits(wt.git) if wt.git is not None else 0
    if wt.git is None:
        lost = (
            "All changes and commits will be lost."
            if files + folders
            else ("Any unpushed commits in the worktree may be lost.")
        )
    else:
        lost = "All changes and commits will be lost."
    if not _ask(wt, _subtitle(wt, files, folders, commits), lost):
        on = f" on branch {wt.git.branch}" if wt.git is not None else ""
        click.echo(f"Worktree kept. Your work is saved at {wt.path}{on}")
        return
    if wt.git is not None:
        removed = _git_remove(wt.git)
    else:
        removed = _remove_hooks_made(project, wt.path, selection, session_id)
    if not removed:
        click.echo(f"Couldn't remove worktree. Kept at {wt.path}.")
        return
    branch = wt.git.branch if wt.git is not None else None
    click.echo(_removed_words(files + folders, commits, branch))
