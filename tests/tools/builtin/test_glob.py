"""The Glob tool: matching, newest-first order, the cap, and refusals naming the path."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from dsh.tools import Workspace
from dsh.tools.builtin import GLOB_TOOL
from dsh.tools.builtin._common import glob_regex
from dsh.tools.builtin._glob import MAX_GLOB_RESULTS

from ._support import call


def _touch(path: Path, mtime: int, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))
    return path


async def test_matches_newest_first(ws: Workspace, tmp_path: Path) -> None:
    old = _touch(tmp_path / "src" / "old.py", 1_000)
    new = _touch(tmp_path / "src" / "deep" / "new.py", 3_000)
    mid = _touch(tmp_path / "mid.py", 2_000)
    _touch(tmp_path / "notes.txt", 4_000)
    _touch(tmp_path / ".git" / "hook.py", 5_000)
    result = await call(GLOB_TOOL, ws, pattern="**/*.py")
    assert result.output["filenames"] == [str(new), str(mid), str(old)]
    assert result.text == "\n".join([str(new), str(mid), str(old)])
    assert result.output["numFiles"] == 3
    assert result.output["truncated"] is False
    under = await call(GLOB_TOOL, ws, pattern="*.py", path="src")
    assert under.output["filenames"] == [str(old)]
    anchored = await call(GLOB_TOOL, ws, pattern="src/**/*.py")
    assert anchored.output["filenames"] == [str(new), str(old)]
    absolute = await call(GLOB_TOOL, ws, pattern=f"{tmp_path}/src/*.py")
    assert absolute.output["filenames"] == [str(old)]


async def test_braces_and_classes(ws: Workspace, tmp_path: Path) -> None:
    a = _touch(tmp_path / "a.ts", 3)
    b = _touch(tmp_path / "b.tsx", 2)
    _touch(tmp_path / "c.js", 1)
    both = await call(GLOB_TOOL, ws, pattern="*.{ts,tsx}")
    assert both.output["filenames"] == [str(a), str(b)]
    cls = await call(GLOB_TOOL, ws, pattern="[ab].*")
    assert cls.output["filenames"] == [str(a), str(b)]


async def test_capped_at_one_hundred(ws: Workspace, tmp_path: Path) -> None:
    for i in range(MAX_GLOB_RESULTS + 5):
        _touch(tmp_path / f"f{i:03}.txt", 10_000 + i)
    result = await call(GLOB_TOOL, ws, pattern="*.txt")
    assert result.output["numFiles"] == MAX_GLOB_RESULTS
    assert result.output["truncated"] is True
    assert result.output["filenames"][0] == str(tmp_path / "f104.txt")
    assert result.text.endswith(
        "(Results are truncated. Consider using a more specific path or pattern.)"
    )


async def test_nothing_found_and_bad_paths(ws: Workspace, tmp_path: Path) -> None:
    none = await call(GLOB_TOOL, ws, pattern="*.nothing")
    assert not none.is_error
    assert none.text == "No files found"
    missing = await call(GLOB_TOOL, ws, pattern="*", path="absent")
    assert missing.is_error
    assert missing.text == f"Directory does not exist: {tmp_path / 'absent'}"
    f = _touch(tmp_path / "file.txt", 1)
    not_dir = await call(GLOB_TOOL, ws, pattern="*", path=str(f))
    assert not_dir.is_error
    assert str(f) in not_dir.text


_names = st.text(alphabet="ab.c", min_size=0, max_size=6)
_globs = st.text(alphabet="ab.c*?", min_size=0, max_size=6)


@given(_globs, _names)
def test_single_segment_globs_agree_with_fnmatch(pattern: str, name: str) -> None:
    assert bool(re.fullmatch(glob_regex(pattern), name, re.DOTALL)) == fnmatch.fnmatchcase(
        name, pattern
    )


@given(st.lists(_names.filter(bool), min_size=1, max_size=4))
def test_double_star_spans_any_depth(parts: list[str]) -> None:
    path = "/".join(parts)
    assert re.fullmatch(glob_regex("**/" + parts[-1]), path, re.DOTALL)
    assert re.fullmatch(glob_regex("**"), path, re.DOTALL)
    assert not re.fullmatch(glob_regex("*"), path + "/x", re.DOTALL)
