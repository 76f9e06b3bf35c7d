"""Why a Codex hook does not run for a firing: its trust or its matcher (``select_code``).

``dsh hooks why`` (``dsh.hooks.codex._why``) explains every handler with it; the runtime
logs the handlers a firing ran without (``firing_skips``) as ``hook/skipped``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dsh.hook_protocol import HookSelection, SelectionCode
from dsh.hooks.codex.config._types import CodexCatalog, CodexHook
from dsh.hooks.codex.events._specs import MATCHER_FIELDS

__all__ = ["firing_skips", "select_code", "where"]

_TRUST: dict[str, tuple[SelectionCode, str]] = {
    "untrusted": ("untrusted", "not trusted in Codex's config.toml (`codex` asks; or trust it)"),
    "changed": ("changed", "changed since Codex trusted it"),
    "script changed": ("changed", "a script it runs changed since it was trusted"),
    "disabled": ("disabled", "turned off in Codex's config (`enabled = false`)"),
}


def where(hook: CodexHook) -> str:
    plugin = f" (plugin {hook.plugin})" if hook.plugin else ""
    return f"{hook.source}{plugin}: {hook.event}[{hook.group}][{hook.index}]"


def select_code(hook: CodexHook, payload: Mapping[str, Any]) -> tuple[SelectionCode, str]:
    if not hook.runs:
        return _TRUST.get(hook.trust, ("untrusted", f"trust: {hook.trust}"))
    field = MATCHER_FIELDS.get(hook.event)
    value = payload.get(field) if field is not None else None
    value = value if isinstance(value, str) else None
    if not hook.selects(value):
        return "matcher", f"its matcher {hook.matcher.declared!r} does not select {field} {value!r}"
    return "runs", ""


def firing_skips(
    catalog: CodexCatalog,
    event: str,
    hooks: Sequence[CodexHook],
    payload: Mapping[str, Any],
    *,
    trust: bool,
) -> list[HookSelection]:
    """The handlers of ``event`` one firing runs without (not in ``hooks``), for the log's
    ``hook/skipped``: the matcher's each time, the trust's only when ``trust`` (once per
    event and session). Nothing to do when every declared handler runs."""
    chosen = {id(h) for h in hooks}
    out = []
    for hook in catalog.hooks:
        if hook.event != event or id(hook) in chosen or (not hook.runs and not trust):
            continue
        code, reason = select_code(hook, payload)
        if code != "runs":
            out.append(
                HookSelection(
                    event=event, where=where(hook), command=hook.command, code=code, reason=reason
                )
            )
    return out
