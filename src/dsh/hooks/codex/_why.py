"""Why each Codex hook of an event would run or not: ``explain_codex_hooks`` (``dsh hooks why``).

For one event and its payload, every handler Codex's layers declare for it is
explained as a session would choose it: its trust (Codex's own record: not
trusted yet, changed, a script changed, turned off), then its matcher against
the event's matcher field. Codex runs identical commands each time (no
deduplication). Then what was not admitted: an event dsh does not run for
Codex, and the handlers the loader refused (a timeout, a declaration Codex
would not load).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dsh.hook_protocol import HookSelection
from dsh.hooks.codex.config._selection import select_code, where
from dsh.hooks.codex.config._types import CodexCatalog
from dsh.hooks.codex.events._support import CODEX_EVENT_SUPPORT

__all__ = ["explain_codex_hooks"]


def explain_codex_hooks(
    catalog: CodexCatalog, event: str, payload: Mapping[str, Any]
) -> tuple[HookSelection, ...]:
    """Every Codex handler declared for ``event``, with whether it runs for ``payload``."""
    support = CODEX_EVENT_SUPPORT.get(event)
    unsupported = support is None or support.status == "not-supported"
    out = []
    for hook in (h for h in catalog.hooks if h.event == event):
        code, reason = select_code(hook, payload)
        if unsupported:
            code, reason = "unsupported", f"dsh does not run Codex's {event} hooks"
        out.append(
            HookSelection(
                event=event, where=where(hook), command=hook.command, code=code, reason=reason
            )
        )
    for d in catalog.diagnostics:
        if d.event == event and d.severity == "error":
            code = "timeout" if "timeout" in d.reason else "invalid"
            place = d.describe().rsplit(": ", 1)[0]
            out.append(
                HookSelection(event=event, where=place, command="", code=code, reason=d.reason)
            )
    return tuple(out)
