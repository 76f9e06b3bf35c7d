"""``AgentCore``: what every part of an agent's loop shares.

The agent's log (every event stamped with the running turn's id, the log kept
loadable when a turn ends or a reloaded one never did), its pending inputs
(queued prompts, steering, context waiting for a safe point), the running
turn and its cancellation, and how a seam or the model call runs against the
turn's signal.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from dsh.agent._decisions import Notice, NoticeLevel, PromptSource, SteeringSource
from dsh.agent._history_size import HistorySize
from dsh.agent._turn import (
    ABORTED,
    ERROR,
    CancelWhen,
    EndTurn,
    TurnState,
    unanswered_results,
)
from dsh.base import AbortSignal, race
from dsh.base._signal import SignalAbortedError
from dsh.context import Context
from dsh.context._channels import Channel
from dsh.messages import AssistantMessage, Content, ModelMessage
from dsh.models import ModelRequest
from dsh.session import (
    AbortCause,
    ContextMessageEvent,
    NoticeEvent,
    SessionEvent,
    SessionLog,
    SteeringMessageEvent,
    TurnEnd,
    TurnEndReason,
    TurnStart,
    projection_of,
)

if TYPE_CHECKING:
    from dsh.agent._agent import Agent

__all__ = ["AgentCore", "text_arg"]

logger = logging.getLogger("dsh.agent")

T = TypeVar("T")


class AgentCore:
    """An agent's loop state and the operations its parts share; ``agent`` owns it.

    ``agent`` is what the seams receive; the rest of its configuration is read
    through its public properties.
    """

    __slots__ = (
        "agent",
        "cancel",
        "compacting",
        "ctx",
        "history_size",
        "on_event",
        "on_text",
        "pending_context",
        "projector",
        "queue",
        "session",
        "steering",
        "turn",
    )

    def __init__(
        self,
        agent: Agent,
        ctx: Context,
        session: SessionLog,
        *,
        on_event: Callable[[SessionEvent], None] | None,
        on_text: Callable[[str], None] | None,
    ) -> None:
        self.agent = agent
        self.ctx = ctx
        self.session = session
        # The model view, kept current as events are logged (every append goes through here).
        self.projector = projection_of(session)
        self.history_size = HistorySize()
        self.on_event = on_event
        self.on_text = on_text
        self.queue: deque[tuple[Content, PromptSource]] = deque()
        self.steering: deque[tuple[str, SteeringSource]] = deque()
        self.pending_context: list[tuple[str, str]] = []
        self.compacting = False
        self.turn: TurnState | None = None
        self.cancel: tuple[AbortCause, CancelWhen] | None = None

    # -- the log ------------------------------------------------------------------

    def append(self, event: SessionEvent, *, durable: bool = True) -> SessionEvent:
        """Log ``event``; ``durable=False`` leaves its fsync to the next durable append
        (for what follows an effect, never what precedes one: see docs/session-log.md)."""
        turn = self.turn
        if turn is not None and event.turn_id is None:
            event = _with_turn(event, turn.id)
        stamped = self.session.append(event, durable=durable)
        self.projector.add(stamped)
        self._tell(stamped)
        return stamped

    def append_many(
        self, events: Sequence[SessionEvent], *, durable: bool = True
    ) -> tuple[SessionEvent, ...]:
        turn = self.turn
        if turn is not None:
            events = [e if e.turn_id is not None else _with_turn(e, turn.id) for e in events]
        stamped = self.session.append_many(events, durable=durable)
        self.projector.extend(stamped)
        for event in stamped:
            self._tell(event)
        return stamped

    def _tell(self, event: SessionEvent) -> None:
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:
                logger.exception("%r: on_event callback failed", self.agent)

    def notice(self, text: str, *, source: str, level: NoticeLevel) -> Notice:
        notice = Notice(text_arg(text, "Agent.notice"), source, level)
        self.append(NoticeEvent(text=notice.text, source=notice.source, level=notice.level))
        if self.turn is not None:
            self.turn.notices.append(notice)
        return notice

    def flush_context(self) -> None:
        pending, self.pending_context = self.pending_context, []
        for source, text in pending:
            self.append(ContextMessageEvent(source=source, text=text))

    def drain_steering(self) -> None:
        while self.steering:
            text, source = self.steering.popleft()
            self.append(SteeringMessageEvent(text=text, source=source))

    def projection(self) -> tuple[ModelMessage, ...]:
        return self.projector.messages()

    def turn_events(self, turn_id: str) -> list[SessionEvent]:
        # Backwards to the turn's start: a long history before it is never read.
        found: list[SessionEvent] = []
        for e in reversed(self.session.events):
            if e.turn_id == turn_id:
                found.append(e)
                if isinstance(e, TurnStart):
                    break
        found.reverse()
        return found

    def close_tool_calls(self, turn_id: str, reason: str) -> None:
        """Give every tool call of the turn that has no result an ``ABORTED`` one."""
        for result in unanswered_results(self.turn_events(turn_id), reason):
            self.append(result)

    def finish_log(
        self, turn: TurnState, reason: TurnEndReason, cause: AbortCause | None, error: str | None
    ) -> None:
        # Results first: pending context must not land between a call and its result.
        self.close_tool_calls(turn.id, "the turn ended before this call finished")
        self.flush_context()
        self.append(TurnEnd(reason=reason, cause=cause, error=error))

    def repair_unfinished_turn(self) -> None:
        """A reloaded log whose last turn never ended (a crash): answer its calls and end it."""
        last_start: SessionEvent | None = None
        for ev in reversed(self.session.events):
            if isinstance(ev, TurnEnd):
                return
            if isinstance(ev, TurnStart):
                last_start = ev
                break
        if last_start is None or last_start.turn_id is None:
            return
        turn_id = last_start.turn_id
        previous, self.turn = self.turn, TurnState(turn_id)
        try:
            self.close_tool_calls(turn_id, "the session ended before this call finished")
            self.append(
                TurnEnd(
                    reason=ABORTED,
                    cause=AbortCause(kind="error", reason="the session ended before this turn did"),
                    error=None,
                )
            )
        finally:
            self.turn = previous

    # -- the turn's signal ------------------------------------------------------------

    def check_cancel(self) -> None:
        if self.cancel is not None:
            raise EndTurn(ABORTED, self.cancel[0])

    async def guarded(self, channel: Channel[Any], work: Awaitable[T]) -> T:
        """Run a seam's listeners, cancelled the moment the running turn's signal aborts.

        The cancellation reaches whatever a listener awaits (a hook process group is
        killed by its executor); the turn then ends as ``aborted``.
        """
        turn = self.turn
        if turn is None or not self.ctx.listeners(channel):
            return await work
        try:
            result = await race(work, turn.signal)
        except Exception:
            if not turn.signal.aborted:
                raise
            result = None  # the turn ends anyway
        if turn.signal.aborted:
            self.check_cancel()
            raise EndTurn(ABORTED, AbortCause(kind="user", reason="cancelled"))
        return cast(T, result)

    async def call_model(self, request: ModelRequest, signal: AbortSignal) -> AssistantMessage:
        """The model call, raced against the turn's signal so ``cancel("now")`` ends it."""
        self.check_cancel()
        model = self.agent.model
        try:
            reply: object = await race(model.complete(request, on_text=self.on_text), signal)
        except SignalAbortedError:
            self.check_cancel()
            raise EndTurn(ABORTED, AbortCause(kind="user", reason="cancelled")) from None
        except Exception as exc:
            raise EndTurn(ERROR, None, exc) from exc
        if not isinstance(reply, AssistantMessage):
            raise EndTurn(
                ERROR,
                None,
                TypeError(
                    f"model {model.name!r} returned {type(reply).__name__}, not an AssistantMessage"
                ),
            )
        return reply


def text_arg(value: object, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _with_turn(event: SessionEvent, turn_id: str) -> SessionEvent:
    return dataclasses.replace(event, turn_id=turn_id)
