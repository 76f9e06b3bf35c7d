"""``bashEditDiff``: the files a Bash command changed, as 2.1.332 adds them to PostToolUse's
``tool_response`` (tests/fixtures/claude_bash_diff.json, ``record_claude_bash_diff.py``).

On as 2.1.332 decides: ``CLAUDE_CODE_BASH_EDIT_DIFF`` when set (a true or false word),
else in the ``auto`` and ``bypassPermissions`` modes only. Only in a git working tree, for
the files git would track there (untracked ones too, never ignored ones or files outside
it): the tree is snapshotted before the command into a private index and object folder
(the repository's own index and objects are never written) and compared after. The value:
up to 5 ``files`` with their hunks (3 lines of context; empty created or deleted files
first; a binary file, or one whose diff passes 400 lines or 64,000 characters, counted in
``moreFiles`` instead), ``moreFiles``, ``changedFiles`` (absolute, at most 200); nothing
changed, no value. Each git step is bounded in time; one that fails gives no value.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from dsh._frozen import frozen

__all__ = ["Snapshot", "TreeSnapshots", "bash_diff_on"]

_ON_MODES: Final = frozenset({"auto", "bypassPermissions"})
_SHOWN: Final = 5
_LISTED: Final = 200
_MAX_LINES: Final = 400
_MAX_CHARS: Final = 64_000
_TIMEOUT: Final = 5.0
_OUTPUT_CAP: Final = 4_000_000
_EMPTY_BLOBS: Final = frozenset(
    {
        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
        "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",
    }
)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def bash_diff_on(mode: str, env: Mapping[str, str], setting: bool | None = None) -> bool:
    """Whether a Bash call's ``tool_response`` gets ``bashEditDiff`` in ``mode``: the
    environment first, then the ``bashEditDiffEnabled`` setting (``Catalog.bash_edit_diff``),
    then the mode, in 2.1.332's order."""
    forced = env.get("CLAUDE_CODE_BASH_EDIT_DIFF", "").strip().lower()
    if forced in ("1", "true", "yes", "on"):
        return True
    if forced in ("0", "false", "no", "off"):
        return False
    if setting is not None:
        return setting
    return mode in _ON_MODES


@frozen
class Snapshot:
    """A working tree as it was before a command: its root and the tree object's id."""

    root: Path
    tree: str


class TreeSnapshots:
    """Snapshots of git working trees in one private folder (removed at exit)."""

    def __init__(self) -> None:
        self._folder: Path | None = None

    def _env(self, objects: str) -> dict[str, str]:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="dsh-bash-diff-"))
            atexit.register(shutil.rmtree, self._folder, ignore_errors=True)
        private = self._folder / "objects"
        private.mkdir(exist_ok=True)
        return {
            **os.environ,
            "GIT_INDEX_FILE": str(self._folder / f"index-{abs(hash(objects))}"),
            "GIT_OBJECT_DIRECTORY": str(private),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": objects,
            "GIT_OPTIONAL_LOCKS": "0",
        }

    async def take(self, cwd: Path) -> Snapshot | None:
        """The tree at ``cwd`` now, or ``None`` outside a git working tree (or on failure)."""
        found = await _git(cwd, None, "rev-parse", "--path-format=absolute", "--show-toplevel",
                           "--git-path", "objects")  # fmt: skip
        if found is None or len(found.splitlines()) != 2:
            return None
        root, objects = found.splitlines()
        tree = await self._write_tree(Path(root), objects)
        return Snapshot(Path(root), tree) if tree else None

    async def _write_tree(self, root: Path, objects: str) -> str | None:
        env = self._env(objects)
        if await _git(root, env, "add", "-A", "--ignore-errors") is None:
            return None
        tree = await _git(root, env, "write-tree")
        return tree.strip() if tree else None

    async def diff(self, before: Snapshot) -> dict[str, Any] | None:
        """``bashEditDiff`` for what changed since ``before`` (``None``: nothing, or failed)."""
        objects = await _git(before.root, None, "rev-parse", "--path-format=absolute",
                             "--git-path", "objects")  # fmt: skip
        if objects is None:
            return None
        env = self._env(objects.strip())
        after = await self._write_tree(before.root, objects.strip())
        if after is None or after == before.tree:
            return None
        patch = await _git(before.root, env, "diff-tree", "-r", "--raw", "-p", "--no-color",
                           "--no-renames", "-U3", before.tree, after)  # fmt: skip
        return None if patch is None else edit_diff(before.root, patch)


def edit_diff(root: Path, patch: str) -> dict[str, Any] | None:
    """``bashEditDiff`` from ``git diff-tree --raw -p`` output."""
    status: dict[str, str] = {}
    empty: list[str] = []
    hunks: dict[str, list[dict[str, Any]]] = {}
    path = ""
    for line in patch.splitlines():
        if line.startswith(":"):
            meta, _, name = line.partition("\t")
            fields = meta.split()
            status[name] = fields[4][0]
            if fields[4][0] in "AD" and (fields[2] in _EMPTY_BLOBS or fields[3] in _EMPTY_BLOBS):
                empty.append(name)
        elif line.startswith("diff --git "):
            path = ""
        elif path in hunks and line[:1] in (" ", "+", "-"):
            hunks[path][-1]["lines"].append(line)
        elif line.startswith(("+++ b/", "--- a/")):
            path = path or line[6:]
        elif (match := _HUNK.match(line)) is not None and path:
            old, old_n, new, new_n = match.groups()
            hunks.setdefault(path, []).append(
                {
                    "oldStart": int(old),
                    "oldLines": 1 if old_n is None else int(old_n),
                    "newStart": int(new),
                    "newLines": 1 if new_n is None else int(new_n),
                    "lines": [],
                }
            )
    if not status:
        return None
    files: list[dict[str, Any]] = []
    for name in empty[:_SHOWN]:
        files.append({"filePath": str(root / name), "hunks": [], **_kind(status[name])})
    for name, found in hunks.items():
        if len(files) >= _SHOWN:
            break
        lines = [x for h in found for x in h["lines"]]
        if len(lines) > _MAX_LINES or sum(len(x) for x in lines) > _MAX_CHARS:
            continue
        files.append({"filePath": str(root / name), "hunks": found, **_kind(status[name])})
    return {
        "files": files,
        "moreFiles": max(len(status), len(hunks)) - len(files),
        "changedFiles": [str(root / name) for name in list(status)[:_LISTED]],
    }


def _kind(code: str) -> dict[str, bool]:
    return {"created": True} if code == "A" else {"deleted": True} if code == "D" else {}


async def _git(cwd: Path, env: Mapping[str, str] | None, *args: str) -> str | None:
    """``git ARGS`` in ``cwd``: its stdout, or ``None`` when it fails, runs over its time or
    prints more than the cap."""
    try:
        process = await asyncio.create_subprocess_exec(
            "git", *args, cwd=cwd, env=None if env is None else dict(env),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return None
    try:
        out, _ = await asyncio.wait_for(process.communicate(), _TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        return None
    except asyncio.CancelledError:
        process.kill()
        await process.wait()
        raise
    if process.returncode != 0 or len(out) > _OUTPUT_CAP:
        return None
    return out.decode("utf-8", "replace")
