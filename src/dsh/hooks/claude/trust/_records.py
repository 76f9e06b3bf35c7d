"""Project trust for Claude Code hooks: the fingerprints, and the records that keep them.

What a project controls runs only once the user trusted it (see
``dsh.hooks.claude.trust._review`` for the review as a whole: the project's
hooks, the plugins its settings enable and its instructions files). A hook
declared by the project itself (``.claude/settings.json``, and
``.claude/settings.local.json`` at its git root) runs only once the user
trusted it. Each such hook has a fingerprint: a SHA-256 over its declaration
as written (event, matcher, ``if``, command, args, shell, timeout, ...) and
the content of every file of the project its command names (a script it
runs). A trust record holds the fingerprints the user trusted, one JSON file
per project under dsh's data directory (``dsh.hook_protocol``'s record, shared
with the Codex bridge, which keeps its own section), 0600 in 0700 directories,
never read or written through a symlink. Changing a hook, or a
script it runs, changes its fingerprint: it needs trust again. User,
``--settings``, managed and plugin hooks are the user's own and always run
(a plugin that only the project's settings enable is the project's choice).
The record also holds the fingerprints of the project's widening permission
entries trusted (``trust._gated``: ``permissions.allow`` and
``additionalDirectories`` of ``.claude/settings.json``); only those apply
(``permissions_trust``).

Limits: a file a script reads or imports indirectly is not in the
fingerprint, only the files its command line names.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Final, final

from dsh._frozen import frozen
from dsh.hook_protocol import TrustRecord, named_files, record_bound, write_record
from dsh.hook_protocol import read_record as _read_record
from dsh.hook_protocol._named_files import FileDigests
from dsh.hook_protocol._trust_record import TRUST_FORMAT, TrustState, default_trust_dir, state_of
from dsh.hooks.claude.settings._types import Catalog, HookDeclaration
from dsh.hooks.claude.trust._gated import GatedEntry, gated_entries

__all__ = [
    "PROJECT_KINDS",
    "RECORD_SECTIONS",
    "TRUST_FORMAT",
    "HookTrust",
    "TrustRecord",
    "TrustState",
    "catalog_bound",
    "default_trust_dir",
    "hook_entry",
    "hook_fingerprint",
    "hook_trust",
    "permission_entry",
    "permissions_trust",
    "place",
    "project_trusted",
    "read_record",
    "shown",
    "state_of",
    "trust_permission_entries",
    "write_record",
]

PROJECT_KINDS: Final = frozenset({"project", "local"})
"""The sources a project controls: its own settings files."""


@final
@frozen(kw_only=True)
class HookTrust:
    """One project hook and whether it may run: ``state`` says why not when it may not."""

    hook: HookDeclaration
    fingerprint: str
    files: tuple[str, ...]
    state: TrustState

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"

    def describe(self, project: Path) -> str:
        """``PreToolUse[0][0] in .claude/settings.json: <command> (runs x.py)``."""
        hook = self.hook
        source = _relative_text(hook.source.label, str(project))
        text = f"{hook.event}[{hook.group_index}][{hook.hook_index}] in {source}: "
        text += shown(self.hook)
        if self.files:
            text += f" (runs {', '.join(self.files)})"
        return text


def shown(hook: HookDeclaration) -> str:
    if hook.args is None:
        return hook.declared_command
    return shlex.join([hook.declared_command, *hook.args])


def _relative(path: Path, project: Path) -> str:
    return _relative_text(str(path), str(project))


@functools.lru_cache(maxsize=256)
def _relative_text(path: str, project: str) -> str:
    # Every hook of a settings file asks this of the same two paths (twice a hook).
    try:
        return str(Path(path).relative_to(project))
    except ValueError:
        return path


def _named_files(
    hook: HookDeclaration,
    project: Path,
    plugin_root: Path | None = None,
    digests: FileDigests | None = None,
) -> dict[str, str]:
    """The project (or plugin) files the hook's command line names, with their digests.

    A file inside the plugin's root is named ``plugin:<path in it>``."""
    variables = {"CLAUDE_PROJECT_DIR": str(project)}
    roots: list[tuple[str, Path]] = []
    if plugin_root is not None:
        roots.append(("plugin:", plugin_root))
        variables["CLAUDE_PLUGIN_ROOT"] = str(plugin_root)
    return named_files(
        hook.declared_command,
        project,
        args=hook.args or (),
        variables=variables,
        roots=roots,
        digests=digests,
    )


def _fingerprint(hook: HookDeclaration, project: Path, files: dict[str, str]) -> str:
    source = hook.source.path
    declared: dict[str, object] = {
        "source": None if source is None else _relative(source, project),
        "kind": hook.source.kind,
        "event": hook.event,
        "group": hook.group_index,
        "index": hook.hook_index,
        "matcher": hook.matcher.declared,
        "if": None if hook.if_rule is None else hook.if_rule.declared,
        "command": hook.declared_command,
        "args": None if hook.args is None else list(hook.args),
        "shell": None if hook.exec_form else hook.argv[0],
        "timeout": hook.timeout if hook.timeout_declared else None,
        "async": hook.run_async,
        "onFailure": hook.on_failure,
        "statusMessage": hook.status_message,
        "files": files,
    }
    if hook.http is not None:  # what an HTTP hook sends, where (its URL is the `command`)
        declared["http"] = {
            "headers": [list(pair) for pair in hook.http.headers],
            "allowedEnvVars": sorted(hook.http.allowed_env),
        }
    text = json.dumps(declared, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


RECORD_SECTIONS: Final = ("hooks", "plugins", "instructions", "permissions", "mcp_servers")
"""The Claude Code bridge's sections of a trust record (``dsh.hook_protocol``'s record):
each entry a ``fingerprint`` and the ``where`` it was."""


def _project_hooks(catalog: Catalog) -> list[HookDeclaration]:
    return [h for h in catalog.all_hooks() if h.source.kind in PROJECT_KINDS]


def read_record(
    project: Path, trust_dir: Path | None = None, *, bound: int | None = None
) -> TrustRecord:
    """The project's trust record (empty, with the problem said, when it cannot be used),
    its fingerprints those of this bridge's sections; ``bound`` as ``catalog_bound``."""
    return _read_record(project, trust_dir, owned=RECORD_SECTIONS, bound=bound or record_bound())


def project_trusted(record: TrustRecord) -> bool:
    """Whether the user trusted the project: its record (readable) was written by a trust
    of it (``dsh hooks trust``, ``--trust-project``, an accepted trust question), which
    has always written the ``hooks`` section, empty or not (the Codex bridge writes only
    its own section, a saved permission entry only ``permissions``). The project's
    instructions files follow it, as in Claude Code: trusted once, they load, edits
    included; its hooks keep their own fingerprints."""
    return record.problem is None and record.has("hooks")


def catalog_bound(catalog: Catalog) -> int:
    """The bytes a trust record of ``catalog``'s project is read within: room for an entry
    per hook (its command and source) and per widening permission entry, so the bound
    grows with what the record covers."""
    project = catalog.project_dir
    hooks = (f"{shown(h)} {h.source.path}" for h in catalog.all_hooks())
    entries = (e.describe(project) for e in gated_entries(catalog.permissions))
    return record_bound(itertools.chain(hooks, entries))


def hook_fingerprint(
    hook: HookDeclaration,
    project: Path,
    plugin_root: Path | None = None,
    digests: FileDigests | None = None,
) -> tuple[str, dict[str, str]]:
    """A hook's fingerprint and the files of the project (or plugin) its command names
    (``digests``: the review's, so a script many hooks run is hashed once)."""
    files = _named_files(hook, project, plugin_root, digests)
    return _fingerprint(hook, project, files), files


def hook_trust(
    catalog: Catalog, trust_dir: Path | None = None, record: TrustRecord | None = None
) -> tuple[tuple[HookTrust, ...], str | None]:
    """Every project hook of ``catalog`` with its trust state, and a problem with the record."""
    project = catalog.project_dir
    if record is None:
        record = read_record(project, trust_dir, bound=catalog_bound(catalog))
    result: list[HookTrust] = []
    digests = FileDigests()
    for hook in _project_hooks(catalog):
        fingerprint, files = hook_fingerprint(hook, project, digests=digests)
        state = state_of(fingerprint, place(hook, project), record)
        result.append(
            HookTrust(hook=hook, fingerprint=fingerprint, files=tuple(files), state=state)
        )
    return tuple(result), record.problem


def place(hook: HookDeclaration, project: Path) -> str:
    source = _relative_text(hook.source.label, str(project))
    return f"{hook.event}[{hook.group_index}][{hook.hook_index}] in {source}"


def hook_entry(h: HookTrust, project: Path) -> dict[str, str]:
    """A trusted hook as its record keeps it."""
    return {"fingerprint": h.fingerprint, "where": place(h.hook, project), "command": shown(h.hook)}


def permission_entry(entry: GatedEntry, project: Path) -> dict[str, str]:
    """A trusted widening permission entry as its record keeps it."""
    return {"fingerprint": entry.fingerprint, "where": entry.describe(project)}


def permissions_trust(
    catalog: Catalog, trust_dir: Path | None = None, record: TrustRecord | None = None
) -> tuple[frozenset[str], tuple[GatedEntry, ...]]:
    """The fingerprints of the project's widening permission entries trusted, and the
    entries not trusted yet."""
    entries = gated_entries(catalog.permissions)
    if not entries:
        return frozenset(), ()
    if record is None:
        record = read_record(catalog.project_dir, trust_dir, bound=catalog_bound(catalog))
    trusted = frozenset(e.fingerprint for e in entries if e.fingerprint in record.fingerprints)
    return trusted, tuple(e for e in entries if e.fingerprint not in trusted)


def trust_permission_entries(
    project: Path, entries: Sequence[GatedEntry], trust_dir: Path | None = None
) -> None:
    """Add ``entries`` to the project's record, keeping what it trusts (for entries dsh
    itself wrote into the project's settings on a PermissionRequest answer: the user's or
    a trusted hook's decision). A record dsh cannot read is left as it is."""
    if not entries:
        return
    record = read_record(project, trust_dir)
    if record.problem is not None:
        return
    # Only its own section: saving an entry does not make the project trusted
    # (``project_trusted``), and ``write_record`` keeps the other sections.
    listed = list(record.sections.get("permissions", ()))
    known = {e["fingerprint"] for e in listed}
    listed += [permission_entry(e, project) for e in entries if e.fingerprint not in known]
    write_record(project, trust_dir, {"permissions": listed})
