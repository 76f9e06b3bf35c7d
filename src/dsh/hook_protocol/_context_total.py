"""The total of hook context one event may add, whatever the number of hooks.

Each bridge caps one hook's text (Claude Code: 10,000 characters; Codex: its
``additionalContextLimit``), but not their sum: 100 UserPromptSubmit hooks each
giving just under the cap put a megabyte before the model. ``within_total`` keeps
the hooks' texts in declaration order while their sum stays within
``HOOK_CONTEXT_TOTAL`` and replaces the rest with one note naming the hooks left
out and how much they gave, so the model and the user can tell context was cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

__all__ = ["HOOK_CONTEXT_TOTAL", "within_total"]

HOOK_CONTEXT_TOTAL: Final = 50_000
"""Characters of hook context one event may add: five hooks at Claude Code's per-hook cap,
and the most Claude Code shows of one tool result (``DEFAULT_MAX_RESULT_SIZE_CHARS``)."""

_NAMED: Final = 5  # hooks named in the note; the rest counted


def within_total(
    event: str, texts: Sequence[tuple[str, str]], total: int = HOOK_CONTEXT_TOTAL
) -> list[str]:
    """The texts (``(hook, text)`` pairs, in order) that fit in ``total``, then a note on
    the ones left out; the texts alone when all fit."""
    if sum(len(t) for _, t in texts) <= total:
        return [t for _, t in texts]
    kept: list[str] = []
    left_out: list[tuple[str, str]] = []
    used = 0
    for hook, text in texts:
        if not left_out and used + len(text) <= total:
            kept.append(text)
            used += len(text)
        else:
            left_out.append((hook, text))
    names = ", ".join(hook for hook, _ in left_out[:_NAMED])
    if len(left_out) > _NAMED:
        names += f" and {len(left_out) - _NAMED} more"
    size = sum(len(t) for _, t in left_out)
    kept.append(
        f"[hook context truncated: {event} hooks gave more than {total:,} characters;"
        f" left out: {len(left_out)} hooks' context ({size:,} characters) from {names}]"
    )
    return kept
