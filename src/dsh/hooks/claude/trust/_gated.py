"""The permission entries of a project that wait for trust, as Claude Code 2.1.332 gates them.

A cloned repository must not pre-approve what runs. Claude Code, headless in an
untrusted workspace, ignores the entries of the project's
``.claude/settings.json`` that widen what runs without asking:
``permissions.allow`` and ``permissions.additionalDirectories``, saying
``Ignoring 1 permissions.allow entry from .claude/settings.json: this workspace
has not been trusted. ...`` on stderr, one line per key (checked against the
real 2.1.332). It keeps what only restricts (``deny``, ``ask``), the
``defaultMode`` (``acceptEdits`` applies untrusted; ``bypassPermissions`` from
a project file never applies, trusted or not) and everything of
``.claude/settings.local.json`` (the user's own file, which Claude Code itself
writes when a prompt is answered "always"). dsh gates the same entries: each
counts once the project's trust record (``trust._records``) holds its fingerprint, so
an entry added later needs trust, as a new hook does, and the trusted ones keep
applying.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.hooks.claude.permissions._persist import rule_text
from dsh.hooks.claude.rules._values import PermissionSettings
from dsh.hooks.claude.settings._permissions import directory_path

__all__ = [
    "GATED_KINDS",
    "GatedEntry",
    "gated_entries",
    "ignored_notices",
    "without_gated",
    "written_entries",
]

GATED_KINDS: Final = frozenset({"project"})
"""The settings kinds whose widening entries wait for trust: ``.claude/settings.json``."""

GatedKey: TypeAlias = Literal["allow", "additionalDirectories"]


@final
@frozen(kw_only=True)
class GatedEntry:
    """One widening entry of a project file: its key, its text, and the file."""

    key: GatedKey
    text: str
    source: str

    def describe(self, project: Path) -> str:
        return f"permissions.{self.key} {self.text} in {_relative(self.source, project)}"

    @property
    def fingerprint(self) -> str:
        """What a trust record keeps of the entry."""
        text = json.dumps([self.key, self.text], ensure_ascii=True)
        return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def gated_entries(settings: PermissionSettings) -> tuple[GatedEntry, ...]:
    """The entries of ``settings`` that apply only once the project is trusted."""
    rules = [
        GatedEntry(key="allow", text=e.rule.declared, source=e.source)
        for e in settings.of("allow")
        if e.scope in GATED_KINDS
    ]
    directories = [
        GatedEntry(key="additionalDirectories", text=str(d.path), source=d.source)
        for d in settings.directories
        if d.scope in GATED_KINDS
    ]
    return (*rules, *directories)


def without_gated(settings: PermissionSettings, trusted: frozenset[str]) -> PermissionSettings:
    """``settings`` with the widening entries whose fingerprint is not in ``trusted`` left out."""

    def kept(key: GatedKey, text: str, source: str, scope: str) -> bool:
        entry = GatedEntry(key=key, text=text, source=source)
        return scope not in GATED_KINDS or entry.fingerprint in trusted

    return dataclasses.replace(
        settings,
        rules=tuple(
            e
            for e in settings.rules
            if e.behavior != "allow" or kept("allow", e.rule.declared, e.source, e.scope)
        ),
        directories=tuple(
            d
            for d in settings.directories
            if kept("additionalDirectories", str(d.path), d.source, d.scope)
        ),
    )


def written_entries(
    entry: Mapping[str, Any], file: Path, project: Path, home: Path
) -> tuple[GatedEntry, ...]:
    """The widening entries an ``updatedPermissions`` entry writes into the project's
    ``file`` (as ``gated_entries`` reads them back on the next run)."""
    kind = entry.get("type")
    listed = entry.get("rules") if kind in ("addRules", "replaceRules") else None
    if isinstance(listed, list) and entry.get("behavior") == "allow":
        texts = [rule_text(r).strip() for r in listed if isinstance(r, dict) and "toolName" in r]
        return tuple(GatedEntry(key="allow", text=t, source=str(file)) for t in texts)
    directories = entry.get("directories") if kind == "addDirectories" else None
    if isinstance(directories, list):
        paths = [directory_path(str(d), project, home) for d in directories if d]
        return tuple(
            GatedEntry(key="additionalDirectories", text=str(p), source=str(file)) for p in paths
        )
    return ()


def ignored_notices(entries: Sequence[GatedEntry], project: Path) -> tuple[str, ...]:
    """Claude Code's notice, one line per key and file: ``Ignoring 2 permissions.allow
    entries from .claude/settings.json: this workspace has not been trusted``."""
    counts: dict[tuple[str, GatedKey], int] = {}
    for e in entries:
        counts[e.source, e.key] = counts.get((e.source, e.key), 0) + 1
    return tuple(
        f"Ignoring {n} permissions.{key} {'entry' if n == 1 else 'entries'} from"
        f" {_relative(source, project)}: this workspace has not been trusted"
        for (source, key), n in counts.items()
    )


def _relative(source: str, project: Path) -> str:
    try:
        return str(Path(source).relative_to(project))
    except ValueError:
        return source
