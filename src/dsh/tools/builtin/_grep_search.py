"""The two searchers behind ``Grep``: ripgrep, and a Python search with the same results.

Both produce ripgrep's raw lines (``path:line:text``, ``path-line-text``
context, ``--`` separators, ``path:count``, ``path``) for the same flags
(``--hidden``, VCS directories skipped, ``--sort path``, ``--max-columns
500``, ignore files honored, binary files skipped); which files the Python
search reads is ``dsh.tools.builtin._grep_filters``' business.
"""

from __future__ import annotations

import bisect
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal, final

from dsh._frozen import frozen
from dsh.base import AbortSignal
from dsh.tools.builtin._common import VCS_DIRS, display_path, walk
from dsh.tools.builtin._grep_filters import FILE_TYPES, Ignores, Overrides
from dsh.tools.builtin._process import run_in_group

__all__ = [
    "GrepError",
    "GrepQuery",
    "OutputMode",
    "search_python",
    "search_ripgrep",
]

OutputMode = Literal["content", "files_with_matches", "count"]
MAX_COLUMNS = 500
GREP_TIMEOUT_S = 120.0


class GrepError(Exception):
    """The search could not run (a bad pattern, an unknown type); the message says why."""


@final
@frozen
class GrepQuery:
    """One search: Grep's input with the defaults applied and the path resolved."""

    pattern: str
    root: Path  # absolute: a file or a directory
    mode: OutputMode
    globs: tuple[str, ...]
    type: str | None
    ignore_case: bool
    line_numbers: bool
    before: int
    after: int
    multiline: bool


# ripgrep --------------------------------------------------------------------------


async def search_ripgrep(rg: str, q: GrepQuery, cwd: Path, signal: AbortSignal | None) -> list[str]:
    """ripgrep's raw output lines for ``q``, from the ``rg`` at ``rg``."""
    argv = [rg, "--no-config", "--hidden", "--no-heading", "--color", "never", "--with-filename",
            "--sort", "path", "--max-columns", str(MAX_COLUMNS)]  # fmt: skip
    for vcs in sorted(VCS_DIRS):
        argv += ["--glob", f"!{vcs}"]
    if q.multiline:
        argv += ["-U", "--multiline-dotall"]
    if q.ignore_case:
        argv.append("-i")
    if q.mode == "files_with_matches":
        argv.append("-l")
    elif q.mode == "count":
        argv.append("-c")
    else:
        if q.line_numbers:
            argv.append("-n")
        if q.before:
            argv += ["-B", str(q.before)]
        if q.after:
            argv += ["-A", str(q.after)]
    if q.type:
        argv += ["--type", q.type]
    for g in q.globs:
        argv += ["--glob", g]
    argv += ["-e", q.pattern, "--", _rg_path(q.root, cwd)]
    outcome = await run_in_group(
        argv,
        cwd=cwd,
        env=os.environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        signal=signal,
        timeout=GREP_TIMEOUT_S,
    )
    out = (outcome.stdout or b"").decode("utf-8", errors="replace")
    err = (outcome.stderr or b"").decode("utf-8", errors="replace").strip()
    if outcome.aborted is not None:
        raise GrepError(f"search aborted: {outcome.aborted}")
    if outcome.timed_out:
        raise GrepError(f"search timed out after {GREP_TIMEOUT_S:g} s")
    if outcome.returncode == 2 and not out:
        raise GrepError(err or "ripgrep failed")
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[2:] if line.startswith("./") else line for line in lines]


def _rg_path(root: Path, cwd: Path) -> str:
    """The path as ripgrep should print it: relative to cwd when under it, else absolute."""
    shown = display_path(root, cwd)
    return "./" if shown == "." else shown if not os.path.isabs(shown) else str(root)


# Python fallback ------------------------------------------------------------------


def _shown_line(text: str, is_match: bool) -> str:
    if len(text.encode("utf-8", errors="surrogateescape")) > MAX_COLUMNS:
        return "[Omitted long matching line]" if is_match else "[Omitted long context line]"
    return text


def _search_file(data: str, regex: re.Pattern[str], q: GrepQuery) -> tuple[list[str], set[int]]:
    """The file's lines and the indexes of the lines that match (a multiline match marks each)."""
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not q.multiline:
        return lines, {i for i, line in enumerate(lines) if regex.search(line)}
    starts: list[int] = []
    pos = 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    hit: set[int] = set()
    for m in regex.finditer(data):
        first = bisect.bisect_right(starts, m.start()) - 1
        last = bisect.bisect_right(starts, max(m.end() - 1, m.start())) - 1
        hit.update(range(max(first, 0), min(last, len(lines) - 1) + 1))
    return lines, hit


def search_python(
    q: GrepQuery, cwd: Path, should_stop: Callable[[], bool] | None = None
) -> list[str]:
    """ripgrep's raw output lines for ``q``, computed in Python."""
    flags = re.MULTILINE | (re.IGNORECASE if q.ignore_case else 0)
    if q.multiline:
        flags |= re.DOTALL
    try:
        regex = re.compile(q.pattern, flags)
    except re.error as exc:
        raise GrepError(f"regex parse error in {q.pattern!r}: {exc}") from exc
    if q.type is not None and q.type not in FILE_TYPES:
        raise GrepError(f"unrecognized file type: {q.type}")
    overrides = Overrides.build(q.globs, q.type)
    shown_root = _rg_path(q.root, cwd).removeprefix("./")
    out: list[str] = []
    separated = [False]  # whether a context group was printed before (for "--")

    def files() -> Iterator[tuple[str, str]]:
        if q.root.is_file():
            # An explicitly named file is searched whatever the filters say (as ripgrep).
            yield shown_root, str(q.root)
            return
        ignores = Ignores.for_root(q.root)
        prefix = "" if shown_root in ("", ".") else shown_root.rstrip("/") + "/"

        def skip_dir(rel: str, path: str) -> bool:
            decided = overrides.decide(rel, True)
            return decided if decided is not None else ignores.ignored(path, True)

        def skip_file(rel: str, path: str) -> bool:
            decided = overrides.decide(rel, False)
            if decided is not None:
                return decided
            return ignores.ignored(path, False) or overrides.wrong_type(rel)

        for rel, entry in walk(q.root, skip_dir=skip_dir, skip_file=skip_file):
            yield prefix + rel, entry.path

    for shown, abs_path in files():
        if should_stop is not None and should_stop():
            break
        try:
            raw = Path(abs_path).read_bytes()
        except OSError:
            continue
        if b"\0" in raw:
            continue  # binary, as ripgrep skips it
        lines, hit = _search_file(raw.decode("utf-8", errors="replace"), regex, q)
        if not hit:
            continue
        if q.mode == "files_with_matches":
            out.append(shown)
        elif q.mode == "count":
            out.append(f"{shown}:{len(hit)}")
        else:
            _content_lines(out, shown, lines, hit, q, separated)
    return out


def _content_lines(
    out: list[str], shown: str, lines: list[str], hit: set[int], q: GrepQuery, separated: list[bool]
) -> None:
    with_context = q.before > 0 or q.after > 0
    printed: set[int] = set()
    for i in hit:
        printed.update(range(max(i - q.before, 0), min(i + q.after, len(lines) - 1) + 1))
    previous: int | None = None
    for i in sorted(printed):
        if with_context and separated[0] and (previous is None or i != previous + 1):
            out.append("--")
        is_match = i in hit
        sep = ":" if is_match else "-"
        text = _shown_line(lines[i], is_match)
        out.append(f"{shown}{sep}{i + 1}{sep}{text}" if q.line_numbers else f"{shown}{sep}{text}")
        previous = i
        separated[0] = True
