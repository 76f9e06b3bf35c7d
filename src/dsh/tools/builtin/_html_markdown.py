"""An HTML page as Markdown, the way 2.1.332's WebFetch hands a page to its model (turndown's
defaults): setext ``h1``/``h2`` (``===``/``---``), ``###`` below, ``**bold**``, ``_em_``,
```code```, ``[text](href)``, ``![alt](src)``, ``*   item`` and ``1.  item`` lists, indented
code blocks, ``> `` quotes, ``* * *`` rules; blocks apart by a blank line, white space folded
as a browser folds it, ``script``/``style``/``noscript``/``template`` left out. A subset of
turndown: what a page's text needs, not its every rule (no tables, no Markdown escaping).
Bounded by the caller (the page is already cut to its size limit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

__all__ = ["html_to_markdown"]

_BLOCKS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    ]
)
_SKIPPED = frozenset({"script", "style", "noscript", "template", "head-meta"})
_SPACES = re.compile(r"[ \t\r\n\f]+")


@dataclass(slots=True)
class _List:
    """An open list: ``ul`` or ``ol``, and the number of an ``ol``'s next item."""

    tag: str
    number: int


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0
        self.lists: list[_List] = []
        self.links: list[str | None] = []
        self.quote = 0

    # Output --------------------------------------------------------------------------------

    def _text(self) -> str:
        return "".join(self.out)

    def _block(self) -> None:
        """Start a new block: one blank line after what came before."""
        text = self._text().rstrip(" ")
        self.out = [text.rstrip("\n") + "\n\n"] if text.strip() else []

    def _line(self) -> None:
        """Start a new line (a blank line already there stays)."""
        text = self._text().rstrip(" ")
        self.out = [text if text.endswith("\n") else text + "\n"] if text.strip() else []

    def _emit(self, text: str) -> None:
        if self.quote and self._text().endswith("\n"):
            text = "> " * self.quote + text
        self.out.append(text)

    # Parsing -------------------------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in _SKIPPED:
            self.skip += 1
            return
        if self.skip:
            return
        nested = tag in ("ul", "ol") and bool(self.lists)
        if nested:
            self._line()
        elif tag in _BLOCKS and tag != "li":
            self._block()
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.heading_start = len(self._text())
            if tag not in ("h1", "h2"):
                self._emit("#" * int(tag[1]) + " ")
        elif tag in ("ul", "ol"):
            start = found.get("start") or "1"
            self.lists.append(_List(tag, int(start) if start.isdigit() else 1))
        elif tag == "li":
            self._line()
            kind = self.lists[-1] if self.lists else _List("ul", 0)
            indent = "    " * max(0, len(self.lists) - 1)
            if kind.tag == "ol":
                self._emit(f"{indent}{kind.number}.  ")
                kind.number += 1
            else:
                self._emit(f"{indent}*   ")
        elif tag in ("strong", "b"):
            self._emit("**")
        elif tag in ("em", "i"):
            self._emit("_")
        elif tag == "code" and not self.pre:
            self._emit("`")
        elif tag == "pre":
            self.pre += 1
        elif tag == "a":
            self.links.append(found.get("href"))
            if found.get("href"):
                self._emit("[")
        elif tag == "img":
            alt, src = found.get("alt") or "", found.get("src")
            if src:
                self._emit(f"![{alt}]({src})")
        elif tag == "br":
            self._emit("  \n")
        elif tag == "hr":
            self._emit("* * *")
            self._block()
        elif tag == "blockquote":
            self.quote += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skip = max(0, self.skip - 1)
            return
        if self.skip:
            return
        if tag in ("h1", "h2"):
            title = self._text()[getattr(self, "heading_start", 0) :].strip()
            self._emit("\n" + ("=" if tag == "h1" else "-") * len(title))
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
            if self.lists:  # a nested list ends its item's line, not a block
                self._line()
                return
        elif tag in ("strong", "b"):
            self._emit("**")
        elif tag in ("em", "i"):
            self._emit("_")
        elif tag == "code" and not self.pre:
            self._emit("`")
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
        elif tag == "a" and self.links:
            href = self.links.pop()
            if href:
                self._emit(f"]({href})")
        elif tag == "blockquote":
            self.quote = max(0, self.quote - 1)
        if tag in _BLOCKS and tag != "li":
            self._block()

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre:
            self._block()
            self._emit("\n".join("    " + line for line in data.strip("\n").split("\n")))
            self._block()
            return
        text = _SPACES.sub(" ", data)
        if not self._text() or self._text().endswith(("\n", " ")):
            text = text.lstrip(" ")
        if text:
            self._emit(text)


def html_to_markdown(html: str) -> str:
    """``html`` as Markdown (module docstring)."""
    converter = _Converter()
    converter.feed(html)
    converter.close()
    lines = [line.rstrip(" ") if not line.endswith("  ") else line for line in converter.out]
    text = "".join(lines)
    text = re.sub(r" +\n", lambda m: "  \n" if len(m.group(0)) >= 3 else "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n").strip()
