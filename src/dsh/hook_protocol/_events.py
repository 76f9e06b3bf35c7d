"""The durable hook log: ``hook/invocation`` and ``hook/result`` session events.

Declared here, not in ``dsh.session``: a native plugin decides through typed
decisions and never writes them. A bridge logs one invocation before a hook
runs and one result after, linked by ``invocation_id``; a crash in between
leaves the invocation without a result, which says the hook was running.
Both carry the hook's identity so each reads alone.
"""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar, Final, Literal, final

from dsh._frozen import frozen
from dsh.base import freeze_json
from dsh.base._safe_json import loggable_json
from dsh.hook_protocol._declarations import HookCommand
from dsh.hook_protocol._outcome import HookOutcome, NoDecision
from dsh.session import SessionEvent, register_event_type

__all__ = [
    "HOOK_STDERR_LOG_LIMIT",
    "HookInvocationEvent",
    "HookResultEvent",
    "invocation_event",
    "result_event",
]

HOOK_STDERR_LOG_LIMIT: Final = 4096
"""Bytes (UTF-8) of a hook's stderr kept in its ``hook/result`` event."""


@final
@register_event_type
@frozen(kw_only=True)
class HookInvocationEvent(SessionEvent):
    """A hook is about to run.

    ``hook_event`` is the tool's event name (``PreToolUse``); ``source``,
    ``plugin``, ``group`` and ``index`` say where the hook was declared;
    ``command`` is the argv spawned; ``payload_sha256`` and ``payload_bytes``
    identify the stdin payload without storing it.
    """

    type: ClassVar[str] = "hook/invocation"

    hook_event: str
    source: str
    plugin: str | None = None
    group: int
    index: int
    command: tuple[str, ...]
    timeout: float
    on_failure: Literal["ignore", "block"] = "ignore"
    payload_sha256: str
    payload_bytes: int


@final
@register_event_type
@frozen(kw_only=True)
class HookResultEvent(SessionEvent):
    """What a hook did and what it contributed.

    ``exit_code`` or ``signal`` (or neither, with ``no_decision`` ``spawn_error``),
    ``duration`` in seconds, ``stderr`` cut to ``HOOK_STDERR_LOG_LIMIT`` bytes;
    ``decision`` is the bridge's JSON form of the decision taken, or
    ``no_decision`` and ``reason`` say why none was (see ``NoDecision``).
    ``failed_closed``: the hook failed under ``on_failure="block"`` and the
    bridge blocked.
    """

    type: ClassVar[str] = "hook/result"

    invocation_id: str | None = None
    hook_event: str
    source: str
    plugin: str | None = None
    group: int
    index: int
    exit_code: int | None = None
    signal: int | None = None
    duration: float
    timed_out: bool = False
    cancelled: bool = False
    stderr: str = ""
    stderr_truncated: bool = False
    stdout_truncated: bool = False
    decision: Any = None
    no_decision: NoDecision | None = None
    reason: str | None = None
    failed_closed: bool = False


def invocation_event(
    cmd: HookCommand,
    payload: bytes,
    *,
    turn_id: str | None = None,
    payload_sha256: str | None = None,
) -> HookInvocationEvent:
    """The ``hook/invocation`` event for running ``cmd`` with ``payload`` on stdin
    (``payload_sha256``: its digest, when the caller already has it)."""
    o = cmd.origin
    return HookInvocationEvent(
        turn_id=turn_id,
        hook_event=o.event,
        source=o.source,
        plugin=o.plugin,
        group=o.group,
        index=o.index,
        command=cmd.argv,
        timeout=cmd.timeout,
        on_failure=cmd.on_failure,
        payload_sha256=payload_sha256 or hashlib.sha256(payload).hexdigest(),
        payload_bytes=len(payload),
    )


def _bounded(text: str, limit: int) -> tuple[str, bool]:
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text, False
    # "ignore" drops only a character cut in half at the end.
    return data[:limit].decode("utf-8", "ignore"), True


def result_event(
    outcome: HookOutcome[Any],
    *,
    invocation: HookInvocationEvent | None = None,
    decision_json: object = None,
    turn_id: str | None = None,
) -> HookResultEvent:
    """The ``hook/result`` event for ``outcome``.

    ``decision_json`` is the bridge's JSON form of ``outcome.decision`` (for
    example the hook's parsed output); it is recorded only when the outcome has
    a decision, made loggable first (``loggable_json``: what a hostile hook
    put there that the session reader could not load back is replaced).
    ``invocation`` links the result to its logged ``hook/invocation``; its
    ``turn_id`` is reused unless ``turn_id`` is given.
    """
    run = outcome.run
    o = run.command.origin
    stderr, cut = _bounded(run.stderr, HOOK_STDERR_LOG_LIMIT)
    decision = (
        freeze_json(loggable_json(decision_json), "hook/result.decision")
        if outcome.decision is not None
        else None
    )
    if turn_id is None and invocation is not None:
        turn_id = invocation.turn_id
    return HookResultEvent(
        turn_id=turn_id,
        invocation_id=None if invocation is None else invocation.id,
        hook_event=o.event,
        source=o.source,
        plugin=o.plugin,
        group=o.group,
        index=o.index,
        exit_code=run.exit_code,
        signal=run.signal,
        duration=run.duration,
        timed_out=run.timed_out,
        cancelled=run.cancelled,
        stderr=stderr,
        stderr_truncated=run.stderr_truncated or cut,
        stdout_truncated=run.stdout_truncated,
        decision=decision,
        no_decision=outcome.no_decision,
        reason=outcome.reason,
        failed_closed=outcome.failed_closed,
    )
