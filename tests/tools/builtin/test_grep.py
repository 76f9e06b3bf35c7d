"""The Grep tool with ripgrep and with the Python fallback: same results for the same options."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from dsh.tools import ToolDefinition, Workspace
from dsh.tools.builtin._grep import grep_tool

from ._support import call, call_with

HAVE_RG = shutil.which("rg") is not None
needs_rg = pytest.mark.skipif(not HAVE_RG, reason="ripgrep (rg) is not on PATH")

SEARCHERS = [
    pytest.param(True, id="ripgrep", marks=needs_rg),
    pytest.param(False, id="python"),
]


@pytest.fixture(params=SEARCHERS)
def grep(request: pytest.FixtureRequest) -> ToolDefinition:
    return grep_tool(use_ripgrep=request.param)


def _write(root: Path, rel: str, text: str | bytes, mtime: int = 1_000) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small project: a git repository with ignore files, hidden and binary files."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path, ".git/config", "TODO in git internals\n")
    _write(tmp_path, ".gitignore", "build/\n*.log\n!keep.log\n")
    _write(tmp_path, ".ignore", "private.txt\n")
    _write(
        tmp_path, "a.py", "import os\n# TODO first\nx = 1\n\n\ny = 2\n# todo second\nz = 3\n", 3_000
    )
    _write(tmp_path, "src/b.py", "def f():\n    return 'TODO'\n", 2_000)
    _write(tmp_path, "src/c.js", "// TODO js\nlet a = {\n  b: 1\n};\n", 1_000)
    _write(tmp_path, "docs/readme.md", "Nothing here\n", 4_000)
    _write(tmp_path, ".hidden/h.py", "TODO hidden\n", 500)
    _write(tmp_path, "build/out.py", "TODO built\n")
    _write(tmp_path, "debug.log", "TODO logged\n")
    _write(tmp_path, "keep.log", "TODO kept\n", 100)
    _write(tmp_path, "private.txt", "TODO private\n")
    _write(tmp_path, "blob.bin", b"TODO\0binary\n")
    _write(tmp_path, "wide.txt", "TODO " + "w" * 600 + "\nafter\n", 50)
    return tmp_path


async def test_files_with_matches_newest_first(
    grep: ToolDefinition, ws: Workspace, tree: Path
) -> None:
    result = await call(grep, ws, pattern="TODO")
    names = ["a.py", "src/b.py", "src/c.js", ".hidden/h.py", "keep.log", "wide.txt"]
    assert result.output == {"mode": "files_with_matches", "filenames": names, "numFiles": 6}
    assert result.text == "Found 6 files\n" + "\n".join(names)


async def test_content_with_line_numbers_and_case(
    grep: ToolDefinition, ws: Workspace, tree: Path
) -> None:
    result = await call_with(
        grep, ws, {"pattern": "todo", "path": "a.py", "output_mode": "content", "-i": True}
    )
    assert result.output["content"] == "a.py:2:# TODO first\na.py:7:# todo second"
    assert result.output["numLines"] == 2
    plain = await call_with(
        grep, ws, {"pattern": "todo", "path": "a.py", "output_mode": "content", "-n": False}
    )
    assert plain.text == "a.py:# todo second"


async def test_context_lines_and_separators(
    grep: ToolDefinition, ws: Workspace, tree: Path
) -> None:
    result = await call_with(
        grep, ws, {"pattern": "TODO", "output_mode": "content", "glob": "*.py", "-C": 1}
    )
    assert result.output["content"].split("\n") == [
        ".hidden/h.py:1:TODO hidden",
        "--",
        "a.py-1-import os",
        "a.py:2:# TODO first",
        "a.py-3-x = 1",
        "--",
        "src/b.py-1-def f():",
        "src/b.py:2:    return 'TODO'",
    ]
    after = await call_with(
        grep, ws, {"pattern": "x = 1", "path": "a.py", "output_mode": "content", "-A": 2}
    )
    assert after.text == "a.py:3:x = 1\na.py-4-\na.py-5-"
    before = await call_with(
        grep, ws, {"pattern": "y = 2", "path": "a.py", "output_mode": "content", "-B": 1}
    )
    assert before.text == "a.py-5-\na.py:6:y = 2"


async def test_count_mode(grep: ToolDefinition, ws: Workspace, tree: Path) -> None:
    result = await call(grep, ws, pattern="TODO|todo", output_mode="count", path="a.py")
    assert result.output == {
        "mode": "count", "numFiles": 1, "filenames": [], "content": "a.py:2", "numMatches": 2,
    }  # fmt: skip
    assert result.text == "a.py:2\n\nFound 2 total occurrences across 1 file."


async def test_glob_type_and_paging(grep: ToolDefinition, ws: Workspace, tree: Path) -> None:
    js = await call(grep, ws, pattern="TODO", type="js")
    assert js.output["filenames"] == ["src/c.js"]
    braces = await call(grep, ws, pattern="TODO", glob="*.{js,log}")
    # An explicit glob beats ignore files (ripgrep's rule): the ignored debug.log is searched.
    assert braces.output["filenames"] == ["debug.log", "src/c.js", "keep.log"]
    anchored = await call(grep, ws, pattern="TODO", glob="src/*.py")
    assert anchored.output["filenames"] == ["src/b.py"]
    excluded = await call(grep, ws, pattern="TODO", glob="!*.py")
    assert excluded.output["filenames"] == ["src/c.js", "keep.log", "wide.txt"]
    paged = await call(grep, ws, pattern="TODO", head_limit=2, offset=1)
    assert paged.output["filenames"] == ["src/b.py", "src/c.js"]
    assert paged.output["appliedLimit"] == 2
    assert paged.output["appliedOffset"] == 1
    assert "[Showing results with pagination = limit: 2, offset: 1]" in paged.text


async def test_multiline(grep: ToolDefinition, ws: Workspace, tree: Path) -> None:
    result = await call(
        grep, ws, pattern=r"\{.\s*b: 1", path="src", output_mode="content", multiline=True
    )
    assert result.text == "src/c.js:2:let a = {\nsrc/c.js:3:  b: 1"
    single = await call(grep, ws, pattern=r"\{.\s*b: 1", path="src", output_mode="content")
    assert single.text == "No matches found"


async def test_long_lines_are_omitted(grep: ToolDefinition, ws: Workspace, tree: Path) -> None:
    result = await call_with(
        grep, ws, {"pattern": "TODO", "path": "wide.txt", "output_mode": "content", "-A": 1}
    )
    assert result.text == "wide.txt:1:[Omitted long matching line]\nwide.txt-2-after"


async def test_paths_outside_the_working_directory_are_absolute(
    grep: ToolDefinition, ws: Workspace, tree: Path
) -> None:
    ws.cwd = tree / "docs"
    result = await call(grep, ws, pattern="return", path=str(tree / "src"))
    assert result.output["filenames"] == [str(tree / "src" / "b.py")]


async def test_refusals(grep: ToolDefinition, ws: Workspace, tree: Path) -> None:
    missing = await call(grep, ws, pattern="x", path="nowhere")
    assert missing.is_error
    assert missing.text == f"Path does not exist: {tree / 'nowhere'}"
    bad = await call(grep, ws, pattern="(unclosed")
    assert bad.is_error
    assert bad.code == "TOOL_ERROR"
    assert str(tree) in bad.text
    unknown = await call(grep, ws, pattern="x", type="no-such-type")
    assert unknown.is_error
    assert "unrecognized file type: no-such-type" in unknown.text
    none = await call(grep, ws, pattern="absent-text")
    assert not none.is_error
    assert none.text == "No files found"


async def test_fallback_chosen_by_environment(
    ws: Workspace, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DSH_GREP_FALLBACK", "1")
    monkeypatch.setenv("PATH", "/nonexistent")  # an rg call would fail: the fallback must run
    result = await call(grep_tool(), ws, pattern="TODO", glob="*.js")
    assert result.output["filenames"] == ["src/c.js"]


OPTION_SETS: list[dict[str, Any]] = [
    {"pattern": "TODO"},
    {"pattern": "todo", "-i": True, "output_mode": "content"},
    {"pattern": "TODO", "output_mode": "content", "-C": 2},
    {"pattern": "TODO", "output_mode": "content", "-B": 3, "-n": False},
    {"pattern": "=", "output_mode": "count"},
    {"pattern": "TODO", "glob": "**/*.py", "output_mode": "content"},
    {"pattern": "TODO", "glob": "*.py,*.js", "output_mode": "count"},
    {"pattern": "TODO", "glob": "!src/**"},
    {"pattern": "TODO", "type": "py", "output_mode": "content", "-A": 1},
    {"pattern": r"^\s*$", "output_mode": "content"},
    {"pattern": r"x = 1\n\n", "multiline": True, "output_mode": "content"},
    {"pattern": "TODO", "path": "src", "output_mode": "content"},
    {"pattern": "TODO", "output_mode": "content", "head_limit": 3, "offset": 2},
]


@needs_rg
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: repr(o))
async def test_fallback_matches_ripgrep(ws: Workspace, tree: Path, options: dict[str, Any]) -> None:
    with_rg = await call_with(grep_tool(use_ripgrep=True), ws, options)
    fallback = await call_with(grep_tool(use_ripgrep=False), ws, options)
    assert fallback.output == with_rg.output
    assert fallback.content == with_rg.content
