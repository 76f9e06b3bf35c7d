"""The ``Glob`` tool: files whose path matches a glob, newest first, at most 100."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from dsh.base import AbortSignal
from dsh.messages import Content
from dsh.tools._types import LazyModel, ToolInvocation, ToolResult
from dsh.tools.builtin import _declarations as declared
from dsh.tools.builtin._common import (
    ArgumentsError,
    glob_regex,
    has_magic,
    parse_arguments,
    walk,
)
from dsh.tools.builtin._declarations import GLOB, GLOB_INPUT, implement

if TYPE_CHECKING:
    from dsh.tools.builtin._models import GlobInput

__all__ = ["GLOB_TOOL", "MAX_GLOB_RESULTS", "present_glob"]

# The tool's description states it (_declarations: declared without this module).
MAX_GLOB_RESULTS = declared.MAX_GLOB_RESULTS
_GLOB_INPUT: LazyModel[GlobInput] = GLOB_INPUT


def present_glob(output: Any) -> Content:
    """What the model sees of a successful Glob: one path a line, or ``No files found``."""
    filenames = output["filenames"]
    if not filenames:
        return "No files found"
    text = "\n".join(filenames)
    if output["truncated"]:
        text += "\n(Results are truncated. Consider using a more specific path or pattern.)"
    return text


def _split_base(pattern: str, base: Path) -> tuple[Path, str]:
    """Move the pattern's literal leading segments into the base, so the walk starts there."""
    if pattern.startswith("/"):
        base, pattern = Path("/"), pattern.lstrip("/")
    parts = PurePosixPath(pattern).parts if pattern else ()
    literal: list[str] = []
    for part in parts[:-1]:
        if has_magic(part) or part == "**":
            break
        literal.append(part)
    rest = "/".join(parts[len(literal) :])
    return base.joinpath(*literal), rest


def glob_files(
    root: Path, pattern: str, signal: AbortSignal | None = None
) -> list[tuple[float, str]]:
    """``(mtime, absolute path)`` of every file under ``root`` matching ``pattern``."""
    base, rest = _split_base(pattern, root)
    if not base.is_dir():
        return []
    regex = re.compile(glob_regex(rest), re.DOTALL)
    found: list[tuple[float, str]] = []
    for rel, entry in walk(base):
        if signal is not None and signal.aborted:
            break
        if regex.fullmatch(rel):
            try:
                found.append((entry.stat(follow_symlinks=False).st_mtime, entry.path))
            except OSError:
                continue
    return found


async def _run_glob(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(_GLOB_INPUT, invocation)
    except ArgumentsError as exc:
        return exc.result
    workspace = invocation.workspace
    root = workspace.resolve(args.path) if args.path else workspace.cwd
    if not root.exists():
        return ToolResult.error(f"Directory does not exist: {root}")
    if not root.is_dir():
        return ToolResult.error(f"Path is not a directory: {root}")
    started = time.perf_counter()
    found = await asyncio.to_thread(glob_files, root, args.pattern, invocation.signal)
    found.sort(key=lambda item: (-item[0], item[1]))
    truncated = len(found) > MAX_GLOB_RESULTS
    filenames = [p for _, p in found[:MAX_GLOB_RESULTS]]
    output = {
        "filenames": filenames,
        "durationMs": round((time.perf_counter() - started) * 1000),
        "numFiles": len(filenames),
        "truncated": truncated,
    }
    return ToolResult.ok(present_glob(output), output=output)


GLOB_TOOL = implement(GLOB, _run_glob, present_glob)
