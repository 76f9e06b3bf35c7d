"""``LeftOutLog``: the ``hook/skipped`` of a run that loads none of a project's Claude Code hooks.

When every handler is left out (not trusted, changed, a file turned off, left out by
policy, not valid), the bridge is not mounted: nothing would run. This plugin alone
records, at the session's start, why each did not, one ``hook/skipped`` per event
(``"*"``: a whole file, any event's), as the bridge records an event whose every handler
was left out (``ClaudeHooksPlugin._never_fire``); bounded as the bridge's are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import islice

from dsh.agent import SESSION_START, Agent, SessionStartSource
from dsh.context import Context
from dsh.hook_protocol import HookSelection, logged_before, skipped_event
from dsh.hooks.claude.runtime._why import SKIP_RECORDS

__all__ = ["LeftOutLog"]


class LeftOutLog:
    """Mounted instead of the bridge when it is not: ``left_out`` (``left_out_selections``)
    is logged once per session, at its first start in this run, unless its log has it."""

    def __init__(self, left_out: Mapping[str, Sequence[HookSelection]]) -> None:
        self.left_out = left_out
        self._logged: set[str] = set()  # the sessions already given theirs (not at `compact`)

    def apply(self, ctx: Context) -> None:
        ctx.on(SESSION_START, self._session_start)

    async def _session_start(self, agent: Agent, source: SessionStartSource) -> None:
        if agent.parent is not None or agent.session_id in self._logged:
            return
        self._logged.add(agent.session_id)
        records = (skipped_event(event, found) for event, found in self.left_out.items())
        # Not what a resumed session's earlier run logged already (`logged_before`).
        new = (r for r in records if r is not None and not logged_before(r, agent.events))
        bounded = list(islice(new, SKIP_RECORDS))
        if bounded:
            agent.append_events(bounded, durable=False)
