"""A scripted model from Python: each reply written as blocks (``say``, ``call``), no JSON.

``scripted_model(call("Bash", command="ls"), say("done"))`` is a
``dsh.models.ScriptedModel`` whose first reply calls ``Bash`` and whose second
says ``done``: the ``i``-th reply answers a conversation with ``i`` assistant
turns already in it, so a subagent or a compaction call gets its own turn's
reply, not the next one of the list. A reply of several blocks is a list
(``[say("I'll look."), call("Read", file_path="a.py")]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

from dsh.models import ScriptedModel

__all__ = ["Reply", "ScriptBlock", "call", "say", "scripted_model"]

ScriptBlock: TypeAlias = Mapping[str, Any]
"""One block of a reply, in ``ScriptedModel``'s script format (``{"type": "text", ...}``)."""

Reply: TypeAlias = ScriptBlock | Sequence[ScriptBlock]
"""One model reply: a block, or its blocks in order."""


def say(text: str) -> ScriptBlock:
    """A block of text the model writes."""
    return {"type": "text", "text": text}


def call(name: str, arguments: Mapping[str, Any] | None = None, /, **fields: Any) -> ScriptBlock:
    """A call of tool ``name`` with ``arguments`` and/or ``fields`` as its input
    (``call("Bash", command="ls")``, ``call("Write", {"file_path": "a", "content": ""})``)."""
    return {"type": "tool_use", "name": name, "input": {**(arguments or {}), **fields}}


def script(*replies: Reply) -> dict[str, Any]:
    """The ``ScriptedModel`` script that plays ``replies`` in order."""
    return {
        "responses": [
            [dict(r)] if isinstance(r, Mapping) else [dict(b) for b in r] for r in replies
        ]
    }


def scripted_model(*replies: Reply, record_to: Path | None = None) -> ScriptedModel:
    """A ``ScriptedModel`` that plays ``replies`` in order (``record_to``: each request it
    receives is appended there as a JSON line)."""
    return ScriptedModel(script(*replies), record_to=record_to, source="dsh.testing")
