"""dsh's opt-in payload extensions for Claude Code hooks: a ``dsh`` key, off by default.

With ``DSH_HOOK_EXTENSIONS=1`` in dsh's environment every payload gets a ``dsh``
object (a key Claude Code never sends, so a hook written for it is unaffected):
``usage``, the session's tokens so far (``input_tokens``, ``output_tokens``, and
``cost_usd``: all of them, cache tokens included, priced at the session model's price in
dsh's dated table, ``dsh.models._prices``; ``null`` when the table has no price for it,
nothing being made up); and at Stop,
``stop_blocks``, how many times in a row each Stop hook has blocked this turn
(by ``<file>: Stop[group][index]``), the counter Claude Code's one-bit
``stop_hook_active`` stands for. Answers' extensions (``hookSpecificOutput.dsh``)
are read where they apply (``updatedPrompt``: ``_lifecycle``; with the setting on,
``updatedReply`` and ``pruneToolResults``: ``_model_extensions``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from dsh.agent import Agent
    from dsh.hooks.claude.settings._types import HookDeclaration

__all__ = [
    "EXTENSIONS_SETTING",
    "PRUNING_EVENTS",
    "extensions_on",
    "hook_place",
    "usage_so_far",
]

EXTENSIONS_SETTING: Final = "DSH_HOOK_EXTENSIONS"
PRUNING_EVENTS: Final = ("UserPromptSubmit", "PostToolUse", "PostToolBatch")
"""The events whose answers may prune tool results (``_model_extensions``)."""


def extensions_on(env: Mapping[str, str] | None = None) -> bool:
    value = (os.environ if env is None else env).get(EXTENSIONS_SETTING, "")
    return value.strip().lower() in ("1", "true", "yes", "on")


def usage_so_far(agent: Agent) -> dict[str, Any]:
    """The tokens the session's replies reported so far (its root's log), and their cost."""
    from dsh.messages import Usage
    from dsh.models._prices import table_cost

    root = agent
    while root.parent is not None:
        root = root.parent
    used = Usage()
    for event in root.events:
        usage = getattr(event, "usage", None) if event.type == "assistant/message" else None
        if isinstance(usage, Usage):
            used += usage
    return {
        "input_tokens": used.input_tokens,
        "output_tokens": used.output_tokens,
        "cost_usd": table_cost(root.model.name, used),
    }


def hook_place(decl: HookDeclaration) -> str:
    return f"{decl.source.label}: {decl.event}[{decl.group_index}][{decl.hook_index}]"
