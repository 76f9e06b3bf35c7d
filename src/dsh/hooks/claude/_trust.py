"""Project trust for Claude Code hooks: the fingerprints, and the records that keep them.

What a project controls runs only once the user trusted it (see
``dsh.hooks.claude._trust_review`` for the review as a whole: the project's
hooks, the plugins its settings enable and its instructions files). A hook
declared by the project itself (``.claude/settings.json``, and
``.claude/settings.local.json`` at its git root) runs only once the user
trusted it. Each such hook has a fingerprint: a SHA-256 over its declaration
as written (event, matcher, ``if``, command, args, shell, timeout, ...) and
the content of every file of the project its command names (a script it
runs). A trust record holds the fingerprints the user trusted, one JSON file
per project under dsh's data directory (``trust/claude/``), 0600 in 0700
directories, never read or written through a symlink. Changing a hook, or a
script it runs, changes its fingerprint: it needs trust again. User,
``--settings``, managed and plugin hooks are the user's own and always run
(a plugin that only the project's settings enable is the project's choice).
The record also holds the fingerprints of the project's widening permission
entries trusted (``_permissions_trust``: ``permissions.allow`` and
``additionalDirectories`` of ``.claude/settings.json``); only those apply
(``permissions_trust``).

Limits: a file a script reads or imports indirectly is not in the
fingerprint, only the files its command line names.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import stat
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal, TypeAlias, final

from dsh._data_dir import user_data_dir
from dsh._frozen import frozen
from dsh.base import UnsafeJSONError, load_json
from dsh.hooks.claude._permissions_trust import GatedEntry, gated_entries
from dsh.hooks.claude._types import Catalog, HookDeclaration
from dsh.session import FrozenDict, SessionError, make_private_dir, open_private

__all__ = [
    "PROJECT_KINDS",
    "RECORD_SECTIONS",
    "TRUST_FORMAT",
    "HookTrust",
    "TrustRecord",
    "TrustState",
    "default_trust_dir",
    "hook_entry",
    "hook_fingerprint",
    "hook_trust",
    "permission_entry",
    "permissions_trust",
    "place",
    "read_record",
    "shown",
    "state_of",
    "trust_permission_entries",
    "write_record",
]

TRUST_FORMAT: Final = "dsh-claude-trust/1"
PROJECT_KINDS: Final = frozenset({"project", "local"})
"""The sources a project controls: its own settings files."""
_MAX_RECORD_BYTES: Final = 4 << 20
_MAX_HASHED_BYTES: Final = 16 << 20
_MAX_TOKENS: Final = 64


TrustState: TypeAlias = Literal[
    "trusted", "not trusted yet", "changed since trusted", "imported by a file not trusted"
]
"""Whether a project hook (or instructions file) may run, and why not."""


def default_trust_dir() -> Path:
    """Where trust records live: dsh's data directory, ``trust/claude``."""
    return user_data_dir() / "trust" / "claude"


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
        where = self.hook.origin()
        source = _relative(Path(where.source), project)
        text = f"{self.hook.event}[{where.group}][{where.index}] in {source}: "
        text += shown(self.hook)
        if self.files:
            text += f" (runs {', '.join(self.files)})"
        return text


def shown(hook: HookDeclaration) -> str:
    if hook.args is None:
        return hook.declared_command
    return shlex.join([hook.declared_command, *hook.args])


def _relative(path: Path, project: Path) -> str:
    try:
        return str(path.relative_to(project))
    except ValueError:
        return str(path)


def _record_path(trust_dir: Path, project: Path) -> Path:
    digest = hashlib.sha256(str(project).encode("utf-8", "surrogateescape")).hexdigest()
    return trust_dir / f"{digest[:40]}.json"


def _file_digest(path: Path) -> str | None:
    """The SHA-256 of a regular file's first 16 MiB and its size; ``None`` for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):  # never block on a FIFO or read a device
            return None
        h = hashlib.sha256()
        left = _MAX_HASHED_BYTES
        while left > 0 and (chunk := f.read(min(left, 1 << 20))):
            h.update(chunk)
            left -= len(chunk)
        return f"{h.hexdigest()}:{st.st_size}"


def _named_files(
    hook: HookDeclaration, project: Path, plugin_root: Path | None = None
) -> dict[str, str]:
    """The project (or plugin) files the hook's command line names, with their digests.

    A file inside the plugin's root is named ``plugin:<path in it>``."""
    try:
        tokens = shlex.split(hook.declared_command)
    except ValueError:
        tokens = hook.declared_command.split()
    tokens += list(hook.args or ())
    found: dict[str, str] = {}
    roots = [("", project.resolve())]
    places = {"CLAUDE_PROJECT_DIR": str(project)}
    if plugin_root is not None:
        roots.insert(0, ("plugin:", plugin_root.resolve()))
        places["CLAUDE_PLUGIN_ROOT"] = str(plugin_root)
    for token in tokens[:_MAX_TOKENS]:
        for name, value in places.items():
            token = token.replace("${" + name + "}", value).replace("$" + name, value)
        if not token or "\x00" in token:
            continue
        try:
            resolved = (project / token).resolve()
        except (OSError, ValueError, RuntimeError):
            continue
        for prefix, root in roots:
            if resolved == root or not resolved.is_relative_to(root):
                continue
            digest = _file_digest(resolved)
            if digest is not None:
                found[prefix + str(resolved.relative_to(root))] = digest
            break
    return found


def _fingerprint(hook: HookDeclaration, project: Path, files: dict[str, str]) -> str:
    source = hook.source.path
    declared = {
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
    text = json.dumps(declared, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


RECORD_SECTIONS: Final = ("hooks", "plugins", "instructions", "permissions")
"""The lists of a trust record: each entry a ``fingerprint`` and the ``where`` it was."""


@final
@frozen
class TrustRecord:
    fingerprints: Mapping[str, str]
    """Fingerprint to where the hook was when trusted (``Event[g][i] in file``)."""
    problem: str | None = None
    sections: Mapping[str, tuple[Mapping[str, str], ...]] = FrozenDict()
    """The record's valid entries per section, as read (kept when entries are added)."""


def _read_record(path: Path) -> TrustRecord:
    try:
        # Non-blocking: a FIFO planted for the record must not hang the run.
        fd = open_private(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return TrustRecord(FrozenDict())
    except (OSError, SessionError) as exc:
        return TrustRecord(FrozenDict(), f"trust record {path} unreadable: {exc}")
    with os.fdopen(fd, "rb") as f:
        data = f.read(_MAX_RECORD_BYTES + 1)
    try:
        if len(data) > _MAX_RECORD_BYTES:
            raise UnsafeJSONError("larger than 4 MiB")
        parsed = load_json(data)
    except UnsafeJSONError as exc:
        return TrustRecord(FrozenDict(), f"trust record {path} unreadable: {exc}")
    if not isinstance(parsed, dict) or parsed.get("format") != TRUST_FORMAT:
        return TrustRecord(FrozenDict(), f"trust record {path} is not a {TRUST_FORMAT} record")
    sections = {
        section: tuple(
            {str(k): str(v) for k, v in e.items()}
            for e in listed
            if isinstance(e, dict) and isinstance(e.get("fingerprint"), str)
        )
        for section in RECORD_SECTIONS
        if isinstance(listed := parsed.get(section), list)
    }
    entries = [entry for listed in sections.values() for entry in listed]
    return TrustRecord(
        FrozenDict({e["fingerprint"]: e.get("where", "") for e in entries}),
        sections=FrozenDict(sections),
    )


def _project_hooks(catalog: Catalog) -> list[HookDeclaration]:
    return [h for h in catalog.all_hooks() if h.source.kind in PROJECT_KINDS]


def read_record(project: Path, trust_dir: Path | None = None) -> TrustRecord:
    """The project's trust record (empty, with the problem said, when it cannot be used)."""
    return _read_record(_record_path(trust_dir or default_trust_dir(), project))


def state_of(fingerprint: str, place: str, record: TrustRecord) -> TrustState:
    """Trusted, or why not: a place trusted with another fingerprint changed since."""
    if fingerprint in record.fingerprints:
        return "trusted"
    if place in set(record.fingerprints.values()):
        return "changed since trusted"
    return "not trusted yet"


def hook_fingerprint(
    hook: HookDeclaration, project: Path, plugin_root: Path | None = None
) -> tuple[str, dict[str, str]]:
    """A hook's fingerprint and the files of the project (or plugin) its command names."""
    files = _named_files(hook, project, plugin_root)
    return _fingerprint(hook, project, files), files


def hook_trust(
    catalog: Catalog, trust_dir: Path | None = None, record: TrustRecord | None = None
) -> tuple[tuple[HookTrust, ...], str | None]:
    """Every project hook of ``catalog`` with its trust state, and a problem with the record."""
    project = catalog.project_dir
    if record is None:
        record = read_record(project, trust_dir)
    result: list[HookTrust] = []
    for hook in _project_hooks(catalog):
        fingerprint, files = hook_fingerprint(hook, project)
        state = state_of(fingerprint, place(hook, project), record)
        result.append(
            HookTrust(hook=hook, fingerprint=fingerprint, files=tuple(files), state=state)
        )
    return tuple(result), record.problem


def place(hook: HookDeclaration, project: Path) -> str:
    where = hook.origin()
    return f"{hook.event}[{where.group}][{where.index}] in {_relative(Path(where.source), project)}"


def write_record(
    project: Path, trust_dir: Path | None, sections: Mapping[str, Sequence[Mapping[str, str]]]
) -> None:
    """Replace the project's record with ``sections`` (each entry a ``fingerprint`` and
    ``where``), 0600 in 0700 directories, through a temporary file renamed over it."""
    directory = trust_dir or default_trust_dir()
    make_private_dir(directory)
    record: dict[str, object] = {
        "format": TRUST_FORMAT,
        "project": str(project),
        "trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **{name: [dict(e) for e in sections.get(name, ())] for name in RECORD_SECTIONS},
    }
    path = _record_path(directory, project)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    fd = open_private(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(record, f, ensure_ascii=True, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)  # replaces a planted link, never writes through it


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
        record = read_record(catalog.project_dir, trust_dir)
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
    sections = {name: list(record.sections.get(name, ())) for name in RECORD_SECTIONS}
    known = {e["fingerprint"] for e in sections["permissions"]}
    sections["permissions"] += [
        permission_entry(e, project) for e in entries if e.fingerprint not in known
    ]
    write_record(project, trust_dir, sections)
