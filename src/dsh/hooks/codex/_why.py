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

from dsh.hook_protocol import HookSelection, SelectionCode
from dsh.hooks.codex.config._types import CodexCatalog, CodexHook
from dsh.hooks.codex.events._specs import MATCHER_FIELDS
from dsh.hooks.codex.events._support import CODEX_EVENT_SUPPORT

__all__ = ["explain_codex_hooks"]

_TRUST: dict[str, tuple[SelectionCode, str]] = {
    "untrusted": ("untrusted", "not trusted in Codex's config.toml (`codex` asks; or trust it)"),
    "changed": ("changed", "changed since Codex trusted it"),
    "script changed": ("changed", "a script it runs changed since it was trusted"),
    "disabled": ("disabled", "turned off in Codex's config (`enabled = false`)"),
}


def _where(hook: CodexHook) -> str:
    plugin = f" (plugin {hook.plugin})" if hook.plugin else ""
    return f"{hook.source}{plugin}: {hook.event}[{hook.group}][{hook.index}]"


def _code(hook: CodexHook, payload: Mapping[str, Any]) -> tuple[SelectionCode, str]:
    if not hook.runs:
        return _TRUST.get(hook.trust, ("untrusted", f"trust: {hook.trust}"))
    field = MATCHER_FIELDS.get(hook.event)
    value = payload.get(field) if field is not None else None
    value = value if isinstance(value, str) else None
    if not hook.selects(value):
        return "matcher", f"its matcher {hook.matcher.declared!r} does not select {field} {value!r}"
    return "runs", ""


def explain_codex_hooks(
    catalog: CodexCatalog, event: str, payload: Mapping[str, Any]
) -> tuple[HookSelection, ...]:
    """Every Codex handler declared for ``event``, with whether it runs for ``payload``."""
    support = CODEX_EVENT_SUPPORT.get(event)
    unsupported = support is None or support.status == "not-supported"
    out = []
    for hook in (h for h in catalog.hooks if h.event == event):
        code, reason = _code(hook, payload)
        if unsupported:
            code, reason = "unsupported", f"dsh does not run Codex's {event} hooks"
        out.append(
            HookSelection(
                event=event, where=_where(hook), command=hook.command, code=code, reason=reason
            )
        )
    for d in catalog.diagnostics:
        if d.event == event and d.severity == "error":
            code = "timeout" if "timeout" in d.reason else "invalid"
            where = d.describe().rsplit(": ", 1)[0]
            out.append(
                HookSelection(event=event, where=where, command="", code=code, reason=d.reason)
            )
    return tuple(out)
