"""The per-project trust record both bridges keep their fingerprints in, and file digests.

One JSON file per project under dsh's data directory (``trust/claude/<sha256
of the project path>.json``: the place and the ``dsh-claude-trust/1`` format
name are the Claude Code bridge's, kept so records already written stay
valid), 0600 in 0700 directories, never read or written through a symlink.
It holds lists (sections) of entries, each a ``fingerprint`` and the
``where`` it was. Each bridge owns its sections: the Claude Code bridge
``hooks``, ``plugins``, ``instructions`` and ``permissions``, the Codex
bridge ``codex``. ``read_record`` reads every section, and the fingerprints of
the sections asked for; ``write_record`` replaces the sections it is given
and keeps the others as they were, so one bridge's trust never erases the
other's.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal, TypeAlias, final

from dsh._data_dir import user_data_dir
from dsh._frozen import frozen
from dsh.base import DshError, FrozenDict, UnsafeJSONError, load_json, read_bounded
from dsh.session import SessionError
from dsh.session._private_files import make_private_dir, open_private

__all__ = [
    "TRUST_FORMAT",
    "TrustRecord",
    "TrustState",
    "UntrustedHooksError",
    "default_trust_dir",
    "file_digest",
    "read_record",
    "record_bound",
    "record_path",
    "state_of",
    "write_record",
]

TRUST_FORMAT: Final = "dsh-claude-trust/1"
_MAX_RECORD_BYTES: Final = 4 << 20
"""A record's bound before the entries it covers: what a small project's record needs."""
_ENTRY_BYTES: Final = 1 << 10
"""Each entry's fixed part (its fingerprint, keys, indentation) in a record's bound."""
_ESCAPED_CHAR_BYTES: Final = 12
"""A character of an entry's text at its longest in the record (``ensure_ascii``: a
character outside the BMP is two escapes of six bytes each)."""
_MAX_HASHED_BYTES: Final = 16 << 20
_METADATA: Final = frozenset({"format", "project", "trusted_at"})

TrustState: TypeAlias = Literal[
    "trusted", "not trusted yet", "changed since trusted", "imported by a file not trusted"
]
"""Whether a project item may run or load, and why not."""


class UntrustedHooksError(DshError, RuntimeError):
    """A run asked to fail closed met project hooks that are not trusted: it does not start.

    Raised by a bridge's profile while it loads (before any hook runs or the session
    log exists); the message names the hooks and the ways forward, and a front end
    shows it as it is (``dsh run`` exits 2 with it)."""


def default_trust_dir() -> Path:
    """Where trust records live: dsh's data directory, ``trust/claude``."""
    return user_data_dir() / "trust" / "claude"


def record_path(project: Path, trust_dir: Path | None = None) -> Path:
    """The record file of ``project`` (its path as given: callers pass it absolute)."""
    digest = hashlib.sha256(str(project).encode("utf-8", "surrogateescape")).hexdigest()
    return (trust_dir or default_trust_dir()) / f"{digest[:40]}.json"


def file_digest(path: Path) -> str | None:
    """The SHA-256 of a regular file's first 16 MiB and its size; ``None`` for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except (OSError, ValueError):
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):  # never block on a FIFO or read a device
            return None
        h = hashlib.sha256()
        left = _MAX_HASHED_BYTES
        try:
            while left > 0 and (chunk := f.read(min(left, 1 << 20))):
                h.update(chunk)
                left -= len(chunk)
        except OSError:
            return None
        return f"{h.hexdigest()}:{st.st_size}"


@final
@frozen
class TrustRecord:
    fingerprints: Mapping[str, str]
    """Fingerprint to where the item was when trusted, over the sections asked for."""
    problem: str | None = None
    sections: Mapping[str, tuple[Mapping[str, str], ...]] = FrozenDict()
    """Every section of the record with its valid entries, as read (kept on a write)."""
    places: frozenset[str] = frozenset()
    """Every ``where`` of ``fingerprints`` (its values), so ``state_of`` asks a set, not the
    whole record, for each item it reviews."""

    def has(self, section: str) -> bool:
        """Whether the record holds ``section`` at all (an empty list counts)."""
        return section in self.sections


def record_bound(texts: Iterable[str] = ()) -> int:
    """The bytes a record is read within: a base for a small project, plus room for each
    entry it may hold, given as the ``texts`` that entry shows (a hook's command and
    where it was), so the bound grows with what the record covers."""
    return _MAX_RECORD_BYTES + sum(_ENTRY_BYTES + _ESCAPED_CHAR_BYTES * len(t) for t in texts)


def _read(path: Path, bound: int) -> tuple[dict[str, object] | None, str | None, bool]:
    """The record's JSON object (``None`` when absent), or the problem with it, and whether
    a record dsh could not read may still hold trust: a regular file over ``bound`` or
    refused by the system (permissions, I/O) may; a planted link, a FIFO or device, or
    bytes that are no record hold none."""
    try:
        data = read_bounded(path, bound, "trust record", follow=False)
    except FileNotFoundError:
        return None, None, False
    except (OSError, SessionError) as exc:
        try:
            kept = stat.S_ISREG(os.lstat(path).st_mode)
        except OSError:
            kept = False
        return None, f"trust record {path} unreadable: {exc}", kept
    try:
        parsed = load_json(data)
    except UnsafeJSONError as exc:
        return None, f"trust record {path} unreadable: {exc}", False
    if not isinstance(parsed, dict) or parsed.get("format") != TRUST_FORMAT:
        return None, f"trust record {path} is not a {TRUST_FORMAT} record", False
    return parsed, None, False


def read_record(
    project: Path,
    trust_dir: Path | None = None,
    *,
    owned: Sequence[str] = (),
    bound: int = _MAX_RECORD_BYTES,
) -> TrustRecord:
    """The project's record (empty, with the problem said, when it cannot be used);
    ``fingerprints`` covers the ``owned`` sections only. ``bound``: the bytes it is read
    within, ``record_bound`` of what the caller's configuration may have recorded, so a
    large trusted project stays trusted."""
    parsed, problem, _kept = _read(record_path(project, trust_dir), bound)
    if parsed is None:
        return TrustRecord(FrozenDict(), problem)
    return _record(parsed, owned)


def _record(parsed: Mapping[str, object], owned: Sequence[str]) -> TrustRecord:
    sections = {
        str(section): tuple(
            {str(k): str(v) for k, v in e.items()}
            for e in listed
            if isinstance(e, dict) and isinstance(e.get("fingerprint"), str)
        )
        for section, listed in parsed.items()
        if section not in _METADATA and isinstance(listed, list)
    }
    entries = [entry for name in owned for entry in sections.get(name, ())]
    fingerprints = FrozenDict({e["fingerprint"]: e.get("where", "") for e in entries})
    return TrustRecord(
        fingerprints,
        sections=FrozenDict(sections),
        places=frozenset(fingerprints.values()),
    )


def state_of(fingerprint: str, place: str, record: TrustRecord) -> TrustState:
    """Trusted, or why not: a place trusted with another fingerprint changed since."""
    if fingerprint in record.fingerprints:
        return "trusted"
    if place in record.places:
        return "changed since trusted"
    return "not trusted yet"


def write_record(
    project: Path,
    trust_dir: Path | None,
    sections: Mapping[str, Sequence[Mapping[str, str]]],
    *,
    bound: int | None = None,
) -> None:
    """Replace ``sections`` of the project's record (each entry a ``fingerprint`` and
    ``where``), keeping its other sections; 0600 in 0700 directories, through a temporary
    file renamed over it.

    The record as it is is read within ``bound`` (at least ``record_bound`` of what is
    written): what it keeps must be read whole, so a record over that bound or that the
    system refuses to read is left as it is and the write refused (``SessionError``
    naming the file and how to go on), never replaced by one that would lose another
    bridge's sections or anything else it trusts. A planted link, a FIFO, or bytes that
    are no record (which hold no trust anyone could read) are replaced."""
    directory = trust_dir or default_trust_dir()
    make_private_dir(directory)
    path = record_path(project, directory)
    written = (text for entries in sections.values() for e in entries for text in e.values())
    limit = max(bound or 0, record_bound(written))
    parsed, problem, kept = _read(path, limit)
    if kept:
        raise SessionError(
            f"{problem}; it was left as it is, since replacing it would lose what it records"
            " (move it away to start again: what it trusted then needs trust again)"
        )
    old = _record(parsed, ()).sections if parsed is not None else {}
    merged = {**old, **sections}
    record: dict[str, object] = {
        "format": TRUST_FORMAT,
        "project": str(project),
        "trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **{name: [dict(e) for e in entries] for name, entries in merged.items()},
    }
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    fd = open_private(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(_record_text(record))
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)  # replaces a planted link, never writes through it


def _record_text(record: Mapping[str, object]) -> str:
    """``json.dumps(record, ensure_ascii=True, indent=1)``, byte for byte, for a record of
    strings and lists of string-to-string entries: the pure-Python indenting encoder
    ``json`` falls back to for ``indent`` costs ~50 µs an entry, this a few."""
    encode = json.encoder.encode_basestring_ascii
    lines = ["{"]
    items = list(record.items())
    for n, (key, value) in enumerate(items):
        comma = "," if n < len(items) - 1 else ""
        if isinstance(value, str):
            lines.append(f" {encode(key)}: {encode(value)}{comma}")
            continue
        assert isinstance(value, list)
        if not value:
            lines.append(f" {encode(key)}: []{comma}")
            continue
        lines.append(f" {encode(key)}: [")
        for i, entry in enumerate(value):
            if entry:
                fields = ",\n".join(f"   {encode(k)}: {encode(v)}" for k, v in entry.items())
                lines.append(f"  {{\n{fields}\n  }}" + ("," if i < len(value) - 1 else ""))
            else:
                lines.append("  {}" + ("," if i < len(value) - 1 else ""))
        lines.append(f" ]{comma}")
    lines.append("}")
    return "\n".join(lines)
