"""dsh's fingerprints of the scripts a trusted project's Codex hooks run.

Codex's ``trusted_hash`` covers a hook's command line only, and dsh's
fingerprint of ``.codex/hooks.json`` (``trust._layer``) its declarations: editing
``.codex/hooks/check.py``, which a trusted ``python3 .codex/hooks/check.py``
runs, would run new code without a word. So each hook of the project's
``.codex/`` also gets a fingerprint in the ``codex`` section of dsh's trust
record: a SHA-256 over its place, its command and every file of the project its
command line names (``dsh.hook_protocol.named_files``, as the Claude Code
bridge's fingerprint: a relative path, an absolute one inside the project, or
``$PWD/...``; Codex has no project-dir variable, and a hook runs in the
project). A hook whose fingerprint is not recorded (a script changed, added or
removed since) does not run; the others do. A hook that names no file of the
project needs no entry (a record written before scripts were fingerprinted
still trusts it). User-level hooks are not fingerprinted.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import FrozenDict, UnsafeJSONError, load_json
from dsh.hook_protocol import TrustRecord, named_files
from dsh.hook_protocol._named_files import FileDigests
from dsh.hooks.codex.config._types import SCRIPT_GATED, CodexCatalog, CodexHook

__all__ = [
    "CODEX_SECTION",
    "HookScripts",
    "ScriptState",
    "gate_scripts",
    "review_scripts",
    "shown_path",
]

ScriptState: TypeAlias = Literal[
    "trusted", "not trusted yet", "changed since trusted", "record unreadable"
]
"""Whether a project hook's scripts are the ones trusted, and why not."""

CODEX_SECTION: Final = "codex"
"""The section of dsh's trust record that holds the Codex project layer's entries."""
_SINCE: Final = {
    "changed since trusted": "changed since last trust",
    "new since trusted": "new since last trust",
    "not trusted yet": "new since last trust",
    "removed since trusted": "removed since last trust",
    "record unreadable": "the record could not be read",
}


def shown_path(path: Path, project: Path) -> str:
    """``path`` relative to ``project`` when inside it (as the record names files)."""
    try:
        return str(path.relative_to(project))
    except ValueError:
        return str(path)


@final
@frozen(kw_only=True)
class HookScripts:
    """One project hook, the files of the project its command names, and their state.

    ``recorded`` are the files (path to digest) recorded for the hook's place, if any."""

    hook: CodexHook
    place: str
    files: Mapping[str, str]
    recorded: Mapping[str, str]
    fingerprint: str
    state: ScriptState

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"

    @property
    def where(self) -> str:
        return f"codex hook {self.place}"

    def differences(self) -> list[tuple[str, str]]:
        """Each file that differs from what was trusted, with how (``changed since
        trusted``, ``new since trusted``, ``removed since trusted``, or the state itself)."""
        if self.state in ("not trusted yet", "record unreadable"):
            return [(path, self.state) for path in self.files]
        now, before = self.files, self.recorded
        found = [(p, "changed since trusted") for p in now if p in before and before[p] != now[p]]
        found += [(p, "new since trusted") for p in now if p not in before]
        found += [(p, "removed since trusted") for p in before if p not in now]
        return found

    def changes(self) -> list[str]:
        """``.codex/hooks/check.py (changed since trusted)``, one per file that differs."""
        found = [f"{path} ({how})" for path, how in self.differences()]
        return found or ["its command (changed since trusted)"]

    def describe(self) -> str:
        """``Stop[0][0] in .codex/hooks.json runs x.py (changed since trusted)``."""
        return f"{self.place} runs {', '.join(self.changes())}"

    def trust_lines(self) -> list[str]:
        """What ``dsh hooks trust`` records of the hook: each script it runs, what changed
        (``trusted: Codex project script x.py (run by Stop[0][0] in .codex/hooks.json,
        changed since last trust)``)."""
        changed = self.differences() if not self.trusted else [(p, "") for p in self.files]
        found = []
        for path, how in changed:
            since = f", {_SINCE[how]}" if how else ""
            verb = "forgot" if how == "removed since trusted" else "trusted"
            found.append(f"{verb}: Codex project script {path} (run by {self.place}{since})")
        return found

    def entry(self) -> dict[str, str]:
        """The hook as the record's ``codex`` section keeps it."""
        files = json.dumps(dict(self.files), sort_keys=True, ensure_ascii=True)
        return {
            "fingerprint": self.fingerprint,
            "where": self.where,
            "command": self.hook.command,
            "files": files,
        }


def _fingerprint(place: str, command: str, files: Mapping[str, str]) -> str:
    declared = {"hook": place, "command": command, "files": dict(files)}
    text = json.dumps(declared, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _recorded(record: TrustRecord) -> dict[str, Mapping[str, str]]:
    """The entries of the record's ``codex`` section by their ``where`` (the first of each),
    found once for a review rather than searched for each hook."""
    found: dict[str, Mapping[str, str]] = {}
    for entry in record.sections.get(CODEX_SECTION, ()):
        found.setdefault(entry.get("where", ""), entry)
    return found


def _recorded_files(entry: Mapping[str, str] | None) -> Mapping[str, str] | None:
    """The files an entry records for its hook (``None``: no entry); a malformed entry
    counts as naming none."""
    if entry is None:
        return None
    try:
        files = load_json(entry.get("files", "{}"))
    except UnsafeJSONError:
        return FrozenDict()
    if not isinstance(files, dict):
        return FrozenDict()
    return FrozenDict({str(k): str(v) for k, v in files.items()})


def _state(
    fingerprint: str,
    files: Mapping[str, str],
    recorded: Mapping[str, str] | None,
    record: TrustRecord,
) -> ScriptState:
    if record.problem is not None:
        return "record unreadable"
    if not record.has(CODEX_SECTION) or fingerprint in record.fingerprints:
        return "trusted"  # with no section yet, the user's Codex trust is the consent
    if recorded is not None:
        return "changed since trusted"
    return "not trusted yet" if files else "trusted"


def review_scripts(
    project: Path, hooks: Iterable[CodexHook], record: TrustRecord
) -> tuple[HookScripts, ...]:
    """Each hook of the project's ``.codex/`` among ``hooks`` against ``record``."""
    found = []
    entries = _recorded(record)
    digests = FileDigests()  # a script many hooks run is hashed once
    sources: dict[Path, str] = {}
    variables = {"PWD": str(project)}
    for hook in hooks:
        if hook.layer != "project":
            continue
        if hook.source not in sources:
            sources[hook.source] = shown_path(hook.source, project)
        place = f"{hook.event}[{hook.group}][{hook.index}] in {sources[hook.source]}"
        files = FrozenDict(named_files(hook.command, project, variables=variables, digests=digests))
        fingerprint = _fingerprint(place, hook.command, files)
        recorded = _recorded_files(entries.get(f"codex hook {place}"))
        found.append(
            HookScripts(
                hook=hook,
                place=place,
                files=files,
                recorded=recorded if recorded is not None else FrozenDict(),
                fingerprint=fingerprint,
                state=_state(fingerprint, files, recorded, record),
            )
        )
    return tuple(found)


def gate_scripts(catalog: CodexCatalog, scripts: Iterable[HookScripts]) -> CodexCatalog:
    """``catalog`` with each hook whose scripts are not trusted marked ``script changed``
    (it does not run); a hook Codex itself does not run keeps Codex's reason."""
    refused = {s.hook.key for s in scripts if not s.trusted}
    if not refused:
        return catalog
    hooks = tuple(
        replace(h, trust=SCRIPT_GATED)
        if h.key in refused and h.trust in ("trusted", "bypassed")
        else h
        for h in catalog.hooks
    )
    return replace(catalog, hooks=hooks)
