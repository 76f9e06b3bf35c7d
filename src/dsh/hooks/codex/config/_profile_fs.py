"""A Codex permission profile's filesystem rules (``[permissions.NAME.filesystem]``), read as
Codex 0.171 reads them, onto dsh's sandbox (``dsh.base._sandbox.SandboxPolicy``).

A rule is a path and an access: ``"read"``, ``"write"`` or ``"none"`` (``"deny"`` too). The
path is absolute, ``~/...`` (from home) or a special one: ``:workspace_roots`` (its older
name ``:project_roots``) takes either an access for the workspace roots themselves or a
table of paths beneath each of them (``"." = "write"``, ``"secret" = "none"``); ``:tmpdir``
is ``$TMPDIR``, ``:slash_tmp`` is ``/tmp``; ``:minimal`` (the few system files a command
needs) changes nothing here: dsh's sandbox reads everywhere. The workspace roots are the
project and the profile's ``[permissions.NAME.workspace_roots]`` (``"~/code/x" = true``).
``extends`` starts from a built-in's rules (``:workspace``: the workspace roots, ``:tmpdir``
and ``:slash_tmp`` writable; ``:read-only``: none), which the profile's own override key by
key (the ``:workspace_roots`` table merged path by path), as seen with ``codex sandbox``:

- ``write``: a writable root (the workspace roots' ``.``: the project and each root);
- ``read`` beneath a writable root: kept read-only (``Read-only file system``);
- ``none``: hidden (dsh's ``denyRead`` mechanism: an empty read-only mount; Codex's own
  says ``Permission denied``).

A relative path Codex refuses (``must be absolute, use `~/...`, or start with `:```), a
glob, an unknown special path or access is a diagnostic and that rule is not used.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from dsh.hooks.codex.config._types import CodexDiagnostic

__all__ = ["profile_filesystem"]

_ACCESS: Final = {"read": "read", "write": "write", "none": "none", "deny": "none"}
_WORKSPACE: Final = (":workspace_roots", ":project_roots")
_BUILT_IN: Final[Mapping[str, Mapping[str, Any]]] = {
    ":read-only": {},
    ":workspace": {":workspace_roots": {".": "write"}, ":tmpdir": "write", ":slash_tmp": "write"},
}
_IGNORED: Final = (":minimal", ":root", "glob_scan_max_depth")


def _merged(profile: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The rules (the built-in ``extends`` names, then the profile's own) and the workspace
    roots' table."""
    parent = _BUILT_IN.get(str(profile.get("extends")), {})
    rules = {k: v for k, v in parent.items() if k not in _WORKSPACE}
    workspace = dict(parent.get(":workspace_roots", {}))
    own = profile.get("filesystem")
    for key, value in (own if isinstance(own, Mapping) else {}).items():
        if key in _WORKSPACE:
            workspace.update({".": value} if isinstance(value, str) else dict(value or {}))
        else:
            rules[key] = value
    return rules, workspace


def profile_filesystem(
    name: str,
    profile: Mapping[str, Any],
    project: Path,
    diagnostics: list[CodexDiagnostic] | None,
) -> dict[str, Any]:
    """``SandboxPolicy`` fields of profile ``name``'s filesystem rules (its mode included)."""

    def problem(text: str) -> None:
        if diagnostics is not None:
            reason = f"[permissions.{name}.filesystem] {text}: that rule is not used"
            diagnostics.append(CodexDiagnostic(source="config.toml", reason=reason))

    def access(key: str, value: Any) -> str | None:
        found = _ACCESS.get(value) if isinstance(value, str) else None
        if found is None:
            problem(f"{key!r} = {value!r} is not read, write or none")
        return found

    rules, workspace = _merged(profile)
    listed = profile.get("workspace_roots")
    extra = [Path(os.path.expanduser(p)) for p, on in dict(listed or {}).items() if on is True]
    roots = [project, *extra]
    found: dict[str, list[Path]] = {"write": [], "read": [], "none": []}
    temp = {":tmpdir": False, ":slash_tmp": False}
    for key, value in rules.items():
        if key in _IGNORED:
            continue
        how = access(key, value)
        if how is None:
            continue
        if key in temp:
            temp[key] = how == "write"
        elif key.startswith(":"):
            problem(f"{key!r} is a special path dsh does not know")
        elif not key.startswith(("/", "~/")):
            problem(f"{key!r} must be absolute, use `~/...`, or start with `:`")
        elif any(c in key for c in "*?["):
            problem(f"{key!r} is a glob, which dsh's sandbox does not expand")
        else:
            found[how].append(Path(os.path.expanduser(key)))
    for sub, value in workspace.items():
        how = access(f":workspace_roots {sub}", value)
        if how is None:
            continue
        if sub.startswith(("/", "~")) or ".." in Path(sub).parts or any(c in sub for c in "*?["):
            problem(f"':workspace_roots' {sub!r} is not a plain path beneath the roots")
            continue
        found[how] += [root if sub == "." else root / sub for root in roots]
    writes = found["write"] or any(temp.values())
    return {
        "mode": "workspace-write" if writes else "read-only",
        "writable_roots": tuple(p for p in found["write"] if p != project),
        "exclude_project": project not in found["write"],
        "exclude_tmpdir_env_var": not temp[":tmpdir"],
        "exclude_slash_tmp": not temp[":slash_tmp"],
        "protected": tuple(found["read"]),
        "unreadable": tuple(found["none"]),
    }
