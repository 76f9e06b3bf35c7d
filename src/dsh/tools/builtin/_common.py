"""Helpers the built-in tools share: argument parsing, path display, diffs, globs.

Glob patterns are translated here once, for both the Glob tool and Grep's
``glob`` filter (and its Python fallback's ignore files), so the three agree
on what ``*``, ``**``, ``?``, ``[...]`` and ``{a,b}`` mean.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from dsh.base import thaw_json
from dsh.tools._schema import schema_certifies
from dsh.tools._types import (
    LazyModel,
    ToolInvocation,
    ToolResult,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = [
    "VCS_DIRS",
    "ArgumentsError",
    "PlainArguments",
    "display_path",
    "glob_regex",
    "has_magic",
    "parse_arguments",
    "refused",
    "structured_patch",
    "walk",
]

M = TypeVar("M", bound="BaseModel")

VCS_DIRS = frozenset({".git", ".svn", ".hg", ".bzr"})
_MAGIC = re.compile(r"[*?\[{]")


class PlainArguments:
    """Certified arguments read as their input model's fields, without the model.

    An attribute is the argument's value, else the field's default (the schema's
    ``default``, else ``None``): what the model's instance would hold for them.
    """

    __slots__ = ("_defaults", "_values")

    def __init__(self, values: dict[str, Any], defaults: Mapping[str, Any]) -> None:
        self._values = values
        self._defaults = defaults

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            pass
        try:
            return self._defaults[name]
        except KeyError:
            raise AttributeError(name) from None


_DEFAULTS: dict[int, tuple[Mapping[str, Any], dict[str, Any]]] = {}


def _defaults(schema: Mapping[str, Any]) -> dict[str, Any]:
    known = _DEFAULTS.get(id(schema))
    if known is None or known[0] is not schema:
        props = schema.get("properties", {})
        known = _DEFAULTS[id(schema)] = (schema, {k: p.get("default") for k, p in props.items()})
    return known[1]


def refused(message: str) -> ToolResult:
    """An input a tool refuses, worded and wrapped as 2.1.332 sends one to the model
    (``<tool_use_error>``)."""
    return ToolResult.error(f"<tool_use_error>{message}</tool_use_error>")


class ArgumentsError(Exception):
    """The arguments did not fit the tool's input model; ``result`` says how."""

    def __init__(self, result: ToolResult) -> None:
        super().__init__(result.text)
        self.result = result


def parse_arguments(model: LazyModel[M] | type[M], invocation: ToolInvocation) -> M:
    """The invocation's arguments as ``model`` (the registry validated them already).

    A body called directly with bad arguments gets an ``INVALID_ARGS`` result
    rather than a pydantic traceback.
    """
    if isinstance(model, LazyModel) and model.schema is not None:
        values = thaw_json(invocation.arguments)
        if schema_certifies(model, values):  # the plain shape: no pydantic needed
            return cast("M", PlainArguments(values, _defaults(model.schema)))
    from pydantic import ValidationError  # loaded with the model, at a tool's first call

    cls = model.load() if isinstance(model, LazyModel) else model
    try:
        return cls.model_validate(thaw_json(invocation.arguments))
    except ValidationError as exc:
        errors = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(input)'}: {e['msg']}" for e in exc.errors()
        )
        raise ArgumentsError(
            ToolResult.error(
                f"Invalid arguments for {invocation.name}: {errors}",
                code="INVALID_ARGS",
                info={"errors": thaw_json(exc.errors(include_url=False, include_context=False))},
            )
        ) from exc


def display_path(path: Path, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when it lies under it, else absolute (as Claude Code's Grep)."""
    try:
        rel = path.relative_to(cwd)
    except ValueError:
        return str(path)
    return str(rel) if str(rel) != "." else "."


def has_magic(segment: str) -> bool:
    return _MAGIC.search(segment) is not None


def glob_regex(pattern: str) -> str:
    """A regex (unanchored text, to be full-matched) for a glob over ``/``-separated paths.

    ``*`` and ``?`` stay within one path segment, ``**`` spans segments
    (``a/**/b`` also matches ``a/b``), ``[...]`` is a character class (``!``
    or ``^`` negates), ``{x,y}`` is an alternation (nesting allowed), and a
    backslash escapes the next character.
    """
    out, _ = _translate(pattern, 0, in_brace=False)
    return out


def _translate(p: str, i: int, *, in_brace: bool) -> tuple[str, int]:
    out: list[str] = []
    n = len(p)
    alternatives: list[str] = []
    while i < n:
        c = p[i]
        if c == "*":
            if p.startswith("**", i):
                start_of_segment = i == 0 or p[i - 1] in "/{,"
                j = i + 2
                if start_of_segment and j < n and p[j] == "/":
                    out.append("(?:.*/)?")
                    i = j + 1
                    continue
                if start_of_segment and (j == n or p[j] in ",}"):
                    out.append(".*")
                    i = j
                    continue
                out.append(".*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and p[j] in "!^":
                j += 1
            if j < n and p[j] == "]":
                j += 1
            while j < n and p[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                body = p[i + 1 : j]
                negate = body[:1] in ("!", "^")
                if negate:
                    body = body[1:]
                body = body.replace("\\", "\\\\")
                out.append(f"[^/{body}]" if negate else f"[{body}]")
                i = j
        elif c == "{":
            inner, i = _translate(p, i + 1, in_brace=True)
            out.append(inner)
            continue
        elif in_brace and c == ",":
            alternatives.append("".join(out))
            out = []
        elif in_brace and c == "}":
            alternatives.append("".join(out))
            return "(?:" + "|".join(alternatives) + ")", i + 1
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(p[i]))
        else:
            out.append(re.escape(c))
        i += 1
    if in_brace:  # an unclosed brace is literal text
        alternatives.append("".join(out))
        return re.escape("{") + ",".join(alternatives), i
    return "".join(out), i


def walk(
    root: Path,
    *,
    skip_dir: Callable[[str, str], bool] | None = None,
    skip_file: Callable[[str, str], bool] | None = None,
    _rel: str = "",
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Files under ``root``, depth first, each directory's entries sorted by name.

    Yields ``(relative posix path, entry)`` in ripgrep's ``--sort path``
    order. Symbolic links are not followed (as ripgrep); VCS directories are
    skipped; ``skip_dir(rel, abs)`` and ``skip_file(rel, abs)`` prune more.
    """
    try:
        with os.scandir(root) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        rel = _rel + entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                if entry.name in VCS_DIRS or (skip_dir is not None and skip_dir(rel, entry.path)):
                    continue
                yield from walk(
                    Path(entry.path), skip_dir=skip_dir, skip_file=skip_file, _rel=rel + "/"
                )
            elif entry.is_file(follow_symlinks=False):
                if skip_file is not None and skip_file(rel, entry.path):
                    continue
                yield rel, entry
        except OSError:
            continue


NO_NEWLINE = "\\ No newline at end of file"


def structured_patch(old: str, new: str, *, context: int = 3) -> list[dict[str, Any]]:
    """The hunks turning ``old`` into ``new``, in Claude Code's ``structuredPatch`` shape.

    Each hunk is ``{oldStart, oldLines, newStart, newLines, lines}`` with
    lines prefixed ``' '``, ``'-'`` or ``'+'`` (jsdiff's structured patch).
    """
    a = old.splitlines()
    b = new.splitlines()
    # jsdiff's marker after a last line without a newline (2.1.332, the `file-tools` recording)
    a_open = len(a) if old and not old.endswith("\n") else -1
    b_open = len(b) if new and not new.endswith("\n") else -1
    hunks: list[dict[str, Any]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        lines: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines.extend(" " + line for line in a[a1:a2])
                if a2 == a_open and b2 == b_open:
                    lines.append(NO_NEWLINE)
                continue
            if tag in ("replace", "delete"):
                lines.extend("-" + line for line in a[a1:a2])
                if a2 == a_open:
                    lines.append(NO_NEWLINE)
            if tag in ("replace", "insert"):
                lines.extend("+" + line for line in b[b1:b2])
                if b2 == b_open:
                    lines.append(NO_NEWLINE)
        hunks.append(
            {
                "oldStart": i1 + 1 if i2 > i1 else i1,
                "oldLines": i2 - i1,
                "newStart": j1 + 1 if j2 > j1 else j1,
                "newLines": j2 - j1,
                "lines": lines,
            }
        )
    return hunks
