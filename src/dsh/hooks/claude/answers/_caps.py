"""Claude Code's cap on what one hook's output may put before the model or the user.

Claude Code caps ``additionalContext``, ``systemMessage`` and plain stdout at
10,000 characters per hook (reference §2.4; it spills the rest to a file and
shows a preview). dsh keeps the first 10,000 characters of every text of a
decoded answer (stderr of an exit 2 and the reasons included) and says the
text was cut and how long it was. The executor keeps at most 1 MiB of each
stream (``DEFAULT_CAPTURE_CAP``), so a hook writing gigabytes costs bounded
memory; the session log keeps the answer's bounded JSON. What all of one event's
hooks add together is bounded too (``dsh.hook_protocol._context_total``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from dsh.hook_protocol import HookRun
    from dsh.hooks.claude.answers._answer import HookAnswer

__all__ = ["HOOK_OUTPUT_CAP", "cap_answer", "cap_text"]

HOOK_OUTPUT_CAP: Final = 10_000
"""Characters of one hook text that reach the model or the user (Claude Code's cap)."""

_TEXT_FIELDS: Final = (
    "blocking_error",
    "plain",
    "stop_reason",
    "system_message",
    "reason",
    "additional_context",
    "permission_reason",
    "display_content",
)


def cap_text(text: str, *, more: bool = False, limit: int = HOOK_OUTPUT_CAP) -> str:
    """``text`` cut at ``limit`` characters, with a note of its size (``more``: cut before)."""
    if len(text) <= limit and not more:
        return text
    size = f"more than {len(text):,}" if more else f"{len(text):,}"
    return f"{text[:limit]}\n[hook output truncated: {size} characters, the first {limit:,} shown]"


def cap_answer(answer: HookAnswer, run: HookRun) -> HookAnswer:
    """``answer`` with each text capped; stdout's and stderr's capture cuts are said too."""
    changes: dict[str, Any] = {}
    for name in _TEXT_FIELDS:
        value = getattr(answer, name)
        if not isinstance(value, str):
            continue
        more = (name == "plain" and run.stdout_truncated) or (
            name == "blocking_error" and run.stderr_truncated
        )
        capped = cap_text(value, more=more)
        if capped is not value:
            changes[name] = capped
    request = answer.permission_request
    if request is not None and request.message is not None:
        message = cap_text(request.message)
        if message is not request.message:
            changes["permission_request"] = dataclasses.replace(request, message=message)
    return dataclasses.replace(answer, **changes) if changes else answer
