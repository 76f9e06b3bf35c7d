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

from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

from dsh.hook_protocol import HookSelection
from dsh.hooks.claude.runtime._why import select_reason
from dsh.hooks.claude.settings._selection import where
from dsh.hooks.claude.settings._types import Catalog
from dsh.hooks.claude.trust._left_out import diagnosed, trust_reason
from dsh.hooks.claude.trust._review import TrustReview

__all__ = ["explain_hooks"]


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
        code, reason = trust_reason(decl, review) or select_reason(decl, event, payload, where_run)
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
    out.extend(diagnosed(catalog.diagnostics, event))
    return tuple(out)
