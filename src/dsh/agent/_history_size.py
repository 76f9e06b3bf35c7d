"""The size estimate of a projection that the compaction budget is checked against.

Checked before every model call, so it is kept per message and reused: a step
adds the sizes of its new messages to the sum of the view it extends.
"""

from __future__ import annotations

import json
from typing import Any

from dsh.base import thaw_json
from dsh.messages import (
    AssistantMessage,
    ModelMessage,
    ToolResultMessage,
    UserMessage,
    content_text,
)
from dsh.messages._history import shared_prefix

__all__ = ["HistorySize", "message_chars"]


def message_chars(m: ModelMessage) -> int:
    """A cheap size estimate of one message: its text plus its tool arguments as JSON."""
    if isinstance(m, AssistantMessage):
        total = len(m.text)
        for use in m.tool_calls:
            total += len(use.name) + len(json.dumps(_plain(use.arguments), default=str))
        return total
    if isinstance(m, UserMessage | ToolResultMessage):
        return len(content_text(m.content))
    return len(m.text)


def _plain(arguments: Any) -> Any:
    try:
        return thaw_json(arguments)
    except Exception:
        return arguments


class HistorySize:
    """``sum(message_chars(m) for m in view)``, reusing the sums of the view before."""

    __slots__ = ("_sums", "_view")

    def __init__(self) -> None:
        self._view: tuple[ModelMessage, ...] = ()
        self._sums: list[int] = [0]  # _sums[i]: the size of _view[:i]

    def chars(self, view: tuple[ModelMessage, ...]) -> int:
        keep = shared_prefix(self._view, view)
        sums = self._sums
        del sums[keep + 1 :]
        total = sums[keep]
        for m in view[keep:]:
            total += message_chars(m)
            sums.append(total)
        self._view = view
        return total
