"""A hook text over its ``additionalContextLimit``, cut as Codex 0.171 cuts it.

Recorded from the real ``codex exec`` (``benchmarks/record_codex_spill.py``, kept in
``tests/fixtures/codex_hook_spill.json``): the text is saved whole to a file and the model
reads, in its place::

    Warning: truncated output (original token count: 5050)
    Total output lines: 200

    <the first bytes>…2581 tokens truncated…<the last bytes>

    Full hook output saved to: /path/to/file.txt

The budget is the limit in bytes (4 a token), less the ``Full hook output saved to`` line
(which follows the kept tail after a blank line); it is split evenly between the head and
the tail, each cut on a character boundary. Token counts are bytes divided by 4, rounded up.
Codex keeps its file in ``/tmp/hook_outputs/<thread>/``; dsh keeps it beside the session log.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Final

__all__ = ["BYTES_PER_TOKEN", "spilled_text"]

BYTES_PER_TOKEN: Final = 4


def _tokens(size: int) -> int:
    return math.ceil(size / BYTES_PER_TOKEN)


def _head(text: str, budget: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 fits in ``budget`` bytes."""
    data = text.encode("utf-8", "surrogatepass")[:budget]
    return data.decode("utf-8", "ignore") if budget > 0 else ""


def _tail(text: str, budget: int) -> str:
    """The longest suffix of ``text`` whose UTF-8 fits in ``budget`` bytes."""
    data = text.encode("utf-8", "surrogatepass")
    return data[len(data) - budget :].decode("utf-8", "ignore") if budget > 0 else ""


def spilled_text(text: str, limit_bytes: int, saved: Path | None) -> str:
    """What the model reads of ``text`` (over ``limit_bytes``) saved whole at ``saved``
    (``None``: it could not be saved; the cut text alone)."""
    size = len(text.encode("utf-8", "surrogatepass"))
    footer = "" if saved is None else f"\n\nFull hook output saved to: {saved}"
    budget = max(limit_bytes - len(footer.encode("utf-8", "surrogatepass")), 0)
    head = _head(text, budget // 2)
    tail = _tail(text, budget - budget // 2)
    kept = len(head.encode("utf-8", "surrogatepass")) + len(tail.encode("utf-8", "surrogatepass"))
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    return (
        f"Warning: truncated output (original token count: {_tokens(size)})\n"
        f"Total output lines: {lines}\n\n"
        f"{head}…{_tokens(size - kept)} tokens truncated…{tail}{footer}"
    )
