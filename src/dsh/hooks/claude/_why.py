"""Why each Claude Code hook of an event would run or not: ``explain_hooks`` (``dsh hooks why``).

For one event and its payload, every handler the settings declare for it is
explained as a run would choose it, in this order: trust (a project hook not
trusted yet, or changed since it was trusted), the matcher against the event's
matcher field and the ``if`` rule against the tool call (``runtime._why``),
deduplication (Claude Code runs an identical command once); then what the
catalog did not admit: a file turned off (``disableAllHooks``) or left out by a
managed policy, an event dsh does not run, a timeout or another declaration
that is not valid.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dsh.hook_protocol import HookSelection, SelectionCode
from dsh.hooks.claude.runtime._why import DIAGNOSED, select_reason, where
from dsh.hooks.claude.settings._types import Catalog, Diagnostic, HookDeclaration
from dsh.hooks.claude.trust._review import TrustReview

__all__ = ["explain_hooks", "left_out_selections"]


def _trust(decl: HookDeclaration, review: TrustReview | None) -> tuple[SelectionCode, str] | None:
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


def explain_hooks(
    catalog: Catalog,
    event: str,
    payload: Mapping[str, Any],
    *,
    review: TrustReview | None = None,
    cwd: Path | None = None,
) -> tuple[HookSelection, ...]:
    """Every handler declared for ``event`` (admitted or not), with whether it would run for
    ``payload`` and why not. ``review``: the project's trust (``None``: trust not asked)."""
    where_run = cwd if cwd is not None else catalog.project_dir
    out: list[HookSelection] = []
    running: dict[Hashable, str] = {}
    for decl in catalog.for_event(event):
        code, reason = _trust(decl, review) or select_reason(decl, event, payload, where_run)
        if code == "runs" and decl.dedup_key in running:
            code, reason = (
                "deduplicated",
                f"an identical command runs already ({running[decl.dedup_key]})",
            )
        elif code == "runs":
            running[decl.dedup_key] = where(decl)
        out.append(
            HookSelection(
                event=event,
                where=where(decl),
                command=decl.declared_command,
                code=code,
                reason=reason,
            )
        )
    out.extend(_diagnosed(catalog.diagnostics, event))
    return tuple(out)


def _diagnosed(diagnostics: Sequence[Diagnostic], event: str) -> list[HookSelection]:
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
        trust = _trust(decl, review)
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
    for selection in _diagnosed(catalog.diagnostics, "*"):
        out.setdefault(selection.event, []).append(selection)
    for d in catalog.diagnostics:
        if d.event is not None and d.event != "*" and d.code in DIAGNOSED:
            out.setdefault(d.event, []).extend(_diagnosed((d,), d.event))
    return {event: tuple(found) for event, found in out.items()}
