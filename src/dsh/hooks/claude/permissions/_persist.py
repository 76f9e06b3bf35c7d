"""Writing a PermissionRequest's ``updatedPermissions`` into the settings file it names.

An entry whose ``destination`` is ``localSettings``, ``projectSettings`` or
``userSettings`` is merged into that file as Claude Code 2.1.332 merges it:
``addRules`` appends the rules not already in ``permissions.<behavior>``,
``replaceRules`` replaces that list, ``removeRules`` takes rules out of it,
``add-``/``removeDirectories`` edit ``permissions.additionalDirectories``,
``setMode`` writes ``permissions.defaultMode`` (``bypassPermissions`` never:
it stays a session mode). Every other key stays as it was, in its order, and
the file keeps its indentation.

The file is written atomically (a temporary file in the same directory, then
a rename), a new one 0600, an existing one keeps its mode. Nothing is
followed through a symbolic link: neither the file nor, for the project's
files, the ``.claude`` directory (a cloned repository may plant either). A
file dsh cannot read as a JSON object (or whose ``permissions`` has the
wrong shape) is never replaced: ``persist_update`` returns why, and the
update holds for the session only.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.hooks.claude.settings._parse import MAX_SETTINGS_BYTES, read_json_text

__all__ = [
    "PERSISTED",
    "Destination",
    "SettingsTargets",
    "persist_update",
    "rule_text",
]

Destination: TypeAlias = Literal["localSettings", "projectSettings", "userSettings"]
PERSISTED: Final[frozenset[str]] = frozenset({"localSettings", "projectSettings", "userSettings"})
SCOPE_OF: Final[Mapping[str, str]] = {
    "localSettings": "local",
    "projectSettings": "project",
    "userSettings": "user",
}
_INDENT: Final = re.compile(r"\{\s*?\n([ \t]+)\S")


@final
@frozen(kw_only=True)
class SettingsTargets:
    """Where each settings ``destination`` is written: its directory (``.claude`` for the
    project's, the Claude config directory for the user's) and the file in it.

    ``anchor`` is the directory a project file's ``.claude`` is in (the project, or its
    git root for local settings): ``.claude`` itself is never a link dsh follows.
    """

    project: Path
    local_root: Path
    config_dir: Path
    written: Callable[[Mapping[str, Any]], None] | None = None
    """Told each entry written into the project's ``settings.json`` (its trust seam)."""

    def file(self, destination: Destination) -> Path:
        if destination == "userSettings":
            return self.config_dir / "settings.json"
        if destination == "localSettings":
            return self.local_root / ".claude" / "settings.local.json"
        return self.project / ".claude" / "settings.json"


def rule_text(item: Mapping[str, Any]) -> str:
    """``{toolName, ruleContent?}`` as a settings rule string: ``Tool`` or ``Tool(content)``."""
    content = item.get("ruleContent")
    return str(item["toolName"]) if content is None else f"{item['toolName']}({content})"


def persist_update(entry: Mapping[str, Any], targets: SettingsTargets) -> str | None:
    """Merge one ``updatedPermissions`` entry into its destination's file; ``None`` when it
    was written (or nothing needed writing), else why the file was left as it was."""
    destination = entry.get("destination")
    if destination not in PERSISTED:
        return None
    dest: Destination = destination
    if entry.get("type") == "setMode" and entry.get("mode") == "bypassPermissions":
        return None  # Claude Code: "setMode:'bypassPermissions' is session-scoped"
    path = targets.file(dest)
    try:
        directory = _open_directory(targets, dest)
    except OSError as exc:
        return f"{path.parent}: {_why(exc)}"
    try:
        why = _merge_into(directory, path, entry)
    finally:
        os.close(directory)
    if why is None and dest == "projectSettings" and targets.written is not None:
        targets.written(entry)
    return why


def _open_directory(targets: SettingsTargets, destination: Destination) -> int:
    """An fd of the directory the file goes in, created if missing (0700), never a link."""
    if destination == "userSettings":
        # The user's own config directory (CLAUDE_CONFIG_DIR may well be a link: theirs).
        targets.config_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        return os.open(targets.config_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    anchor = targets.local_root if destination == "localSettings" else targets.project
    parent = os.open(anchor, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(".claude", 0o700, dir_fd=parent)
        return os.open(
            ".claude", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent
        )
    finally:
        os.close(parent)


def _merge_into(directory: int, path: Path, entry: Mapping[str, Any]) -> str | None:
    name = path.name
    try:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(name, flags, dir_fd=directory)
    except FileNotFoundError:
        text, mode = None, 0o600
    except OSError as exc:
        return f"{path}: {_why(exc)}"
    else:
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                return f"{path}: not a regular file"
            raw = f.read(MAX_SETTINGS_BYTES + 1)
        mode = stat.S_IMODE(st.st_mode)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            return f"{path}: not UTF-8 (byte {exc.start}); the file is left as it is"
    data: dict[str, Any]
    if text is None or not text.strip():
        data = {}
    else:
        parsed = read_json_text(text)
        if not isinstance(parsed, dict):
            return f"{path}: {parsed.reason}; the file is left as it is"
        data = parsed
    try:
        changed = merge_entry(data, entry)
    except ValueError as exc:
        return f"{path}: {exc}; the file is left as it is"
    if not changed:
        return None
    rendered = json.dumps(data, indent=_indent_of(text), ensure_ascii=False) + "\n"
    try:
        _replace(directory, name, rendered.encode("utf-8"), mode)
    except OSError as exc:
        return f"{path}: cannot write it: {exc.strerror or exc}"
    return None


def _indent_of(text: str | None) -> str | int:
    """The file's indentation (its first indented key's), else Claude Code's two spaces."""
    found = _INDENT.match(text.lstrip("\ufeff")) if text else None
    return found.group(1) if found else 2


def _replace(directory: int, name: str, body: bytes, mode: int) -> None:
    """Write ``body`` to a temporary file beside ``name`` and rename it over ``name``
    (the rename replaces a link planted meanwhile; it never writes through one)."""
    temporary = f".{name}.dsh-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temporary, flags, 0o600, dir_fd=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=directory)
        raise
    with contextlib.suppress(OSError):
        os.fsync(directory)


def _why(exc: OSError) -> str:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return "a symbolic link (or not a directory); dsh does not write through it"
    return exc.strerror or str(exc)


def merge_entry(data: dict[str, Any], entry: Mapping[str, Any]) -> bool:
    """Apply ``entry`` to a settings object in place, as Claude Code merges it; whether
    anything changed. ``ValueError`` when the file's ``permissions`` has the wrong shape."""
    block = data.get("permissions")
    if block is None:
        block = {}
    if not isinstance(block, dict):
        raise ValueError("`permissions` is not an object")
    kind = entry.get("type")
    before = json.dumps(block, sort_keys=True)
    if kind == "setMode":
        block["defaultMode"] = entry.get("mode")
    elif kind in ("addDirectories", "removeDirectories"):
        listed = [str(d) for d in entry.get("directories") or ()]
        kept = _list(block, "additionalDirectories")
        if kind == "addDirectories":
            block["additionalDirectories"] = kept + [d for d in listed if d not in kept]
        else:
            block["additionalDirectories"] = [d for d in kept if d not in listed]
    elif kind in ("addRules", "replaceRules", "removeRules"):
        behavior = str(entry.get("behavior"))
        rules = [rule_text(r) for r in entry.get("rules") or ()]
        kept = _list(block, behavior)
        if kind == "addRules":
            block[behavior] = kept + [r for r in dict.fromkeys(rules) if r not in kept]
        elif kind == "replaceRules":
            block[behavior] = list(dict.fromkeys(rules))
        else:
            block[behavior] = [r for r in kept if r not in rules]
    else:
        return False
    if json.dumps(block, sort_keys=True) == before:
        return False
    data["permissions"] = block
    return True


def _list(block: Mapping[str, Any], key: str) -> list[Any]:
    value = block.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"`permissions.{key}` is not a list")
    return list(value)
