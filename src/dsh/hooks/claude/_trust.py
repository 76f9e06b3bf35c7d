"""Project trust for Claude Code hooks: what a cloned repository may run, once the user said so.

A hook declared by the project itself (``.claude/settings.json``, and
``.claude/settings.local.json`` at its git root) runs only once the user
trusted it. Each such hook has a fingerprint: a SHA-256 over its declaration
as written (event, matcher, ``if``, command, args, shell, timeout, ...) and
the content of every file of the project its command names (a script it
runs). A trust record holds the fingerprints the user trusted, one JSON file
per project under dsh's data directory (``trust/claude/``), 0600 in 0700
directories, never read or written through a symlink. Changing a hook, or a
script it runs, changes its fingerprint: it needs trust again. User,
``--settings``, managed and plugin hooks are the user's own and always run.
The record also holds the fingerprints of the project's widening permission
entries trusted (``_permissions_trust``: ``permissions.allow`` and
``additionalDirectories`` of ``.claude/settings.json``); only those apply
(``permissions_trust``).

Limits: a file a script reads or imports indirectly is not in the
fingerprint, only the files its command line names.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shlex
import stat
from collections.abc import Iterable, Mapping, Sequence
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
    "TRUST_FORMAT",
    "HookTrust",
    "TrustState",
    "default_trust_dir",
    "hook_trust",
    "permissions_trust",
    "record_trust",
    "trust_notice",
    "trust_permission_entries",
    "trusted_catalog",
]

TRUST_FORMAT: Final = "dsh-claude-trust/1"
PROJECT_KINDS: Final = frozenset({"project", "local"})
"""The sources a project controls: its own settings files."""
_MAX_RECORD_BYTES: Final = 4 << 20
_MAX_HASHED_BYTES: Final = 16 << 20
_MAX_TOKENS: Final = 64


TrustState: TypeAlias = Literal["trusted", "not trusted yet", "changed since trusted"]
"""Whether a project hook may run, and why not."""


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
        text += _shown(self.hook)
        if self.files:
            text += f" (runs {', '.join(self.files)})"
        return text


def _shown(hook: HookDeclaration) -> str:
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


def _named_files(hook: HookDeclaration, project: Path) -> dict[str, str]:
    """The project files the hook's command line names, with their digests."""
    try:
        tokens = shlex.split(hook.declared_command)
    except ValueError:
        tokens = hook.declared_command.split()
    tokens += list(hook.args or ())
    found: dict[str, str] = {}
    root = project.resolve()
    for token in tokens[:_MAX_TOKENS]:
        for name in ("${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR"):
            token = token.replace(name, str(project))
        if not token or "\x00" in token:
            continue
        try:
            resolved = (project / token).resolve()
            rel = resolved.relative_to(root)
        except (OSError, ValueError, RuntimeError):
            continue
        digest = _file_digest(resolved) if resolved != root else None
        if digest is not None:
            found[str(rel)] = digest
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


@final
@frozen
class _Record:
    fingerprints: Mapping[str, str]
    """Fingerprint to where the hook was when trusted (``Event[g][i] in file``)."""
    problem: str | None = None
    permissions: frozenset[str] = frozenset()
    """The fingerprints of the widening permission entries trusted."""
    raw: Mapping[str, object] | None = None
    """The record as read, when it is a valid one."""


def _read_record(path: Path) -> _Record:
    try:
        # Non-blocking: a FIFO planted for the record must not hang the run.
        fd = open_private(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return _Record(FrozenDict())
    except (OSError, SessionError) as exc:
        return _Record(FrozenDict(), f"trust record {path} unreadable: {exc}")
    with os.fdopen(fd, "rb") as f:
        data = f.read(_MAX_RECORD_BYTES + 1)
    try:
        if len(data) > _MAX_RECORD_BYTES:
            raise UnsafeJSONError("larger than 4 MiB")
        parsed = load_json(data)
    except UnsafeJSONError as exc:
        return _Record(FrozenDict(), f"trust record {path} unreadable: {exc}")
    hooks = parsed.get("hooks") if isinstance(parsed, dict) else None
    if not isinstance(parsed, dict) or parsed.get("format") != TRUST_FORMAT:
        return _Record(FrozenDict(), f"trust record {path} is not a {TRUST_FORMAT} record")
    entries = hooks if isinstance(hooks, list) else []
    permissions = parsed.get("permissions")
    return _Record(
        FrozenDict(
            {
                str(e["fingerprint"]): str(e.get("where", ""))
                for e in entries
                if isinstance(e, dict) and isinstance(e.get("fingerprint"), str)
            }
        ),
        permissions=frozenset(
            p for p in (permissions if isinstance(permissions, list) else ()) if isinstance(p, str)
        ),
        raw=parsed,
    )


def _project_hooks(catalog: Catalog) -> list[HookDeclaration]:
    return [h for h in catalog.all_hooks() if h.source.kind in PROJECT_KINDS]


def hook_trust(
    catalog: Catalog, trust_dir: Path | None = None
) -> tuple[tuple[HookTrust, ...], str | None]:
    """Every project hook of ``catalog`` with its trust state, and a problem with the record."""
    project = catalog.project_dir
    record = _read_record(_record_path(trust_dir or default_trust_dir(), project))
    known_places = set(record.fingerprints.values())
    result: list[HookTrust] = []
    for hook in _project_hooks(catalog):
        files = _named_files(hook, project)
        fingerprint = _fingerprint(hook, project, files)
        state: TrustState
        if fingerprint in record.fingerprints:
            state = "trusted"
        elif _place(hook, project) in known_places:
            state = "changed since trusted"
        else:
            state = "not trusted yet"
        result.append(
            HookTrust(hook=hook, fingerprint=fingerprint, files=tuple(files), state=state)
        )
    return tuple(result), record.problem


def permissions_trust(
    catalog: Catalog, trust_dir: Path | None = None
) -> tuple[frozenset[str], tuple[GatedEntry, ...]]:
    """The fingerprints of the project's widening permission entries trusted, and the
    entries not trusted yet."""
    entries = gated_entries(catalog.permissions)
    if not entries:
        return frozenset(), ()
    record = _read_record(_record_path(trust_dir or default_trust_dir(), catalog.project_dir))
    return record.permissions, tuple(e for e in entries if e.fingerprint not in record.permissions)


def _place(hook: HookDeclaration, project: Path) -> str:
    where = hook.origin()
    return f"{hook.event}[{where.group}][{where.index}] in {_relative(Path(where.source), project)}"


def record_trust(catalog: Catalog, trust_dir: Path | None = None) -> tuple[HookTrust, ...]:
    """Trust every project hook ``catalog`` declares now (the record holds exactly those)."""
    project = catalog.project_dir
    hooks, _problem = hook_trust(catalog, trust_dir)
    directory = trust_dir or default_trust_dir()
    make_private_dir(directory)
    record = {
        "format": TRUST_FORMAT,
        "project": str(project),
        "trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "hooks": [
            {
                "fingerprint": h.fingerprint,
                "where": _place(h.hook, project),
                "command": _shown(h.hook),
            }
            for h in hooks
        ],
    }
    entries = gated_entries(catalog.permissions)
    if entries:
        record["permissions"] = sorted({e.fingerprint for e in entries})
    _write_record(_record_path(directory, project), record)
    return tuple(dataclasses.replace(h, state="trusted") for h in hooks)


def trust_permission_entries(
    project: Path, entries: Sequence[GatedEntry], trust_dir: Path | None = None
) -> None:
    """Add ``entries`` to the project's record, keeping what it trusts (for entries dsh
    itself wrote into the project's settings on a PermissionRequest answer: the user's or
    a trusted hook's decision). A record dsh cannot read is left as it is."""
    if not entries:
        return
    directory = trust_dir or default_trust_dir()
    path = _record_path(directory, project)
    record = _read_record(path)
    if record.problem is not None:
        return
    base = dict(record.raw or {"format": TRUST_FORMAT, "project": str(project), "hooks": []})
    base["permissions"] = sorted(record.permissions | {e.fingerprint for e in entries})
    make_private_dir(directory)
    _write_record(path, base)


def _write_record(path: Path, record: Mapping[str, object]) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    fd = open_private(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(record, f, ensure_ascii=True, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)  # replaces a planted link, never writes through it


def trusted_catalog(catalog: Catalog, hooks: Iterable[HookTrust]) -> Catalog:
    """``catalog`` without the project hooks that are not trusted."""
    refused = {id(h.hook) for h in hooks if not h.trusted}
    if not refused:
        return catalog
    kept = {
        event: tuple(h for h in declared if id(h) not in refused)
        for event, declared in catalog.hooks.items()
    }
    return dataclasses.replace(catalog, hooks=FrozenDict({e: h for e, h in kept.items() if h}))


def trust_notice(project: Path, hooks: Sequence[HookTrust], problem: str | None) -> str | None:
    """The one notice of a run that leaves untrusted project hooks out, or ``None``."""
    refused = [h for h in hooks if not h.trusted]
    if not refused:
        return None
    listed = "; ".join(f"{_place(h.hook, project)} ({h.state})" for h in refused)
    quoted = shlex.quote(str(project))
    text = (
        f"warning: {len(refused)} hook(s) of the untrusted project {project} not run: {listed}."
        f" Review them with `dsh hooks check --project {quoted}`, trust them with"
        f" `dsh hooks trust --project {quoted}`, or run with --trust-project"
    )
    return text if problem is None else f"{text} ({problem})"
