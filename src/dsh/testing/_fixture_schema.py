"""The one schema of a hook fixture file (``dsh hooks test --fixtures``), read at the edge.

A fixture is a JSON object: the ``event`` and ``bridge``; the payload, whole
(``payload``) or generated in the bridge's shape (``tool``, ``input``,
``prompt``); the hook configuration to run (``hooks``: a ``.claude/settings.json``
or ``.codex/hooks.json`` object, with ``files`` beside it; absent: the
project's own hooks); and what must come out (``expect``). A scenario
fixture has a ``scenario`` (a prompt and the scripted model's replies) in
place of the event and its payload, and its ``expect`` is a
``ScenarioExpectSchema`` (the firings across the scenario, what the model read,
the notices, how the turn ended).
"""

# No `from __future__ import annotations`: msgspec reads a Struct's annotations as types.

from typing import Any, Literal

import msgspec

__all__ = ["ExpectSchema", "FixtureSchema", "ScenarioExpectSchema", "ScenarioSchema"]


class ExpectSchema(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What must come out: ``HookEffect``'s fields, as JSON."""

    decision: Literal["allow", "ask", "block", "deny", "halt", "none"]
    model_text: list[str] = []
    exit_codes: list[int | None] = []
    notices: list[str] = []


class FiringSchema(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One firing of a scenario: the event, the tool a tool event was about, what came out."""

    event: str
    tool: str | None = None
    decision: Literal["allow", "ask", "block", "deny", "halt", "none"] = "none"
    exit_codes: list[int | None] = []


class ScenarioExpectSchema(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What must come out of a scenario (``_scenario.observe_scenario``'s fields)."""

    firings: list[FiringSchema] = []
    model_text: list[str] = []
    notices: list[str] = []
    end: str = "completed"


class ScenarioSchema(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A prompt and the scripted model's replies (each a block or a list of blocks, in the
    ``--model scripted:FILE`` format); ``max_steps`` bounds the turn."""

    prompt: str
    replies: list[dict[str, Any] | list[dict[str, Any]]]
    max_steps: int = 50


class FixtureSchema(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One fixture file: an event and its payload, or a ``scenario``."""

    event: str | None = None
    bridge: Literal["claude", "codex"] = "claude"
    description: str = ""
    payload: dict[str, Any] | None = None
    tool: str | None = None
    input: dict[str, Any] | None = None
    prompt: str | None = None
    hooks: dict[str, Any] | None = None
    files: dict[str, str] = {}
    scenario: ScenarioSchema | None = None
    expect: dict[str, Any] | None = None
    """``ExpectSchema``, or for a scenario ``ScenarioExpectSchema``: decoded once the kind is
    known."""
