"""``notify_later``: a Notification once something has waited on the person a while.

Claude Code 2.1.332 tells its Notification hooks that a permission question waits
(``permission_prompt``) only once it has been open 6,000 ms (its ``setTimeout``, cleared
when the answer comes first: a question answered in time notifies nothing). A front end
that puts a question calls ``notify_later`` as it shows it and the returned function as the
answer comes; past the wait, ``agent/notification`` fires (and runs to its end whatever
the answer does meanwhile). That is 2.1.332's SDK path (an ACP client's question here).

At its own terminal 2.1.332 measures the wait from the person's last key instead: a dialog
checks every 6,000 ms from when it is shown and notifies at the first check where nothing
was typed for 6,000 ms (``Date.now() - Math.max(lastInteractionTime, shownAt) >= 6000``),
once. ``notify_when_idle`` is that timer, for a front end that knows the last key.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from dsh.agent._channels import NOTIFICATION

if TYPE_CHECKING:
    from dsh.agent._agent import Agent

__all__ = [
    "PERMISSION_NOTIFY_SECONDS",
    "dialog_notify_delay",
    "notify_later",
    "notify_when_idle",
    "permission_notify_delay",
]

PERMISSION_NOTIFY_SECONDS: Final = 6.0
"""How long a permission question waits before ``permission_prompt`` (2.1.332's 6,000 ms)."""

Later = Callable[[float, Callable[[], None]], Callable[[], None]]
"""Runs a callback after a delay; returns what cancels it (the loop's ``call_later``)."""

_held: set[asyncio.Future[None]] = set()


def permission_notify_delay() -> float | None:
    """The wait before ``permission_prompt``: 6 s, ``DSH_PERMISSION_NOTIFY_SECONDS`` when
    set; ``None`` when ``CLAUDE_CODE_DISABLE_PERMISSION_PROMPT_NOTIFY_HOOKS`` turns it off
    (2.1.332's switch)."""
    off = os.environ.get("CLAUDE_CODE_DISABLE_PERMISSION_PROMPT_NOTIFY_HOOKS", "")
    if off.strip().lower() not in ("", "0", "false", "no"):
        return None
    try:
        given = float(os.environ.get("DSH_PERMISSION_NOTIFY_SECONDS") or PERMISSION_NOTIFY_SECONDS)
    except ValueError:
        return PERMISSION_NOTIFY_SECONDS
    return max(given, 0.0)


def dialog_notify_delay() -> float:
    """The wait before another dialog's Notification (an elicitation's): 2.1.332's same
    6 s, ``DSH_PERMISSION_NOTIFY_SECONDS`` when set (no switch turns it off)."""
    try:
        given = float(os.environ.get("DSH_PERMISSION_NOTIFY_SECONDS") or PERMISSION_NOTIFY_SECONDS)
    except ValueError:
        return PERMISSION_NOTIFY_SECONDS
    return max(given, 0.0)


def _call_later(delay: float, callback: Callable[[], None]) -> Callable[[], None]:
    return asyncio.get_running_loop().call_later(delay, callback).cancel


def _emitter(agent: Agent, message: str, kind: str) -> Callable[[], None]:
    def fire() -> None:
        work = asyncio.ensure_future(agent.ctx.emit(NOTIFICATION, agent, message, kind))
        _held.add(work)  # held until done: past the wait it runs to its end
        work.add_done_callback(_held.discard)

    return fire


def notify_later(
    agent: Agent, message: str, kind: str, delay: float | None, *, later: Later = _call_later
) -> Callable[[], None]:
    """Fire ``agent/notification`` (``message``, ``kind``) on ``agent`` in ``delay`` seconds
    unless the returned function is called first (``None``: never)."""
    if delay is None:
        return lambda: None
    return later(delay, _emitter(agent, message, kind))


_EARLY: Final = 0.01
"""How early a timer may run and still count as on time (the loop's clock resolution)."""


def notify_when_idle(
    agent: Agent,
    message: str,
    kind: str,
    delay: float | None,
    last_key: Callable[[], float],
    *,
    later: Later = _call_later,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[], None]:
    """Fire ``agent/notification`` once the person has typed nothing for ``delay`` seconds
    since the question was shown (``last_key``: when they last pressed a key, ``clock``'s
    time), checked every ``delay`` seconds from now, as 2.1.332's terminal checks; the
    returned function, called as the answer comes, stops it (``None``: never fires)."""
    if delay is None:
        return lambda: None
    shown, fire = clock(), _emitter(agent, message, kind)
    stop: list[Callable[[], None]] = []

    def check() -> None:
        if clock() - max(shown, last_key()) >= delay - _EARLY:
            fire()
        else:
            stop[0] = later(delay, check)

    stop.append(later(delay, check))
    return lambda: stop[0]()
