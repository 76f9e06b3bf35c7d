"""The one schema of a hook fixture file (``dsh hooks test --fixtures``), read at the edge.

A fixture is a JSON object: the ``event`` and ``bridge``; the payload, whole
(``payload``) or generated in the bridge's shape (``tool``, ``input``,
``prompt``); the hook configuration to run (``hooks``: a ``.claude/settings.json``
or ``.codex/hooks.json`` object, with ``files`` beside it; absent: the
project's own hooks); and what must come out (``expect``).
"""

# No `from __future__ import annotations`: msgspec reads a Struct's annotations as types.

from typing import Any, Literal

import msgspec

__all__ = ["ExpectSchema", "FixtureSchema"]


class ExpectSchema(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What must come out: ``HookEffect``'s fields, as JSON."""

    decision: Literal["allow", "ask", "block", "deny", "halt", "none"]
    model_text: list[str] = []
    exit_codes: list[int | None] = []
    notices: list[str] = []


class FixtureSchema(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One fixture file."""

    event: str
    bridge: Literal["claude", "codex"] = "claude"
    description: str = ""
    payload: dict[str, Any] | None = None
    tool: str | None = None
    input: dict[str, Any] | None = None
    prompt: str | None = None
    hooks: dict[str, Any] | None = None
    files: dict[str, str] = {}
    expect: ExpectSchema | None = None
