"""Write, Edit and MultiEdit on real files: shapes, patches, and all-or-nothing failures."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.tools import Workspace
from dsh.tools.builtin import EDIT_TOOL, MULTI_EDIT_TOOL, READ_TOOL, WRITE_TOOL
from dsh.tools.builtin._common import structured_patch

from ._support import CONFORMANCE, call


async def test_write_creates_with_the_recorded_shape(ws: Workspace, tmp_path: Path) -> None:
    recorded = json.loads((CONFORMANCE / "write-tool" / "PostToolUse.json").read_text())["payload"]
    tool_input = {
        k: v.replace("${PROJECT_DIR}", str(tmp_path)) for k, v in recorded["tool_input"].items()
    }
    result = await call(WRITE_TOOL, ws, **tool_input)
    expected = dict(recorded["tool_response"], filePath=tool_input["file_path"])
    assert result.output == expected
    case = json.loads((CONFORMANCE / "write-tool" / "case.json").read_text())
    [seen] = case["model_view"][1]["hook_relevant"]
    assert result.text == seen["tool_result"].replace("${PROJECT_DIR}", str(tmp_path))
    assert (tmp_path / "hello.txt").read_text() == "hello\n"


async def test_write_shows_the_path_as_the_call_wrote_it(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `file-path-write`: `rel.txt`, `~/tilde.txt`, `sub/../dotdot.txt` (PostToolBatch keeps the
    # model's input; the tool result text and `tool_response.filePath` the same words).
    case_dir = CONFORMANCE / "file-path-write"
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "sub").mkdir()
    batches = sorted(case_dir.glob("PostToolBatch*.json"))
    assert len(batches) == 3
    for batch in batches:
        [recorded] = json.loads(batch.read_text())["payload"]["tool_calls"]
        result = await call(WRITE_TOOL, ws, **recorded["tool_input"])
        assert result.text == recorded["tool_response"]
        assert result.output["filePath"] == recorded["tool_input"]["file_path"]
    assert (tmp_path / "rel.txt").read_text() == "rel\n"
    assert (home / "tilde.txt").read_text() == "tilde\n"
    assert (tmp_path / "dotdot.txt").read_text() == "dotdot\n"


async def test_write_makes_parents_and_updates(ws: Workspace, tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c.txt"
    await call(WRITE_TOOL, ws, file_path=str(target), content="one\ntwo\n")
    result = await call(WRITE_TOOL, ws, file_path="a/b/c.txt", content="one\n2\n")
    assert target.read_text() == "one\n2\n"
    assert result.output["type"] == "update"
    assert result.output["originalFile"] == "one\ntwo\n"
    assert result.output["structuredPatch"] == [
        {"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2,
         "lines": [" one", "-two", "+2"]},
    ]  # fmt: skip
    assert "updated" in result.text
    # The path as the call wrote it, as Claude Code's filePath (`file-path-write`).
    assert result.output["filePath"] == "a/b/c.txt"
    assert "The file a/b/c.txt has been updated" in result.text


async def test_write_keeps_mode_and_exact_bytes(ws: Workspace, tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("old\n")
    script.chmod(0o755)
    await call(WRITE_TOOL, ws, file_path=str(script), content="#!/bin/sh\r\necho ok\r\n")
    assert script.read_bytes() == b"#!/bin/sh\r\necho ok\r\n"
    assert script.stat().st_mode & 0o777 == 0o755
    assert os.listdir(tmp_path) == ["run.sh"]  # no temp file left


async def test_write_refusals_name_the_file(ws: Workspace, tmp_path: Path) -> None:
    result = await call(WRITE_TOOL, ws, file_path=str(tmp_path), content="x")
    assert result.is_error
    assert str(tmp_path) in result.text
    assert "directory" in result.text
    (tmp_path / "plain").write_text("")
    below_file = tmp_path / "plain" / "x.txt"
    blocked = await call(WRITE_TOOL, ws, file_path=str(below_file), content="x")
    assert blocked.is_error
    assert str(below_file) in blocked.text


async def test_edit_replaces_a_unique_string(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "e.py"
    f.write_text("def f():\n    return 1\n")
    await call(READ_TOOL, ws, file_path=str(f))  # a session reads the file it edits
    result = await call(
        EDIT_TOOL, ws, file_path=str(f), old_string="return 1", new_string="return 2"
    )
    assert not result.is_error
    assert f.read_text() == "def f():\n    return 2\n"
    assert result.output == {
        "filePath": str(f),
        "oldString": "return 1",
        "newString": "return 2",
        "originalFile": "def f():\n    return 1\n",
        "structuredPatch": [
            {"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2,
             "lines": [" def f():", "-    return 1", "+    return 2"]},
        ],
        "userModified": False,
        "replaceAll": False,
    }  # fmt: skip


async def test_edit_refusals_are_2_1_332s_and_change_nothing(ws: Workspace, tmp_path: Path) -> None:
    # 2.1.332's validateInput words, wrapped as it wraps them (the not-found one recorded in
    # tests/fixtures/claude_tool_texts.json, the others from its code): no file named.
    f = tmp_path / "e.txt"
    f.write_text("x = 1\nx = 1\n")
    missing = await call(EDIT_TOOL, ws, file_path=str(f), old_string="y", new_string="z")
    assert missing.is_error
    assert missing.code == "TOOL_ERROR"
    assert missing.text == (
        "<tool_use_error>String to replace not found in file.\nString: y</tool_use_error>"
    )
    twice = await call(EDIT_TOOL, ws, file_path=str(f), old_string="x = 1", new_string="x = 2")
    assert twice.is_error
    assert twice.text == (
        "<tool_use_error>Found 2 matches of the string to replace, but replace_all is false. To"
        " replace all occurrences, set replace_all to true. To replace only one occurrence,"
        " please provide more context to uniquely identify the instance.\nString: x = 1"
        "</tool_use_error>"
    )
    same = await call(EDIT_TOOL, ws, file_path=str(f), old_string="x", new_string="x")
    assert same.is_error
    assert same.text == (
        "<tool_use_error>No changes to make: old_string and new_string are exactly the same."
        "</tool_use_error>"
    )
    exists = await call(EDIT_TOOL, ws, file_path=str(f), old_string="", new_string="y")
    assert exists.text == (
        "<tool_use_error>Cannot create new file - file already exists.</tool_use_error>"
    )
    assert f.read_text() == "x = 1\nx = 1\n"
    nofile = tmp_path / "none.txt"
    absent = await call(EDIT_TOOL, ws, file_path=str(nofile), old_string="a", new_string="b")
    assert absent.is_error
    assert absent.text == (
        "<tool_use_error>File does not exist. Note: your current working directory is"
        f" {ws.cwd}.</tool_use_error>"
    )
    directory = await call(EDIT_TOOL, ws, file_path=str(tmp_path), old_string="a", new_string="b")
    assert directory.is_error
    assert str(tmp_path) in directory.text


async def test_edit_replace_all(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "e.txt"
    f.write_text("a-a-a")
    result = await call(
        EDIT_TOOL, ws, file_path=str(f), old_string="a", new_string="b", replace_all=True
    )
    assert f.read_text() == "b-b-b"
    assert result.output["replaceAll"] is True


async def test_edit_with_empty_old_string_creates(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "new" / "file.txt"
    result = await call(EDIT_TOOL, ws, file_path=str(f), old_string="", new_string="fresh\n")
    assert not result.is_error
    assert f.read_text() == "fresh\n"
    again = await call(EDIT_TOOL, ws, file_path=str(f), old_string="", new_string="other")
    assert again.is_error
    assert again.text == (  # 2.1.332's words
        "<tool_use_error>Cannot create new file - file already exists.</tool_use_error>"
    )
    assert f.read_text() == "fresh\n"


async def test_multi_edit_applies_in_order(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "m.txt"
    f.write_text("alpha beta\ngamma\n")
    edits = [
        {"old_string": "alpha", "new_string": "ALPHA"},
        {"old_string": "ALPHA beta", "new_string": "AB"},  # sees the first edit's result
        {"old_string": "a", "new_string": "4", "replace_all": True},
    ]
    result = await call(MULTI_EDIT_TOOL, ws, file_path=str(f), edits=edits)
    assert not result.is_error
    assert f.read_text() == "AB\ng4mm4\n"
    assert result.output["originalFileContents"] == "alpha beta\ngamma\n"
    assert [e["replace_all"] for e in result.output["edits"]] == [False, False, True]


async def test_multi_edit_is_all_or_nothing(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "m.txt"
    f.write_text("one two three\n")
    edits = [
        {"old_string": "one", "new_string": "1"},
        {"old_string": "missing", "new_string": "x"},
    ]
    result = await call(MULTI_EDIT_TOOL, ws, file_path=str(f), edits=edits)
    assert result.is_error
    assert str(f) in result.text
    assert "(edit 2 of 2)" in result.text
    assert "No edits were applied" in result.text
    assert f.read_text() == "one two three\n"


def _apply_patch(old: str, hunks: list[dict[str, object]]) -> list[str]:
    lines = old.splitlines()
    out: list[str] = []
    pos = 0
    for h in hunks:
        start = int(h["oldStart"]) - 1 if int(h["oldLines"]) else int(h["oldStart"])  # type: ignore[call-overload]
        out.extend(lines[pos:start])
        pos = start
        for line in h["lines"]:  # type: ignore[attr-defined]
            if line[0] in " -":
                pos += 1
            if line[0] in " +":
                out.append(line[1:])
    out.extend(lines[pos:])
    return out


@given(
    st.lists(st.sampled_from(["a", "b", "c", ""]), max_size=12),
    st.lists(st.sampled_from(["a", "b", "c", ""]), max_size=12),
)
def test_structured_patch_turns_old_into_new(old_lines: list[str], new_lines: list[str]) -> None:
    old, new = "\n".join(old_lines), "\n".join(new_lines)
    hunks = structured_patch(old, new)
    assert _apply_patch(old, hunks) == new.splitlines()
    for h in hunks:
        body = h["lines"]
        assert h["oldLines"] == sum(1 for x in body if x[0] in " -")
        assert h["newLines"] == sum(1 for x in body if x[0] in " +")
