"""The Read tool: numbered lines, ranges, and every refusal naming the file."""

from __future__ import annotations

import base64
from pathlib import Path

from dsh.messages import ImageBlock
from dsh.tools import Workspace
from dsh.tools.builtin import READ_TOOL
from dsh.tools.builtin._read import DEFAULT_READ_LIMIT

from ._support import call

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


async def test_numbered_lines_as_claude_code_numbers_them(ws: Workspace, tmp_path: Path) -> None:
    # 2.1.332 (tests/fixtures/claude_strict.json, `file-tools`): unpadded numbers, and the
    # trailing newline an empty last line, counted.
    f = tmp_path / "a.txt"
    f.write_text("alpha\n\tbeta\ngamma\n")
    result = await call(READ_TOOL, ws, file_path=str(f))
    assert result.content == "1\talpha\n2\t\tbeta\n3\tgamma\n4\t"
    assert result.output == {
        "type": "text",
        "file": {
            "filePath": str(f),
            "content": "alpha\n\tbeta\ngamma\n",
            "numLines": 4,
            "startLine": 1,
            "totalLines": 4,
        },
    }


async def test_offset_and_limit(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "n.txt"
    f.write_text("".join(f"line {i}\n" for i in range(1, 21)))
    result = await call(READ_TOOL, ws, file_path=str(f), offset=18, limit=2)
    assert result.content == "18\tline 18\n19\tline 19"
    assert result.output["file"]["numLines"] == 2
    assert result.output["file"]["startLine"] == 18
    assert result.output["file"]["totalLines"] == 21  # the empty line after the last newline
    tail = await call(READ_TOOL, ws, file_path=str(f), offset=19)
    assert tail.content == "19\tline 19\n20\tline 20\n21\t"


async def test_default_limit_and_wide_numbers(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "big.txt"
    f.write_text("x\n" * (DEFAULT_READ_LIMIT + 500))
    result = await call(READ_TOOL, ws, file_path=str(f))
    lines = result.text.split("\n")
    assert len(lines) == DEFAULT_READ_LIMIT
    assert lines[-1] == f"{DEFAULT_READ_LIMIT}\tx"
    assert result.output["file"]["totalLines"] == DEFAULT_READ_LIMIT + 501
    many = tmp_path / "many.txt"
    many.write_text("y\n" * 1_000_001)
    far = await call(READ_TOOL, ws, file_path=str(many), offset=1_000_001, limit=1)
    assert far.content == "1000001\ty"


async def test_long_lines_are_truncated_and_marked(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "wide.txt"
    f.write_text("a" * 5000 + "\nshort\n")
    result = await call(READ_TOOL, ws, file_path=str(f))
    first, second, last = result.text.split("\n")
    assert first.startswith("1\t" + "a" * 2000)
    assert first.endswith("[line truncated]")
    assert "a" * 2001 not in first
    assert second == "2\tshort"
    assert last == "3\t"


async def test_crlf_bom_and_no_final_newline(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "w.txt"
    f.write_bytes(b"\xef\xbb\xbfone\r\ntwo")
    result = await call(READ_TOOL, ws, file_path=str(f))
    assert result.content == "1\tone\n2\ttwo"


async def test_relative_path_resolves_against_cwd(ws: Workspace, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "r.txt").write_text("here\n")
    ws.cwd = tmp_path / "sub"
    result = await call(READ_TOOL, ws, file_path="r.txt")
    assert result.content == "1\there\n2\t"
    assert result.output["file"]["filePath"] == "r.txt"  # as the call wrote it (2.1.332)


async def test_empty_file_and_offset_past_the_end(ws: Workspace, tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    result = await call(READ_TOOL, ws, file_path=str(empty))
    assert not result.is_error
    assert "contents are empty" in result.text
    short = tmp_path / "short.txt"
    short.write_text("1\n2\n")
    past = await call(READ_TOOL, ws, file_path=str(short), offset=10)
    assert not past.is_error
    assert "shorter than the provided offset (10)" in past.text
    assert "3 lines" in past.text


async def test_refusals_name_the_file(ws: Workspace, tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    result = await call(READ_TOOL, ws, file_path=str(missing))
    assert result.is_error
    assert result.code == "TOOL_ERROR"
    assert result.text == f"File does not exist: {missing}"

    directory = await call(READ_TOOL, ws, file_path=str(tmp_path))
    assert directory.is_error
    assert str(tmp_path) in directory.text
    assert "directory" in directory.text

    blob = tmp_path / "blob.data"
    blob.write_bytes(b"head\0tail")
    binary = await call(READ_TOOL, ws, file_path=str(blob))
    assert binary.is_error
    assert str(blob) in binary.text
    assert "binary" in binary.text

    huge = tmp_path / "huge.txt"
    huge.write_text("z" * 100 + "\n" + "y" * 300_000)
    too_big = await call(READ_TOOL, ws, file_path=str(huge))
    assert too_big.is_error
    assert str(huge) in too_big.text
    assert "offset and limit" in too_big.text
    part = await call(READ_TOOL, ws, file_path=str(huge), limit=1)
    assert part.content == "1\t" + "z" * 100


async def test_unreadable_file(ws: Workspace, tmp_path: Path) -> None:
    import os

    locked = tmp_path / "locked.txt"
    locked.write_text("secret\n")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):  # root reads anything; nothing to check then
            return
        result = await call(READ_TOOL, ws, file_path=str(locked))
        assert result.is_error
        assert str(locked) in result.text
        assert "permission" in result.text
    finally:
        locked.chmod(0o644)


async def test_images_come_back_as_image_blocks(ws: Workspace, tmp_path: Path) -> None:
    img = tmp_path / "dot.png"
    img.write_bytes(PNG)
    result = await call(READ_TOOL, ws, file_path=str(img))
    assert result.content == (
        ImageBlock(media_type="image/png", data=base64.b64encode(PNG).decode()),
    )
    assert result.output["type"] == "image"
    assert result.output["file"]["originalSize"] == len(PNG)
