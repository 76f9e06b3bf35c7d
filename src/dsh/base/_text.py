"""``valid_text``: a string as UTF-8 can carry it, what is not text replaced by U+FFFD.

Python decodes the command line and standard input with ``surrogateescape``: a
byte that is not UTF-8 becomes a lone surrogate (``b"\\xff"`` is ``"\\udcff"``),
which no UTF-8 encoder accepts. Claude Code (Node) decodes both with U+FFFD for
what is not UTF-8; so does dsh, at the edge for a prompt and on the wire for a
model request (where a lone surrogate recorded in the session log, as its JSON
escape, is sent as U+FFFD).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

__all__ = ["valid_text"]

_LONE: Final = re.compile("[\ud800-\udfff]")


@cache
def _not_an_escape() -> re.Pattern[str]:
    """A lone surrogate that is no ``surrogateescape`` of a byte (compiled at the first text
    holding a lone surrogate: most runs see none)."""
    return re.compile("[\ud800-\udc7f\udd00-\udfff]")


def valid_text(text: str) -> str:
    """``text`` with each byte that was not UTF-8 (its surrogate escape) and any other lone
    surrogate replaced as a UTF-8 decoder replaces it (U+FFFD); ``text`` itself when it
    holds none (the common case costs one search)."""
    if _LONE.search(text) is None:
        return text
    escaped = _not_an_escape().sub("\ufffd", text).encode("utf-8", "surrogateescape")
    return escaped.decode("utf-8", "replace")
