"""Codex's ``notify`` program: run after each turn with the turn's JSON, as Codex 0.171 runs it.

``notify = ["prog", "arg", ...]`` in ``config.toml``: when a root agent's turn ends (no
continuation: after the Stop hooks decided), ``prog arg ... <json>`` is started in the
session's directory, the JSON compact and its keys in Codex's order (recorded with the
real binary, ``tests/fixtures/codex_notify.json``): ``type`` (``agent-turn-complete``),
``thread-id`` (the session), ``turn-id``, ``cwd``, ``client`` (``codex_exec``: dsh runs
as ``codex exec`` does), ``input-messages`` (the turn's prompts) and
``last-assistant-message``. Codex does not wait for it, nor does the turn: it runs in
dsh's containment with the hook environment (no model keys) and at most 60 seconds, and
the session's end waits for what is still running, so a quick program is not cut off when
``dsh run`` exits. Its output and exit status are not read.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Final

from dsh.agent import Agent, ContinuationDecision, ContinuationState
from dsh.context import Next
from dsh.hook_protocol import HookCommand, HookOrigin
from dsh.hook_protocol._executor import run_hook
from dsh.hook_protocol._sessions import root_session
from dsh.messages import content_text
from dsh.session import UserMessageEvent

if TYPE_CHECKING:
    from dsh.agent import SessionEndReason

__all__ = ["NOTIFY_TIMEOUT", "Notify", "notify_json"]

NOTIFY_TIMEOUT: Final = 60.0


def notify_json(agent: Agent, final_text: str) -> str:
    """The turn's JSON, as Codex appends it to the program's arguments."""
    turn = agent.turn_id
    prompts = [
        content_text(e.content)
        for e in agent.session.events
        if isinstance(e, UserMessageEvent) and e.turn_id == turn and e.source == "user"
    ]
    data = {
        "type": "agent-turn-complete",
        "thread-id": root_session(agent).session_id,
        "turn-id": turn,
        "cwd": str(agent.workspace.cwd),
        "client": "codex_exec",
        "input-messages": prompts,
        "last-assistant-message": final_text,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class Notify:
    """The ``notify`` program of a catalog (``argv``), and its runs still going."""

    def __init__(self, argv: tuple[str, ...], source: Path | None) -> None:
        self.argv = argv
        self.source = str(source) if source is not None else "config.toml"
        self._running: set[asyncio.Task[object]] = set()

    async def turn_end(
        self, agent: Agent, state: ContinuationState, nxt: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        decision = await nxt()
        if agent.parent is None and not decision.continues:
            self._start(agent, state.final_text)
        return decision

    def _start(self, agent: Agent, final_text: str) -> None:
        cmd = HookCommand(
            argv=(*self.argv, notify_json(agent, final_text)),
            timeout=NOTIFY_TIMEOUT,
            origin=HookOrigin(source=self.source, event="notify"),
            cwd=agent.workspace.cwd,
        )
        task = asyncio.get_running_loop().create_task(run_hook(cmd, b""), name="codex:notify")
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def session_end(self, agent: Agent, reason: SessionEndReason) -> None:
        """Wait for the programs still running (each within its timeout)."""
        if agent.parent is None and self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
