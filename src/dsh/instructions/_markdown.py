"""An instructions file's Markdown as Claude Code reads it: frontmatter, comments, ``@imports``.

The rules (and where they come from) are told in ``dsh.instructions._claude_md``.
Markdown is scanned line by line, not with a full CommonMark lexer.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path

__all__ = ["absolute", "import_paths", "split_frontmatter", "strip_block_comments"]


class _Patterns:
    """The Markdown patterns, compiled together when an instructions file is first read: a
    run that finds none compiles none (~0.8 ms of start-up)."""

    __slots__ = (
        "code_span",
        "comment",
        "comment_start",
        "fence_open",
        "frontmatter",
        "import_junk",
        "import_path",
        "import_start",
        "list_item",
        "paragraph_break",
        "paths_key",
    )

    def __init__(self) -> None:
        self.frontmatter = re.compile(
            r"\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE
        )
        self.paths_key = re.compile(r"^paths[ \t]*:(.*)$")
        self.list_item = re.compile(r"^[ \t]*-[ \t]*(.*)$")
        self.fence_open = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
        self.comment_start = re.compile(r"^ {0,3}<!--")
        self.comment = re.compile(r"<!--.*?-->", re.DOTALL)
        self.code_span = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
        self.paragraph_break = re.compile(r"\n[ \t]*\r?\n")
        self.import_path = re.compile(r"(?:^|\s)@((?:[^\s\\]|\\ )+)")
        self.import_start = re.compile(r"[a-zA-Z0-9._-]")
        self.import_junk = re.compile(r"[#%^&*()]+")


@functools.cache
def _re() -> _Patterns:
    return _Patterns()


def absolute(path: Path) -> Path:
    """``path`` made absolute as ``os.path.abspath`` does: ``..`` folded, symlinks kept."""
    return Path(os.path.abspath(path))


def split_frontmatter(raw: str) -> tuple[str, bool]:
    """The text without its frontmatter, and whether a ``paths`` entry makes it conditional."""
    match = _re().frontmatter.match(raw)
    if match is None:
        return raw, False
    patterns = _frontmatter_paths(match.group(1))
    # Claude Code drops a trailing "/**" and treats a list of only "**" as no paths.
    trimmed = [p[:-3] if p.endswith("/**") else p for p in patterns]
    conditional = any(p and p != "**" for p in trimmed)
    return raw[match.end() :], conditional


def _frontmatter_paths(frontmatter: str) -> list[str]:
    lines = frontmatter.splitlines()
    for index, line in enumerate(lines):
        key = _re().paths_key.match(line)
        if key is None:
            continue
        inline = key.group(1).strip()
        if inline:
            if inline.startswith("[") and inline.endswith("]"):
                inline = inline[1:-1]
            return [_unquote(part) for part in _split_outside_braces(inline)]
        items: list[str] = []
        for following in lines[index + 1 :]:
            item = _re().list_item.match(following)
            if item is None:
                break
            items.extend(_unquote(part) for part in _split_outside_braces(item.group(1)))
        return items
    return []


def _split_outside_braces(value: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = ""
    for char in value:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        current += char
    parts.append(current)
    return [part.strip() for part in parts if part.strip()]


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return value


def _blocks(text: str) -> Iterator[tuple[bool, str]]:
    """The text in order as ``(is_code, chunk)``: fenced code blocks apart from the rest."""
    lines = text.splitlines(keepends=True)
    index = 0
    pending: list[str] = []
    while index < len(lines):
        opening = _re().fence_open.match(lines[index].rstrip("\r\n"))
        if opening is None or (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            pending.append(lines[index])
            index += 1
            continue
        if pending:
            yield False, "".join(pending)
            pending = []
        fence = opening.group(1)
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = index + 1
        while end < len(lines) and closing.match(lines[end].rstrip("\r\n")) is None:
            end += 1
        yield True, "".join(lines[index : end + 1])
        index = end + 1
    if pending:
        yield False, "".join(pending)


def strip_block_comments(text: str) -> str:
    """Cut block-level HTML comments, keeping what follows ``-->`` on its line."""
    if "<!--" not in text:
        return text
    out: list[str] = []
    for is_code, chunk in _blocks(text):
        if is_code:
            out.append(chunk)
            continue
        lines = chunk.splitlines(keepends=True)
        index = 0
        while index < len(lines):
            line = lines[index]
            if _re().comment_start.match(line) is None:
                out.append(line)
                index += 1
                continue
            start = line.index("<!--")
            end = index
            while "-->" not in (lines[end][start + 4 :] if end == index else lines[end]):
                end += 1
                if end == len(lines):
                    break
            if end == len(lines):  # unclosed: kept, so a typo does not swallow the file
                out.append(line)
                index += 1
                continue
            residue = _re().comment.sub("", "".join(lines[index : end + 1]))
            if residue.strip():
                out.append(residue)
            index = end + 1
    return "".join(out)


def import_paths(text: str, base: Path) -> list[Path]:
    """The files ``text`` imports with ``@path``, resolved, in order of first mention."""
    found: dict[Path, None] = {}
    patterns = _re()
    for is_code, chunk in _blocks(text):
        if is_code or "@" not in chunk:
            continue
        # A code span never crosses a blank line (it would end the paragraph).
        for paragraph in patterns.paragraph_break.split(patterns.comment.sub(" ", chunk)):
            for match in patterns.import_path.finditer(patterns.code_span.sub(" ", paragraph)):
                target = _resolve_import(match.group(1), base)
                if target is not None:
                    found.setdefault(target, None)
    return list(found)


def _resolve_import(raw: str, base: Path) -> Path | None:
    path = raw.split("#", 1)[0].replace("\\ ", " ")
    if not path:
        return None
    valid = (
        path.startswith(("./", "~/"))
        or (path.startswith("/") and path != "/")
        or (
            not path.startswith("@")
            and _re().import_junk.match(path) is None
            and _re().import_start.match(path) is not None
        )
    )
    if not valid:
        return None
    if path.startswith("~/"):
        return absolute(Path.home() / path[2:])
    return absolute(base / path)
