"""The Claude Code handlers a run will never have, and why: ``left_out_selections``.

Not trusted yet or changed since trusted (``trust_reason``), a file turned off
(``disableAllHooks``) or left out by a managed policy, or a declaration not valid
(``diagnosed``). ``dsh hooks why`` explains with them; a run's ``hook/skipped``
events (the runtime) log them the first time each event fires.
"""

from __future__ import annotations

from collections.abc import Sequence

from dsh.hook_protocol import HookSelection, SelectionCode
from dsh.hooks.claude.settings._selection import DIAGNOSED, where
from dsh.hooks.claude.settings._types import Catalog, Diagnostic, HookDeclaration
from dsh.hooks.claude.trust._review import TrustReview

__all__ = ["diagnosed", "left_out_selections", "trust_reason"]


def trust_reason(
    decl: HookDeclaration, review: TrustReview | None
) -> tuple[SelectionCode, str] | None:
    if review is None:
        return None
    for entry in review.hooks:
        if entry.hook == decl and not entry.trusted:
            code: SelectionCode = (
                "changed" if entry.state == "changed since trusted" else "untrusted"
            )
            return code, f"project hook {entry.state} (`dsh hooks trust` trusts it as it is)"
    for plugin in review.plugins:
        if decl in plugin.hooks and not plugin.trusted:
            why = f"plugin {plugin.plugin}, enabled by the project's settings, is {plugin.state}"
            code = "changed" if plugin.state == "changed since trusted" else "untrusted"
            return code, why
    return None


def diagnosed(diagnostics: Sequence[Diagnostic], event: str) -> list[HookSelection]:
    """What the catalog left out for ``event``: its handlers' diagnostics, and whole files."""
    out = []
    for d in diagnostics:
        if d.code in ("source-disabled", "suite-skipped") and d.event is None:
            code: SelectionCode = "policy" if "managed settings" in d.reason else "disabled"
            code = "invalid" if d.code == "suite-skipped" else code
            out.append(
                HookSelection(
                    event=event,
                    where=d.where,
                    command="(every hook in it)",
                    code=code,
                    reason=d.reason,
                )
            )
        elif d.event == event and d.code in DIAGNOSED:
            out.append(
                HookSelection(
                    event=event, where=d.where, command="", code=DIAGNOSED[d.code], reason=d.reason
                )
            )
    return out


def left_out_selections(
    catalog: Catalog, review: TrustReview | None
) -> dict[str, tuple[HookSelection, ...]]:
    """What a run's catalog will never have, by event, for the log's ``hook/skipped``: the
    hooks of ``catalog`` (before trust) that ``review`` left out, each handler's diagnostic,
    and under ``"*"`` the files turned off or left out by policy (any event's)."""
    out: dict[str, list[HookSelection]] = {}
    for decl in catalog.all_hooks():
        trust = trust_reason(decl, review)
        if trust is not None:
            code, reason = trust
            out.setdefault(decl.event, []).append(
                HookSelection(
                    event=decl.event,
                    where=where(decl),
                    command=decl.declared_command,
                    code=code,
                    reason=reason,
                )
            )
    for selection in diagnosed(catalog.diagnostics, "*"):
        out.setdefault(selection.event, []).append(selection)
    for d in catalog.diagnostics:
        if d.event is not None and d.event != "*" and d.code in DIAGNOSED:
            out.setdefault(d.event, []).extend(diagnosed((d,), d.event))
    return {event: tuple(found) for event, found in out.items()}
