"""Each built-in tool's output model and presenter agree with the tool itself.

For every successful call: ``output_model`` accepts ``thaw_json(result.output)``
and ``present(thaw_json(result.output)) == result.content``, so a hook's
replacement output is shown exactly as the tool shows its own. Real runs in
temporary directories; hypothesis varies the inputs. Then each model rejects a
wrong shape and ignores unknown keys.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from dsh.base import freeze_json, thaw_json
from dsh.messages import ImageBlock
from dsh.tools import OutputMismatchError, ToolDefinition, ToolResult, Workspace
from dsh.tools.builtin import (
    BASH_TOOL,
    EDIT_TOOL,
    GLOB_TOOL,
    MULTI_EDIT_TOOL,
    READ_TOOL,
    TASK_CREATE_TOOL,
    TASK_GET_TOOL,
    TASK_LIST_TOOL,
    TASK_UPDATE_TOOL,
    WRITE_TOOL,
    BashOutput,
    EditOutput,
    GlobOutput,
    GrepOutput,
    MultiEditOutput,
    ReadOutput,
    TaskCreateOutput,
    TaskGetOutput,
    TaskListOutput,
    TaskUpdateOutput,
    ToolSearchOutput,
    WriteOutput,
    builtin_tools,
)
from dsh.tools.builtin._bash import background_shell
from dsh.tools.builtin._glob import MAX_GLOB_RESULTS
from dsh.tools.builtin._grep import grep_tool
from dsh.tools.builtin._read import MAX_LINE_CHARS
from dsh.tools.builtin._unavailable import UNAVAILABLE_TOOLS
from dsh.tools.builtin._write import WRITE_CREATED_SUFFIX, present_edit

from ._support import call, call_with, conformance_payloads

HAVE_RG = shutil.which("rg") is not None
SEARCHERS = [
    pytest.param(True, id="ripgrep", marks=pytest.mark.skipif(not HAVE_RG, reason="no rg")),
    pytest.param(False, id="python"),
]
FEW = settings(max_examples=25, deadline=None)


def assert_presented(tool: ToolDefinition, result: ToolResult) -> None:
    """The invariant: the model validates the output and ``present`` gives the content."""
    assert not result.is_error, result.text
    plain = thaw_json(result.output)
    model = tool.load_output_model()
    assert model is not None
    model.model_validate(plain)
    assert tool.present is not None
    assert tool.present(plain) == result.content
    # As the registry applies a replacement: frozen JSON in, validated, presented.
    assert tool.present_output(freeze_json(result.output)) == result.content


@contextmanager
def workspace() -> Iterator[Workspace]:
    """A fresh workspace per hypothesis example (tmp_path is one per test)."""
    with tempfile.TemporaryDirectory(prefix="dsh-present-") as d:
        env = dict(os.environ)
        env["LC_ALL"] = "C"
        ws = Workspace(Path(d), env=env)
        try:
            yield ws
        finally:
            ws.close()


def run(tool: ToolDefinition, ws: Workspace, arguments: dict[str, Any]) -> ToolResult:
    return asyncio.run(call_with(tool, ws, arguments))


# Strategies ---------------------------------------------------------------------------

_line = st.one_of(
    st.text(alphabet="ab \t\r\ufeffé:", max_size=8),
    st.sampled_from([MAX_LINE_CHARS - 1, MAX_LINE_CHARS, MAX_LINE_CHARS + 1]).map(
        lambda n: "x" * n
    ),
)
_text = st.builds(
    lambda lines, end: "\n".join(lines) + end,
    st.lists(_line, max_size=8),
    st.sampled_from(["", "\n", "\r\n"]),
)
_file_bytes = st.one_of(
    _text.map(lambda t: t.encode("utf-8")),
    st.binary(max_size=40).map(lambda b: b.replace(b"\0", b"")),  # invalid UTF-8 too
)


UNAVAILABLE = {t.name: t for t in UNAVAILABLE_TOOLS}
DEFERRED_BY_2_1_332 = (
    *("CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree", "Monitor"),
    *("NotebookEdit", "TaskStop", "WebFetch", "WebSearch"),
)


# Every tool's definition ---------------------------------------------------------------


def test_every_builtin_tool_has_an_output_model_and_a_presenter() -> None:
    models = {t.name: t.load_output_model() for t in builtin_tools()}
    assert models == {
        "Bash": BashOutput,
        "Read": ReadOutput,
        "Write": WriteOutput,
        "Edit": EditOutput,
        "MultiEdit": MultiEditOutput,
        "Glob": GlobOutput,
        "Grep": GrepOutput,
        "TaskCreate": TaskCreateOutput,
        "TaskGet": TaskGetOutput,
        "TaskList": TaskListOutput,
        "TaskUpdate": TaskUpdateOutput,
        "ToolSearch": ToolSearchOutput,
        # 2.1.332's deferred tools, with its schemas rather than a pydantic model: their
        # output is the dict 2.1.332 sends as ``tool_response``.
        **dict.fromkeys(DEFERRED_BY_2_1_332),
    }
    without = {t.name for t in builtin_tools() if t.present is None}
    # Only the tools that never succeed in dsh (a "not available in dsh" error) have none.
    assert without == {n for n, t in UNAVAILABLE.items() if t.present is None}
    assert without == set(UNAVAILABLE)
    assert grep_tool(use_ripgrep=False).present is not None


# Bash ---------------------------------------------------------------------------------


@FEW
@given(
    text=st.text(alphabet="ab \t\n\r", max_size=30),
    limit=st.sampled_from(["", "5", "12"]),
    image=st.booleans(),
)
def test_bash_output_is_presented_as_the_tool_shows_it(text: str, limit: str, image: bool) -> None:
    with workspace() as ws:
        ws.env["TEXT"] = ("data:image/png;base64," if image else "") + text
        ws.env["BASH_MAX_OUTPUT_LENGTH"] = limit  # small: the truncation marker
        result = run(BASH_TOOL, ws, {"command": 'printf %s "$TEXT"'})
        assert_presented(BASH_TOOL, result)


@pytest.mark.parametrize("command", ["true", "cd .", "mkdir d && touch d/f", "echo hi >&2"])
async def test_bash_silent_and_stderr_commands(ws: Workspace, command: str) -> None:
    result = await call(BASH_TOOL, ws, command=command)
    assert_presented(BASH_TOOL, result)


async def test_bash_background_output_path_follows_from_the_id(ws: Workspace) -> None:
    try:
        result = await call(BASH_TOOL, ws, command="echo bg", run_in_background=True)
        assert_presented(BASH_TOOL, result)
        shell = background_shell(result.output["backgroundTaskId"])
        assert shell is not None
        await shell.wait()
        # A replacement naming another shell is told that shell's file, where it would write.
        other = {**result.output, "backgroundTaskId": "bash_other"}
        assert BASH_TOOL.present is not None
        shown = BASH_TOOL.present(other)
        assert shown == (
            "Command running in background with ID: bash_other. Output is being written to: "
            f"{shell.output_path.parent / 'bash_other.log'}"
        )
    finally:
        ws.close()


def test_bash_replacement_stderr_and_interruption_are_shown() -> None:
    assert BASH_TOOL.present is not None
    base = {
        "stdout": "",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    assert BASH_TOOL.present(base) == "(Bash completed with no output)"
    assert BASH_TOOL.present({**base, "stdout": "out", "stderr": " warn\n"}) == "out\nwarn"
    assert BASH_TOOL.present({**base, "interrupted": True}) == (
        "<error>Command was aborted before completion</error>"
    )


# Read ---------------------------------------------------------------------------------


@FEW
@given(
    data=_file_bytes,
    offset=st.none() | st.integers(0, 12),
    limit=st.none() | st.integers(1, 12),
)
def test_read_output_is_presented_as_the_tool_shows_it(
    data: bytes, offset: int | None, limit: int | None
) -> None:
    with workspace() as ws:
        f = ws.cwd / "f.txt"
        f.write_bytes(data)
        arguments: dict[str, Any] = {"file_path": str(f)}
        if offset is not None:
            arguments["offset"] = offset
        if limit is not None:
            arguments["limit"] = limit
        assert_presented(READ_TOOL, run(READ_TOOL, ws, arguments))


async def test_read_one_empty_line_is_a_numbered_line(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "blank.txt"
    f.write_text("\n")  # content "\n": two lines as 2.1.332 counts them, not the empty warning
    result = await call(READ_TOOL, ws, file_path=str(f))
    assert result.content == "1\t\n2\t"
    assert_presented(READ_TOOL, result)


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".jpeg", ".gif", ".webp"])
async def test_read_image_is_presented_as_an_image_block(
    ws: Workspace, tmp_path: Path, suffix: str
) -> None:
    f = tmp_path / f"i{suffix}"
    f.write_bytes(b"\x89not-really-an-image")
    result = await call(READ_TOOL, ws, file_path=str(f))
    assert isinstance(result.content, tuple)
    assert isinstance(result.content[0], ImageBlock)
    assert_presented(READ_TOOL, result)


# Write, Edit, MultiEdit ------------------------------------------------------------------


@FEW
@given(original=st.none() | _text, content=_text)
def test_write_output_is_presented_as_the_tool_shows_it(original: str | None, content: str) -> None:
    with workspace() as ws:
        f = ws.cwd / "sub" / "w.txt"
        if original is not None:
            f.parent.mkdir()
            f.write_text(original, newline="")
        assert_presented(WRITE_TOOL, run(WRITE_TOOL, ws, {"file_path": str(f), "content": content}))


def _edit(data: st.DataObject, text: str | None) -> dict[str, Any]:
    """An edit whose old_string mostly occurs in ``text`` (so that many edits apply)."""
    if text and data.draw(st.integers(0, 3)):
        i = data.draw(st.integers(0, len(text) - 1))
        old = text[i : data.draw(st.integers(i + 1, min(len(text), i + 6)))]
    else:
        old = data.draw(st.sampled_from(["", "a", "zz"]))
    return {
        "old_string": old,
        "new_string": data.draw(st.text(alphabet="ab\nX", max_size=5)),
        "replace_all": data.draw(st.booleans()),
    }


@FEW
@given(original=st.none() | st.sampled_from(["", " \n"]) | _text, data=st.data())
def test_edit_output_matches_its_model_and_present_edit(
    original: str | None, data: st.DataObject
) -> None:
    with workspace() as ws:
        f = ws.cwd / "e.txt"
        if original is not None:
            f.write_text(original, newline="")
        result = run(EDIT_TOOL, ws, {"file_path": str(f), **_edit(data, original)})
        if result.is_error:
            return
        plain = thaw_json(result.output)
        EditOutput.model_validate(plain)
        if original != "":  # the one case present_edit cannot tell (see the next test)
            assert present_edit(plain) == result.content
            assert EDIT_TOOL.present_output(plain) == result.content


async def test_edit_output_cannot_tell_a_created_file_from_a_filled_empty_one(
    ws: Workspace, tmp_path: Path
) -> None:
    """The one output Edit's ``present`` reads one way for two calls (it says "created")."""
    f = tmp_path / "e.txt"
    created = await call(EDIT_TOOL, ws, file_path=str(f), old_string="", new_string="x")
    f.write_text("")
    await call(READ_TOOL, ws, file_path=str(f))  # as a session reads a file it then fills
    filled = await call(EDIT_TOOL, ws, file_path=str(f), old_string="", new_string="x")
    assert created.output == filled.output
    assert created.content == f"File created successfully at: {f}"
    assert filled.content == f"The file {f} has been updated successfully.{WRITE_CREATED_SUFFIX}"
    assert EDIT_TOOL.present is present_edit
    assert EDIT_TOOL.present_output(filled.output) == created.content


@FEW
@given(original=st.none() | st.sampled_from(["", " \n"]) | _text, data=st.data())
def test_multi_edit_output_is_presented_as_the_tool_shows_it(
    original: str | None, data: st.DataObject
) -> None:
    with workspace() as ws:
        f = ws.cwd / "m.txt"
        if original is not None:
            f.write_text(original, newline="")
        edits, current = [], original
        for _ in range(data.draw(st.integers(1, 3))):
            # Each edit mostly picks its old_string from the text the previous ones left.
            edits.append(edit := _edit(data, current))
            if current is not None and edit["old_string"]:
                current = current.replace(edit["old_string"], edit["new_string"])
        result = run(MULTI_EDIT_TOOL, ws, {"file_path": str(f), "edits": edits})
        if not result.is_error:
            assert_presented(MULTI_EDIT_TOOL, result)


# Glob ---------------------------------------------------------------------------------

_segment = st.text(alphabet="ab.", min_size=1, max_size=3).filter(lambda s: s not in (".", ".."))
_rel_paths = st.lists(
    st.lists(_segment, min_size=1, max_size=3).map("/".join), min_size=1, max_size=6
)
# Neither absolute nor climbing out of the workspace (a walk of / would be slow).
_glob_patterns = st.one_of(
    st.sampled_from(["*", "**", "**/*", "a*", "**/a*", "*.a", "a/*", "{a,b}*", "?", "**/?b"]),
    st.text(alphabet="ab.*?/{},", max_size=8).filter(
        lambda p: not p.startswith("/") and ".." not in p
    ),
)


@settings(max_examples=50, deadline=None)
@given(
    paths=_rel_paths,
    pattern=_glob_patterns,
    in_sub=st.booleans(),
)
def test_glob_output_is_presented_as_the_tool_shows_it(
    paths: list[str], pattern: str, in_sub: bool
) -> None:
    with workspace() as ws:
        (ws.cwd / "a").mkdir()
        for rel in paths:
            target = ws.cwd / rel
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.touch()
            except OSError:
                continue  # a path component is a file already
        arguments: dict[str, Any] = {"pattern": pattern}
        if in_sub:
            arguments["path"] = "a"
        assert_presented(GLOB_TOOL, run(GLOB_TOOL, ws, arguments))


async def test_glob_truncated_and_empty(ws: Workspace, tmp_path: Path) -> None:
    for i in range(MAX_GLOB_RESULTS + 1):
        (tmp_path / f"f{i}.txt").touch()
    many = await call(GLOB_TOOL, ws, pattern="*.txt")
    assert many.output["truncated"] is True
    assert_presented(GLOB_TOOL, many)
    none = await call(GLOB_TOOL, ws, pattern="*.none")
    assert none.content == "No files found"
    assert_presented(GLOB_TOOL, none)


# Grep ---------------------------------------------------------------------------------

_grep_text = st.lists(
    st.sampled_from(["alpha", "beta", "Alpha", "gamma", "", "a:b"]), max_size=6
).map("\n".join)
_grep_files = st.fixed_dictionaries(
    {"a.py": _grep_text, "sub/c.py": _grep_text},
    optional={"b.txt": _grep_text, "sub/d.md": _grep_text},
)
_grep_options = st.fixed_dictionaries(
    {"output_mode": st.sampled_from(["content", "files_with_matches", "count"])},
    optional={
        "-i": st.booleans(),
        "-n": st.booleans(),
        "-A": st.integers(0, 2),
        "-B": st.integers(0, 2),
        "-C": st.integers(0, 2),
        "head_limit": st.integers(0, 3),
        "offset": st.integers(0, 3),
        "glob": st.sampled_from(["*.py", "*.{py,md}", "!*.txt"]),
        "type": st.sampled_from(["py", "md"]),
        "multiline": st.booleans(),
        "path": st.sampled_from(["sub", "a.py"]),
    },
)


@pytest.mark.parametrize("use_ripgrep", SEARCHERS)
@settings(max_examples=40, deadline=None)
@given(
    files=_grep_files,
    pattern=st.sampled_from(["alpha", "a", "^b", "a|m", "zzz", "a\\nb", "[:]"]),
    options=_grep_options,
)
def test_grep_output_is_presented_as_the_tool_shows_it(
    use_ripgrep: bool, files: dict[str, str], pattern: str, options: dict[str, Any]
) -> None:
    tool = grep_tool(use_ripgrep=use_ripgrep)
    with workspace() as ws:
        for rel, text in files.items():
            (ws.cwd / rel).parent.mkdir(exist_ok=True)
            (ws.cwd / rel).write_text(text)
        result = run(tool, ws, {"pattern": pattern, **options})
        if not result.is_error:  # ripgrep refuses "\\n" without multiline
            assert_presented(tool, result)


def test_grep_replacement_without_the_optional_fields() -> None:
    tool = grep_tool(use_ripgrep=False)
    assert tool.present is not None
    bare = {"numFiles": 0, "filenames": []}
    assert tool.present({"mode": "content", **bare}) == "No matches found"
    assert tool.present({"mode": "count", **bare}) == "No matches found"
    assert tool.present({"mode": "files_with_matches", **bare}) == "No files found"
    assert tool.present({"mode": "count", **bare, "numFiles": 1, "content": "f:1"}) == (
        "f:1\n\nFound 0 total occurrences across 1 file."
    )


# The task tools (every real output is checked in test_tasks.py) -----------------------------


async def test_task_tools_outputs_are_presented_as_the_tools_show_them(ws: Workspace) -> None:
    steps: list[tuple[ToolDefinition, dict[str, Any]]] = [
        (TASK_LIST_TOOL, {}),
        (TASK_CREATE_TOOL, {"subject": "a", "description": "d", "activeForm": "Doing a"}),
        (TASK_CREATE_TOOL, {"subject": "b", "description": "", "metadata": {"k": [1]}}),
        (TASK_UPDATE_TOOL, {"taskId": "2", "addBlockedBy": ["1"], "owner": "ann"}),
        (TASK_UPDATE_TOOL, {"taskId": "1", "subject": "a"}),
        (TASK_GET_TOOL, {"taskId": "1"}),
        (TASK_GET_TOOL, {"taskId": "2"}),
        (TASK_LIST_TOOL, {}),
        (TASK_UPDATE_TOOL, {"taskId": "1", "status": "completed"}),
        (TASK_LIST_TOOL, {}),
        (TASK_UPDATE_TOOL, {"taskId": "1", "status": "deleted"}),
    ]
    for tool, arguments in steps:
        assert_presented(tool, await call_with(tool, ws, arguments))


def test_task_replacements_claude_code_can_produce_are_presented_as_it_shows_them() -> None:
    # Shapes the task tools never output themselves, but Claude Code's do (and a hook may give).
    assert TASK_GET_TOOL.present_output({"task": None}) == "Task not found"
    failed = {"success": False, "taskId": "3", "updatedFields": []}
    assert TASK_UPDATE_TOOL.present_output(failed) == "Task #3 not found"
    assert TASK_UPDATE_TOOL.present_output({**failed, "error": "Task not found"}) == (
        "Task not found"
    )
    nudged = {"success": True, "taskId": "1", "updatedFields": [], "verificationNudgeNeeded": False}
    assert TASK_UPDATE_TOOL.present_output(nudged) == "Updated task #1 "


# The models reject wrong shapes and ignore unknown keys -------------------------------------

_HUNK = {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}
# (model, a valid output, a required key path to delete, (key path, a wrong value) pairs)
MODEL_CASES: list[tuple[type[BaseModel], dict[str, Any], tuple[str, ...], list[Any]]] = [
    (
        BashOutput,
        {
            "stdout": "hi",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
        },
        ("interrupted",),
        [(("stdout",), 1), (("interrupted",), "false"), (("backgroundTaskId",), None)],
    ),
    (
        ReadOutput,
        {
            "type": "text",
            "file": {
                "filePath": "/f",
                "content": "a",
                "numLines": 1,
                "startLine": 1,
                "totalLines": 1,
            },
        },
        ("file", "totalLines"),
        [(("type",), "pdf"), (("file", "numLines"), "1"), (("file", "startLine"), 1.0)],
    ),
    (
        ReadOutput,
        {"type": "image", "file": {"base64": "AA==", "type": "image/png", "originalSize": 1}},
        ("file", "base64"),
        [(("type",), "text"), (("file", "type"), "image/bmp"), (("file", "originalSize"), True)],
    ),
    (
        WriteOutput,
        {
            "type": "update",
            "filePath": "/f",
            "content": "b",
            "structuredPatch": [_HUNK],
            "originalFile": "a",
            "userModified": False,
        },
        ("originalFile",),
        [(("type",), "edit"), (("structuredPatch",), [{"lines": []}]), (("content",), None)],
    ),
    (
        EditOutput,
        {
            "filePath": "/f",
            "oldString": "a",
            "newString": "b",
            "originalFile": "a",
            "structuredPatch": [_HUNK],
            "userModified": False,
            "replaceAll": False,
        },
        ("replaceAll",),
        [(("originalFile",), None), (("replaceAll",), 0), (("structuredPatch",), {})],
    ),
    (
        MultiEditOutput,
        {
            "filePath": "/f",
            "edits": [{"old_string": "a", "new_string": "b", "replace_all": False}],
            "originalFileContents": "a",
            "structuredPatch": [_HUNK],
            "userModified": False,
        },
        ("edits",),
        [(("edits",), [{"old_string": "a"}]), (("originalFileContents",), None)],
    ),
    (
        GlobOutput,
        {"filenames": ["/a"], "durationMs": 1, "numFiles": 1, "truncated": False},
        ("truncated",),
        [(("filenames",), "/a"), (("durationMs",), 1.5), (("numFiles",), "1")],
    ),
    (
        GrepOutput,
        {"mode": "count", "numFiles": 1, "filenames": [], "content": "a:1", "numMatches": 1},
        ("filenames",),
        [(("mode",), "lines"), (("content",), None), (("appliedLimit",), "2")],
    ),
    (
        TaskCreateOutput,
        {"task": {"id": "1", "subject": "a", "description": ""}},
        ("task", "subject"),
        [(("task",), None), (("task", "id"), 1)],
    ),
    (
        TaskGetOutput,
        {
            "task": {
                "id": "1",
                "subject": "a",
                "description": "",
                "status": "pending",
                "blocks": [],
                "blockedBy": ["2"],
            }
        },
        ("task", "blockedBy"),
        [(("task", "status"), "deleted"), (("task", "blocks"), "2"), (("task",), [])],
    ),
    (
        TaskListOutput,
        {"tasks": [{"id": "1", "subject": "a", "status": "completed", "blockedBy": []}]},
        ("tasks",),
        [(("tasks",), {}), (("tasks",), [{"id": "1"}]), (("tasks",), None)],
    ),
    (
        TaskUpdateOutput,
        {
            "success": True,
            "taskId": "1",
            "updatedFields": ["status"],
            "statusChange": {"from": "pending", "to": "completed"},
        },
        ("statusChange", "from"),
        [(("success",), "true"), (("updatedFields",), "status"), (("taskId",), 1)],
    ),
]
_IDS = [f"{m.__name__}-{v.get('type', '')}" for m, v, _, _ in MODEL_CASES]


def _with(
    value: dict[str, Any], path: tuple[str, ...], new: Any = ..., *, drop: bool = False
) -> Any:
    out = thaw_json(value)
    target = out
    for key in path[:-1]:
        target = target[key]
    if drop:
        del target[path[-1]]
    else:
        target[path[-1]] = new
    return out


@pytest.mark.parametrize(("model", "valid", "required", "wrong"), MODEL_CASES, ids=_IDS)
def test_model_accepts_its_shape_and_ignores_unknown_keys(
    model: type[BaseModel], valid: dict[str, Any], required: tuple[str, ...], wrong: list[Any]
) -> None:
    model.model_validate(valid)
    model.model_validate({**valid, "unknownKey": [1, {"x": None}]})
    first = next(iter(k for k, v in valid.items() if isinstance(v, dict)), None)
    if first is not None:  # unknown keys deeper down too
        model.model_validate(_with(valid, (first, "unknownKey"), 1))


@pytest.mark.parametrize(("model", "valid", "required", "wrong"), MODEL_CASES, ids=_IDS)
def test_model_rejects_a_missing_field_or_a_wrong_type(
    model: type[BaseModel], valid: dict[str, Any], required: tuple[str, ...], wrong: list[Any]
) -> None:
    with pytest.raises(ValidationError):
        model.model_validate(_with(valid, required, drop=True))
    for path, value in wrong:
        with pytest.raises(ValidationError):
            model.model_validate(_with(valid, path, value))
    with pytest.raises(ValidationError):
        model.model_validate([valid])


@pytest.mark.parametrize(
    "tool", [BASH_TOOL, WRITE_TOOL, TASK_CREATE_TOOL, TASK_UPDATE_TOOL], ids=lambda t: t.name
)
def test_models_accept_real_claude_code_tool_responses(tool: ToolDefinition) -> None:
    payloads = conformance_payloads("PostToolUse", tool.name)
    assert payloads, f"no recorded PostToolUse of {tool.name}"
    model = tool.load_output_model()
    assert model is not None
    assert tool.present is not None
    for payload in payloads:
        model.model_validate(payload["tool_response"])
        tool.present(payload["tool_response"])


def test_a_mismatching_replacement_is_refused_by_present_output() -> None:
    with pytest.raises(OutputMismatchError, match="BashOutput"):
        BASH_TOOL.present_output({"stdout": "x"})


def test_a_bash_replacement_may_leave_out_what_claude_codes_schema_makes_optional() -> None:
    from dsh.tools.builtin import BASH_TOOL

    minimal = {"stdout": "x", "stderr": "", "interrupted": False}
    BashOutput.model_validate(minimal)
    assert BASH_TOOL.present_output(minimal) == "x"
