"""Claude Code's ``worktree`` settings, read from every settings scope into one value.

``read_worktree`` gives the ``WorktreeSettings`` (``dsh.base._worktree``) a new worktree of
``--worktree`` follows: ``baseRef`` (``fresh`` or ``head``) by settings precedence (managed,
command line, local, project, user), ``sparsePaths`` and ``symlinkDirectories`` from every
scope, as the other list settings are (``_sandbox``). A value of the wrong type is diagnosed
as a warning and left out (2.1.332's schema refuses it); nothing else of the file changes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from dsh.base._worktree import WorktreeSettings
from dsh.hooks.claude.settings._sources import SCALAR_PRECEDENCE, Diagnostics, ReadSettings

__all__ = ["read_worktree"]

_LISTS = ("sparsePaths", "symlinkDirectories")


def _block(s: ReadSettings, diags: Diagnostics) -> dict[str, Any]:
    value = s.model.worktree if s.model is not None else None
    if value is None:
        return {}
    if not isinstance(value, dict):
        diags.add(s.file.source, "warning", "bad-field", "`worktree` must be an object; ignored")
        return {}
    block: dict[str, Any] = {}
    ref = value.get("baseRef")
    if ref is not None and ref not in ("fresh", "head"):
        why = f'`worktree.baseRef` must be "fresh" or "head", not {json.dumps(ref)}; ignored'
        diags.add(s.file.source, "warning", "bad-field", why)
    elif ref is not None:
        block["baseRef"] = ref
    for key in _LISTS:
        items = value.get(key)
        if items is None:
            continue
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            why = f"`worktree.{key}` must be a list of strings; ignored"
            diags.add(s.file.source, "warning", "bad-field", why)
            continue
        block[key] = [i for i in items if i]
    return block


def read_worktree(settings: Sequence[ReadSettings], diags: Diagnostics) -> WorktreeSettings:
    """The ``worktree`` settings of every file in ``settings`` (lowest precedence first in
    the lists, each folder once)."""
    blocks = [(s, _block(s, diags)) for s in settings]
    ranked = sorted(
        ((SCALAR_PRECEDENCE[s.file.source.kind], -n, b) for n, (s, b) in enumerate(blocks)),
        key=lambda item: item[:2],
    )
    ref: Literal["fresh", "head"] = next(
        (b["baseRef"] for _, _, b in ranked if "baseRef" in b), "fresh"
    )
    lists = {
        key: tuple(dict.fromkeys(i for _, _, b in reversed(ranked) for i in b.get(key, ())))
        for key in _LISTS
    }
    return WorktreeSettings(
        base_ref=ref,
        sparse_paths=lists["sparsePaths"],
        symlink_directories=lists["symlinkDirectories"],
    )
