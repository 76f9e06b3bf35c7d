"""The ``Grep`` tool: ripgrep when it is on PATH, a Python search with the same results otherwise.

Both searchers (``dsh.tools.builtin._grep_search``) produce ripgrep's raw
lines; one formatter here turns them into Claude Code's result. Set
``DSH_GREP_FALLBACK=1`` (or build the tool with ``grep_tool(use_ripgrep=False)``)
to force the fallback.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dsh.messages import Content
from dsh.tools._types import LazyModel, ToolDefinition, ToolInvocation, ToolResult
from dsh.tools.builtin._common import (
    ArgumentsError,
    parse_arguments,
)
from dsh.tools.builtin._declarations import GREP, GREP_INPUT, implement
from dsh.tools.builtin._grep_search import (
    GrepError,
    GrepQuery,
    OutputMode,
    search_python,
    search_ripgrep,
)

if TYPE_CHECKING:
    from dsh.tools.builtin._models import GrepInput

__all__ = ["GREP_TOOL", "grep_tool", "present_grep"]

_GREP_INPUT: LazyModel[GrepInput] = GREP_INPUT


def present_grep(output: Any) -> Content:
    """What the model sees of a successful Grep, in each output mode."""
    note = _pagination_note(output.get("appliedLimit"), output.get("appliedOffset", 0))
    mode: OutputMode = output["mode"]
    content: str = output.get("content", "")
    if mode == "content":
        return (content or "No matches found") + note
    if mode == "count":
        if not content:
            return "No matches found" + note
        total, files = output.get("numMatches", 0), output["numFiles"]
        summary = (
            f"\n\nFound {total} total {'occurrence' if total == 1 else 'occurrences'} across "
            f"{files} {'file' if files == 1 else 'files'}."
        )
        return content + summary + note
    filenames = output["filenames"]
    if not filenames:
        return "No files found" + note
    n = output["numFiles"]
    return f"Found {n} {'file' if n == 1 else 'files'}\n" + "\n".join(filenames) + note


def _split_globs(glob: str | None) -> tuple[str, ...]:
    """Claude Code's splitting: on whitespace, then on commas outside brace patterns."""
    if not glob:
        return ()
    out: list[str] = []
    for part in glob.split():
        if "{" in part and "}" in part:
            out.append(part)
        else:
            out.extend(p for p in part.split(",") if p)
    return tuple(out)


# The tool ---------------------------------------------------------------------------


def _page(items: list[str], head_limit: int | None, offset: int) -> list[str]:
    end = None if not head_limit else offset + head_limit
    return items[offset:end]


def _pagination_note(head_limit: int | None, offset: int) -> str:
    if not head_limit and not offset:
        return ""
    return f"\n\n[Showing results with pagination = limit: {head_limit or 0}, offset: {offset}]"


def _mtime(cwd: Path, shown: str) -> float:
    try:
        return (cwd / shown).stat().st_mtime
    except OSError:
        return 0.0


def _format(raw: list[str], q: GrepQuery, cwd: Path, args: GrepInput) -> ToolResult:
    output = _output(raw, q, cwd, args)
    return ToolResult.ok(present_grep(output), output=output)


def _output(raw: list[str], q: GrepQuery, cwd: Path, args: GrepInput) -> dict[str, Any]:
    offset = args.offset or 0
    head_limit = args.head_limit
    limits: dict[str, Any] = {}
    if head_limit:
        limits["appliedLimit"] = head_limit
    if offset:
        limits["appliedOffset"] = offset
    if q.mode == "content":
        page = _page(raw, head_limit, offset)
        return {"mode": "content", "numFiles": 0, "filenames": [], "content": "\n".join(page),
                "numLines": len(page), **limits}  # fmt: skip
    if q.mode == "count":
        page = _page(raw, head_limit, offset)
        total = 0
        for line in page:
            _, _, n = line.rpartition(":")
            total += int(n) if n.isdigit() else 0
        return {"mode": "count", "numFiles": len(page), "filenames": [],
                "content": "\n".join(page), "numMatches": total, **limits}  # fmt: skip
    ranked = sorted(raw, key=lambda p: (-_mtime(cwd, p), p))
    page = _page(ranked, head_limit, offset)
    return {"mode": "files_with_matches", "filenames": page, "numFiles": len(page), **limits}


def grep_tool(*, use_ripgrep: bool | None = None) -> ToolDefinition:
    """The Grep tool. ``use_ripgrep=None``: ``rg`` if on PATH, unless ``DSH_GREP_FALLBACK=1``."""

    async def run(invocation: ToolInvocation) -> ToolResult:
        try:
            args = parse_arguments(_GREP_INPUT, invocation)
        except ArgumentsError as exc:
            return exc.result
        cwd = invocation.workspace.cwd
        root = invocation.workspace.resolve(args.path) if args.path else cwd
        if not root.exists():
            return ToolResult.error(f"Path does not exist: {root}")
        mode: OutputMode = args.output_mode or "files_with_matches"
        before = args.context if args.context is not None else (args.before or 0)
        after = args.context if args.context is not None else (args.after or 0)
        q = GrepQuery(
            pattern=args.pattern,
            root=root,
            mode=mode,
            globs=_split_globs(args.glob),
            type=args.type,
            ignore_case=bool(args.ignore_case),
            line_numbers=args.line_numbers is not False,
            before=before,
            after=after,
            multiline=bool(args.multiline),
        )
        signal = invocation.signal
        try:
            rg = _ripgrep(use_ripgrep)
            if rg is not None:
                raw = await search_ripgrep(rg, q, cwd, signal)
            else:
                stop = (lambda: signal.aborted) if signal is not None else None
                raw = await asyncio.to_thread(search_python, q, cwd, stop)
        except GrepError as exc:
            return ToolResult.error(f"Grep failed searching {root}: {exc}")
        return _format(raw, q, cwd, args)

    return implement(GREP, run, present_grep)


def _ripgrep(use_ripgrep: bool | None) -> str | None:
    if use_ripgrep is False:
        return None
    if use_ripgrep is None and os.environ.get("DSH_GREP_FALLBACK", "") not in ("", "0"):
        return None
    rg = shutil.which("rg")
    if rg is None and use_ripgrep:
        raise GrepError("ripgrep (rg) was requested but is not on PATH")
    return rg


GREP_TOOL = grep_tool()
