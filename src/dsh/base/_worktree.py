"""Git worktrees as Claude Code 2.1.332 makes them for ``--worktree [NAME]``.

Recorded with the real binary (``benchmarks/record_claude_worktree.py``,
``tests/fixtures/claude_worktree.json``): in a git repository, ``--worktree NAME`` runs
``git worktree add`` at ``<repository>/.claude/worktrees/<NAME>`` on a new branch
``worktree-<NAME>`` (a ``/`` in NAME is ``+`` in both) from ``origin``'s default branch, or
from ``HEAD`` when there is none; without NAME, a generated ``adjective-adjective-noun``
name. The session then runs there, and a headless run keeps it afterwards. A name is
checked first, with 2.1.332's words; a folder that is no git repository is refused.
``WorktreeSettings`` are Claude Code's ``worktree`` settings a new worktree follows, as
recorded (``flag-baseref-*``, ``flag-settings-sparse-symlink``): ``baseRef`` ``head`` branches
from ``HEAD`` instead of ``origin``'s default branch, ``sparsePaths`` checks out only those
folders (git's cone mode: the files at the top stay), ``symlinkDirectories`` links each
folder of the repository that exists into the worktree (not one already there, nor a path
that is absolute or climbs out).
"""

from __future__ import annotations

import logging
import re
import secrets
import subprocess
from functools import cache
from pathlib import Path
from typing import Final, Literal, final

from dsh._frozen import frozen
from dsh.base._errors import DshError

__all__ = [
    "Worktree",
    "WorktreeError",
    "WorktreeRemoval",
    "WorktreeSettings",
    "create_worktree",
    "generated_name",
    "name_problem",
    "remove_if_unchanged",
    "repository_root",
    "run_git",
]

_MAX_NAME: Final = 64
_PROTECTED: Final = frozenset(
    {".vscode", ".idea", ".claude", ".husky", ".cargo", ".devcontainer", ".yarn", ".mvn", ".config"}
)
_ADJECTIVES: Final = (
    "humming", "enchanting", "bright", "calm", "eager", "gentle", "jolly", "lively",
    "mellow", "nimble", "quiet", "rustic", "sunny", "swift", "tidy", "vivid",
)  # fmt: skip
_NOUNS: Final = (
    "rabin", "hopper", "lovelace", "turing", "knuth", "ritchie", "liskov", "hamilton",
    "dijkstra", "backus", "kay", "perlis", "wirth", "hoare", "milner", "floyd",
)  # fmt: skip
_GIT_TIMEOUT: Final = 60.0

logger = logging.getLogger("dsh.worktree")


# Compiled at the first worktree named or linked: a run that makes none never compiles them.
@cache
def _segment() -> re.Pattern[str]:
    return re.compile(r"^[a-zA-Z0-9._-]+$")


@cache
def _climbs() -> re.Pattern[str]:
    return re.compile(r"^\.\.[ .]*$")


class WorktreeError(DshError):
    """A worktree that cannot be made: the message is 2.1.332's."""


@final
@frozen
class Worktree:
    """A worktree made for a session: where it is, its branch, the repository it belongs to
    and the commit it started from."""

    path: Path
    branch: str
    repository: Path
    base: str


@final
@frozen(kw_only=True)
class WorktreeSettings:
    """Claude Code's ``worktree`` settings: the base of a new worktree's branch
    (``fresh``: ``origin``'s default branch, else ``HEAD``; ``head``: ``HEAD``), the folders
    a sparse checkout keeps (none: all) and the repository's folders linked into it."""

    base_ref: Literal["fresh", "head"] = "fresh"
    sparse_paths: tuple[str, ...] = ()
    symlink_directories: tuple[str, ...] = ()


@final
@frozen
class WorktreeRemoval:
    """What WorktreeRemove hooks did with a worktree a WorktreeCreate hook made, as 2.1.332
    reads them: ``removed``; ``not-configured`` (none declared: git removes it); ``failed``
    with ``summary`` (it is kept)."""

    kind: Literal["removed", "not-configured", "failed"]
    summary: str = ""


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a worktree (2.1.332's words), or ``None``."""
    if len(name) > _MAX_NAME:
        return f"Invalid worktree name: must be {_MAX_NAME} characters or fewer (got {len(name)})"
    for segment in name.split("/"):
        if segment in (".", ".."):
            return f'Invalid worktree name "{name}": must not contain "." or ".." path segments'
        if segment.lower() == ".git":
            return f'Invalid worktree name "{name}": "{segment}" is a reserved git directory name'
        if not _segment().match(segment):
            return (
                f'Invalid worktree name "{name}": each "/"-separated segment must be non-empty'
                " and contain only letters, digits, dots, underscores, and dashes"
            )
    protected = next((s for s in name.split("/") if s.lower() in _PROTECTED), None)
    if protected is not None:
        return (
            f'Invalid worktree name "{name}": "{protected}" is the name of a protected config'
            " folder. Choose another name. To reopen an existing worktree with this name, start"
            " Claude Code in that worktree's folder."
        )
    return None


def generated_name() -> str:
    """A name for ``--worktree`` given none, in 2.1.332's shape (``humming-enchanting-rabin``)."""
    first, second = secrets.choice(_ADJECTIVES), secrets.choice(_ADJECTIVES)
    return f"{first}-{second}-{secrets.choice(_NOUNS)}"


def run_git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``cwd``, its output captured, bounded in time, with no stdin."""
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=_GIT_TIMEOUT,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def repository_root(project: Path) -> Path | None:
    """The top of the git repository ``project`` is in (``None``: none, or no git)."""
    try:
        done = run_git(project, "rev-parse", "--show-toplevel")
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def create_worktree(project: Path, name: str, settings: WorktreeSettings | None = None) -> Worktree:
    """The worktree ``name`` of ``project``'s repository, made as 2.1.332 makes it with its
    ``settings`` (an existing one of that name is reopened as it is); ``WorktreeError`` when
    it cannot be."""
    settings = settings or WorktreeSettings()
    problem = name_problem(name)
    if problem is not None:
        raise WorktreeError(f"Error creating worktree: {problem}")
    root = repository_root(project)
    if root is None:
        raise WorktreeError(
            f"Error: Can only use --worktree in a git repository, but {project} is not a git"
            " repository. Configure a WorktreeCreate hook to use --worktree with other VCS systems."
        )
    flat = name.replace("/", "+")
    path, branch = root / ".claude" / "worktrees" / flat, f"worktree-{flat}"
    if (path / ".git").exists():
        return Worktree(path, branch, root, _head(path))
    for folder in (root / ".claude", root / ".claude" / "worktrees"):
        if folder.is_symlink():
            raise WorktreeError(
                f"Error creating worktree: {folder} is a symlink. A repository-committed symlink"
                " at .claude, .claude/worktrees, or .claude/worktrees/<name> could redirect"
                " worktree creation outside the repository. Remove the symlink and retry."
            )
    base = _base(root) if settings.base_ref == "fresh" else "HEAD"
    sparse = ("--no-checkout",) if settings.sparse_paths else ()
    done = run_git(root, "worktree", "add", *sparse, "-b", branch, str(path), base)
    if done.returncode == 0 and settings.sparse_paths:
        done = run_git(path, "sparse-checkout", "set", "--cone", "--", *settings.sparse_paths)
        done = run_git(path, "checkout", "-q") if done.returncode == 0 else done
    if done.returncode != 0:
        raise WorktreeError(
            f"Error creating worktree: {done.stderr.strip() or done.stdout.strip()}"
        )
    _link_directories(root, path, settings.symlink_directories)
    return Worktree(path, branch, root, _head(path))


def _link_directories(root: Path, path: Path, folders: tuple[str, ...]) -> None:
    """Each of ``folders`` that is in the repository and not in the worktree, linked there
    (an absolute link, as 2.1.332 makes it); the others skipped, as it skips them."""
    inside = path.resolve()
    for folder in folders:
        if folder.startswith(("/", "\\")) or any(
            _climbs().match(p) for p in re.split(r"[/\\]", folder)
        ):
            logger.info("symlinkDirectories: %r skipped: absolute, or climbs out", folder)
            continue
        source, link = root / folder, path / folder
        if not (source.exists() or source.is_symlink()) or link.exists() or link.is_symlink():
            continue  # not in the repository, or already in the worktree
        parent = link.parent.resolve()
        if parent != inside and inside not in parent.parents:
            logger.info("symlinkDirectories: %r skipped: it would link outside", folder)
            continue
        try:
            link.symlink_to(source)
        except OSError as exc:
            logger.info("symlinkDirectories: %r not linked: %s", folder, exc)


def _base(root: Path) -> str:
    """``origin``'s default branch when the repository has one, else ``HEAD``."""
    done = run_git(root, "rev-parse", "--verify", "-q", "refs/remotes/origin/HEAD")
    return "refs/remotes/origin/HEAD" if done.returncode == 0 else "HEAD"


def _head(path: Path) -> str:
    return run_git(path, "rev-parse", "HEAD").stdout.strip()


def remove_if_unchanged(worktree: Worktree) -> bool:
    """Remove ``worktree`` and its branch when nothing changed in it (no file changed or
    added, no commit), as 2.1.332 does after an ``isolation: worktree`` subagent (recorded:
    ``subagent-native``; ``subagent-native-changed`` kept it); whether it was removed."""
    try:
        status = run_git(worktree.path, "status", "--porcelain")
        if status.returncode != 0 or status.stdout.strip() or _head(worktree.path) != worktree.base:
            return False
        removed = run_git(worktree.repository, "worktree", "remove", "--force", str(worktree.path))
        if removed.returncode != 0:
            return False
        run_git(worktree.repository, "branch", "-D", worktree.branch)
    except (OSError, subprocess.SubprocessError):
        return False
    return True
