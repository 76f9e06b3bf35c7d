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
    "HookState",
    "TrustError",
    "hook_hash",
    "hook_key",
    "read_states",
    "record_trust",
    "toml_string",
]

_MAX_CONFIG_BYTES: Final = 64 << 20
"""The ``config.toml`` a trust write rewrites: read whole, so bounded (records grow with hooks)."""

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
    identity: dict[str, Any] = {"event_name": EVENT_LABELS[event], "hooks": [handler]}
    if matcher is not None and event in MATCHER_FIELDS:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


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


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _header(prefix: tuple[str, ...], key: str) -> re.Pattern[str]:
    dots = r"[ \t]*\.[ \t]*"
    return re.compile(
        r"^[ \t]*\[[ \t]*"
        + dots.join(re.escape(p) for p in prefix)
        + dots
        + re.escape(toml_string(key))
        + r"[ \t]*\][ \t]*(#.*)?$",
        re.M,
    )


_TABLE_START: Final = re.compile(r"^[ \t]*\[", re.M)


def _lookup(parsed: Mapping[str, Any], prefix: tuple[str, ...]) -> Any:
    table: Any = parsed
    for part in prefix:
        table = table.get(part) if isinstance(table, dict) else None
    return table


def _with_value(
    text: str, prefix: tuple[str, ...], key: str, field: str, value: str, path: Path
) -> str:
    """``text`` with ``[<prefix>."<key>"] <field> = "<value>"`` set, the rest as written."""
    line = f"{field} = {toml_string(value)}"
    header = _header(prefix, key).search(text)
    if header is None:
        try:
            table = _lookup(tomllib.loads(text) if text.strip() else {}, prefix)
        except tomllib.TOMLDecodeError as exc:
            raise TrustError(f"{path}: recording trust would break the file: {exc}") from None
        if isinstance(table, dict) and key in table:
            raise TrustError(
                f'{path}: the record for {key} is not a [{".".join(prefix)}."…"] table;'
                " edit it by hand"
            )
        sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        return f"{text}{sep}[{'.'.join(prefix)}.{toml_string(key)}]\n{line}\n"
    if header.end() == len(text):  # the header ends the file, with no newline after it
        text += "\n"
    body_start = header.end() + 1
    nxt = _TABLE_START.search(text, body_start)
    body_end = nxt.start() if nxt is not None else len(text)
    body = text[body_start:body_end]
    existing = re.compile(rf"^[ \t]*{re.escape(field)}[ \t]*=.*$", re.M)
    found = existing.search(body)
    body = existing.sub(line, body, count=1) if found else f"{line}\n{body}"
    return text[:body_start] + body + text[body_end:]


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
            read_bounded(config_path, _MAX_CONFIG_BYTES, "Codex config").decode("utf-8")
            if config_path.exists()
            else ""
        )
        tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TrustError(f"{config_path}: cannot be read as TOML: {exc}") from None
    for project in projects:
        text = _with_value(text, ("projects",), str(project), "trust_level", "trusted", config_path)
    for key, digest in records:
        text = _with_value(text, ("hooks", "state"), key, "trusted_hash", digest, config_path)
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
