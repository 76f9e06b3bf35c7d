"""Codex's hook trust: the key, the hash recipe, the records in ``config.toml``, writing them.

A non-managed hook runs only when ``[hooks.state."<key>"].trusted_hash`` in the
user's ``config.toml`` equals the hook's hash (reference §1.2, verified on
0.171). The key is ``<absolute source path>:<event label>:<group>:<handler>``;
the hash is ``sha256:`` and the hex SHA-256 of the compact JSON (keys sorted at
every level, UTF-8 as is) of ``{"event_name", "matcher"?, "hooks": [handler]}``,
the handler normalized (``type``, ``command``, effective ``timeout``, ``async``,
``statusMessage`` if set, ``additionalContextLimit`` if set, not 2500 and on an
event that may emit ``additionalContext``; ``commandWindows`` dropped). So a hook
trusted here is trusted by Codex and the other way round: the recipe is checked
against hashes the real Codex 0.171 computed and accepted
(``tests/hooks_codex/fixtures/codex-trust``). ``record_trust`` writes the records
into ``config.toml`` in Codex's own layout, editing the file's text so the rest
stays as written.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import json
import os
import re
import stat
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from dsh._frozen import frozen
from dsh.base import DshError, read_bounded
from dsh.hooks.codex.events._specs import CONTEXT_LIMIT_EVENTS, EVENT_LABELS, MATCHER_FIELDS

__all__ = [
    "DEFAULT_CONTEXT_LIMIT",
    "MAX_USER_CONFIG_BYTES",
    "HookState",
    "TrustError",
    "hook_hash",
    "hook_key",
    "mcp_hook_hash",
    "read_states",
    "record_trust",
    "toml_string",
]

MAX_USER_CONFIG_BYTES: Final = 64 << 20
"""The user's ``config.toml``, which trust writes rewrite: read whole, so bounded, and
within the same bound wherever it is read (its records grow with the hooks trusted:
~150 bytes each, so 10,000 hooks are ~1.5 MB, over the 1 MiB of a hook source)."""

DEFAULT_CONTEXT_LIMIT: Final = 2500
"""``additionalContextLimit`` when unset (approximate tokens); left out of the hash."""


class TrustError(DshError, ValueError):
    """A trust record could not be written; the message names the file and why."""


@frozen(kw_only=True)
class HookState:
    """One ``[hooks.state."<key>"]`` record: the trusted hash, whether the hook is enabled."""

    trusted_hash: str | None = None
    enabled: bool = True


def hook_key(source: Path | str, event: str, group: int, index: int) -> str:
    """``/abs/.codex/hooks.json:pre_tool_use:0:0``."""
    return f"{source}:{EVENT_LABELS[event]}:{group}:{index}"


def mcp_hook_hash(
    event: str,
    matcher: str | None,
    *,
    server: str,
    tool: str,
    input: Mapping[str, Any],
    timeout: int,
    status_message: str | None = None,
) -> str:
    """The ``trusted_hash`` Codex computes for one ``mcp_tool`` handler (checked against the
    ``currentHash`` of 0.171's ``hooks/list``: ``input`` is ``{}`` when left out, ``timeout``
    the effective one)."""
    handler: dict[str, Any] = {
        "type": "mcp_tool",
        "server": server,
        "tool": tool,
        "input": dict(input),
        "timeout": timeout,
    }
    if status_message is not None:
        handler["statusMessage"] = status_message
    return _digest(event, matcher, handler)


def _digest(event: str, matcher: str | None, handler: Mapping[str, Any]) -> str:
    identity: dict[str, Any] = {"event_name": EVENT_LABELS[event], "hooks": [handler]}
    if matcher is not None and event in MATCHER_FIELDS:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def hook_hash(
    event: str,
    matcher: str | None,
    *,
    command: str,
    timeout: int,
    run_async: bool,
    status_message: str | None = None,
    additional_context_limit: int | None = None,
) -> str:
    """The ``trusted_hash`` Codex computes for one command handler (``timeout`` effective)."""
    handler: dict[str, Any] = {
        "type": "command",
        "command": command,
        "timeout": timeout,
        "async": run_async,
    }
    if status_message is not None:
        handler["statusMessage"] = status_message
    if (
        additional_context_limit is not None
        and additional_context_limit != DEFAULT_CONTEXT_LIMIT
        and event in CONTEXT_LIMIT_EVENTS
    ):
        handler["additionalContextLimit"] = additional_context_limit
    return _digest(event, matcher, handler)


def read_states(config: Mapping[str, Any]) -> dict[str, HookState]:
    """The ``[hooks.state]`` records of a parsed ``config.toml`` (malformed ones left out)."""
    hooks = config.get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    if not isinstance(states, dict):
        return {}
    out: dict[str, HookState] = {}
    for key, value in states.items():
        if not isinstance(value, dict):
            continue
        trusted = value.get("trusted_hash")
        enabled = value.get("enabled", True)
        out[key] = HookState(
            trusted_hash=trusted if isinstance(trusted, str) else None,
            enabled=enabled if isinstance(enabled, bool) else True,
        )
    return out


_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_TOML_ESCAPES: Final = str.maketrans(
    {
        **{chr(c): f"\\u{c:04X}" for c in (*range(0x20), 0x7F)},
        **_ESCAPES,
    }
)


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string."""
    return '"' + text.translate(_TOML_ESCAPES) + '"'


# Compiled when trust is first recorded (``dsh hooks trust``): a run only reads the records.
@functools.cache
def _header() -> re.Pattern[str]:
    """A ``[projects."<key>"]`` or ``[hooks.state."<key>"]`` header, the key as a basic string."""
    return re.compile(
        r"^[ \t]*\[[ \t]*(?P<prefix>projects|hooks[ \t]*\.[ \t]*state)[ \t]*\.[ \t]*"
        r'(?P<key>"(?:[^"\\\n]|\\.)*")[ \t]*\][ \t]*(?:#.*)?$',
        re.M,
    )


@functools.cache
def _table_start() -> re.Pattern[str]:
    return re.compile(r"^[ \t]*\[", re.M)


def _lookup(parsed: Mapping[str, Any], prefix: tuple[str, ...]) -> Any:
    table: Any = parsed
    for part in prefix:
        table = table.get(part) if isinstance(table, dict) else None
    return table


def _field_line(field: str) -> re.Pattern[str]:
    return re.compile(rf"^[ \t]*{re.escape(field)}[ \t]*=.*$", re.M)


def _with_values(
    text: str,
    parsed: Mapping[str, Any],
    values: Sequence[tuple[tuple[str, ...], str, str, str]],
    path: Path,
) -> str:
    """``text`` with each ``[<prefix>."<key>"] <field> = "<value>"`` of ``values`` set, the
    rest as written: a table already there gets the line (replacing the field's first
    line), the others are appended in order. One pass over ``text`` for all of them (a
    trust review of thousands of hooks would otherwise rescan and reparse the file per
    hook); the last value given for a table wins."""
    headers: dict[tuple[str, str], re.Match[str]] = {}
    for found_header in _header().finditer(text):
        dotted = re.sub(r"[ \t]+", "", found_header["prefix"])
        headers.setdefault((dotted, found_header["key"]), found_header)
    starts = [m.start() for m in _table_start().finditer(text)]
    wanted: dict[tuple[str, str], tuple[tuple[str, ...], str, str, str]] = {}
    for value_prefix, value_key, value_field, value_text in values:
        where = (".".join(value_prefix), toml_string(value_key))
        wanted[where] = (value_prefix, value_key, value_field, value_text)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), in no order yet
    appended: list[str] = []
    for where, (prefix, key, field, value) in wanted.items():
        line = f"{field} = {toml_string(value)}"
        header = headers.get(where)
        if header is None:
            table = _lookup(parsed, prefix)
            if isinstance(table, dict) and key in table:
                raise TrustError(
                    f'{path}: the record for {key} is not a [{".".join(prefix)}."…"] table;'
                    " edit it by hand"
                )
            appended.append(f"[{where[0]}.{where[1]}]\n{line}\n")
            continue
        body_start = header.end() + 1
        if body_start > len(text):  # the header is the file's last line, with no newline
            edits.append((len(text), len(text), f"\n{line}\n"))
            continue
        nxt = bisect.bisect_left(starts, body_start)
        body_end = starts[nxt] if nxt < len(starts) else len(text)
        found = _field_line(field).search(text, body_start, body_end)
        if found is not None:
            edits.append((found.start(), found.end(), line))
        else:
            edits.append((body_start, body_start, f"{line}\n"))
    parts: list[str] = []
    at = 0
    for start, end, replacement in sorted(edits, key=lambda e: e[0]):
        parts += [text[at:start], replacement]
        at = end
    parts.append(text[at:])
    edited = "".join(parts)
    if not appended:
        return edited
    sep = "" if not edited or edited.endswith("\n\n") else "\n" if edited.endswith("\n") else "\n\n"
    return edited + sep + "\n".join(appended)


def record_trust(
    config_path: Path, records: Sequence[tuple[str, str]], *, projects: Sequence[Path] = ()
) -> None:
    """Write ``(key, hash)`` records into ``config_path`` as Codex's ``/hooks`` review does,
    and ``[projects."<path>"] trust_level = "trusted"`` for each of ``projects`` (as
    ``codex exec --trust`` does).

    The file is created if missing (mode 0600); an existing one keeps the rest
    of its text. The result must parse as TOML and hold every record, or
    nothing is written (``TrustError``).
    """
    try:
        text = (
            read_bounded(config_path, MAX_USER_CONFIG_BYTES, "Codex config").decode("utf-8")
            if config_path.exists()
            else ""
        )
        original = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TrustError(f"{config_path}: cannot be read as TOML: {exc}") from None
    values: list[tuple[tuple[str, ...], str, str, str]] = [
        (("projects",), str(project), "trust_level", "trusted") for project in projects
    ]
    values += [(("hooks", "state"), key, "trusted_hash", digest) for key, digest in records]
    text = _with_values(text, original, values, config_path)
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TrustError(f"{config_path}: recording trust would break the file: {exc}") from None
    states = read_states(parsed)
    for key, digest in records:
        if states.get(key, HookState()).trusted_hash != digest:
            raise TrustError(f"{config_path}: could not record trust for {key}")
    for project in projects:
        entry = _lookup(parsed, ("projects", str(project)))
        if not isinstance(entry, dict) or entry.get("trust_level") != "trusted":
            raise TrustError(f"{config_path}: could not record trust for the project {project}")
    config_path.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(config_path.stat().st_mode) if config_path.exists() else 0o600
    tmp = config_path.with_name(f".{config_path.name}.dsh-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(tmp, config_path)
