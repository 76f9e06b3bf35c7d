"""Claude Code's cap on what one hook's output may put before the model or the user.

Claude Code caps ``additionalContext``, ``systemMessage`` and plain stdout at
10,000 characters per hook (reference §2.4; it saves a longer ``additionalContext`` or
stdout to a file and shows a preview, which ``cap_answer`` does with the saver the bridge
gives it: ``runtime._persisted_output``). dsh keeps the first 10,000 characters of every other text
of a decoded answer (stderr of an exit 2 and the reasons included) and says the text was
cut and how long it was. The executor keeps at most 1 MiB of each
stream (``DEFAULT_CAPTURE_CAP``), so a hook writing gigabytes costs bounded
memory; the session log keeps the answer's bounded JSON. What all of one event's
hooks add together is bounded too (``dsh.hook_protocol._context_total``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Final, TypeAlias

if TYPE_CHECKING:
    from collections.abc import Callable

    from dsh.hook_protocol import HookRun
    from dsh.hooks.claude.answers._answer import HookAnswer

__all__ = ["HOOK_OUTPUT_CAP", "Saver", "cap_answer", "cap_text"]

HOOK_OUTPUT_CAP: Final = 10_000
"""Characters of one hook text that reach the model or the user (Claude Code's cap)."""

_TEXT_FIELDS: Final = (
    "blocking_error",
    "stop_reason",
    "system_message",
    "reason",
    "permission_reason",
    "display_content",
)
# Besides these, ``additional_context`` and ``plain`` (``_SAVED``): saved to a file past
# the cap where the bridge gives a saver (``runtime._persisted_output``), as 2.1.332 does.


def cap_text(text: str, *, more: bool = False, limit: int = HOOK_OUTPUT_CAP) -> str:
    """``text`` cut at ``limit`` characters, with a note of its size (``more``: cut before)."""
    if len(text) <= limit and not more:
        return text
    size = f"more than {len(text):,}" if more else f"{len(text):,}"
    return f"{text[:limit]}\n[hook output truncated: {size} characters, the first {limit:,} shown]"


Saver: TypeAlias = "Callable[[str, str], str | None]"
"""Saves a hook's whole text (``additionalContext``, ``stdout``: the label, then the text)
and gives what the model is shown instead, or ``None`` where it cannot be saved."""
_SAVED: Final = (("additional_context", "additionalContext"), ("plain", "stdout"))


def cap_answer(answer: HookAnswer, run: HookRun, save: Saver | None = None) -> HookAnswer:
    """``answer`` with each text capped; stdout's and stderr's capture cuts are said too.
    ``save``: a context or stdout over the cap saved whole instead, as 2.1.332 saves it
    (not a stdout the capture cut: that is not the whole output)."""
    changes: dict[str, Any] = {}
    for name in _TEXT_FIELDS:
        value = getattr(answer, name)
        if not isinstance(value, str):
            continue
        more = name == "blocking_error" and run.stderr_truncated
        capped = cap_text(value, more=more)
        if capped is not value:
            changes[name] = capped
    for name, label in _SAVED:
        value = getattr(answer, name)
        if not isinstance(value, str):
            continue
        cut = name == "plain" and run.stdout_truncated
        shown = None
        if save is not None and not cut and len(value) > HOOK_OUTPUT_CAP:
            shown = save(label, value)
        capped = shown if shown is not None else cap_text(value, more=cut)
        if capped is not value:
            changes[name] = capped
    request = answer.permission_request
    if request is not None and request.message is not None:
        message = cap_text(request.message)
        if message is not request.message:
            changes["permission_request"] = dataclasses.replace(request, message=message)
    return dataclasses.replace(answer, **changes) if changes else answer
