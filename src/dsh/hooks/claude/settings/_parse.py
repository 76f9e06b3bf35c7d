"""Reading hook files at the edge: JSON text (their pydantic models: ``settings/_models.py``).

Nothing here raises out: every problem comes back as a ``Problem`` the catalog
turns into a diagnostic naming the file (and the line and column of a JSON
syntax error).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final, Literal, final

from dsh._frozen import frozen
from dsh.base import UnsafeJSONError, load_json, read_bounded

__all__ = [
    "MAX_SETTINGS_BYTES",
    "JSONProblem",
    "read_json_file",
    "read_json_text",
]


@final
@frozen
class JSONProblem:
    """Why a file's JSON could not be read; ``line``/``column`` for syntax errors."""

    reason: str
    code: Literal["unreadable", "json-syntax", "bad-shape"]
    line: int | None = None
    column: int | None = None


MAX_SETTINGS_BYTES: Final = 8 * 1024 * 1024
"""The largest hook file read (settings, plugin manifests, hooks.json): far above any real one."""


def read_json_text(text: str) -> dict[str, Any] | JSONProblem:
    """Parse ``text`` as one JSON object, with ``load_json``'s bounds; lone surrogates refused."""
    if len(text) > MAX_SETTINGS_BYTES:
        return JSONProblem(
            f"the file is {len(text)} characters long (at most {MAX_SETTINGS_BYTES})", "unreadable"
        )
    try:
        value = load_json(text, lone_surrogates="refuse")
    except UnsafeJSONError as exc:
        cause = exc.__cause__
        if isinstance(cause, json.JSONDecodeError):
            return JSONProblem(
                f"invalid JSON at line {cause.lineno}, column {cause.colno}: {cause.msg}",
                "json-syntax",
                cause.lineno,
                cause.colno,
            )
        return JSONProblem(f"invalid JSON: {exc}", "json-syntax")
    if not isinstance(value, dict):
        return JSONProblem(
            f"the file must hold a JSON object, got {type(value).__name__}", "bad-shape"
        )
    return value


def read_json_file(path: Path) -> dict[str, Any] | JSONProblem:
    """Read and parse ``path`` as one JSON object (UTF-8, an optional BOM)."""
    try:
        raw = read_bounded(path, MAX_SETTINGS_BYTES, "settings file")
    except OSError as exc:
        return JSONProblem(f"cannot read the file: {exc.strerror or exc}", "unreadable")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return JSONProblem(f"the file is not UTF-8 (byte {exc.start})", "unreadable")
    return read_json_text(text)
