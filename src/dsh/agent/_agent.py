"""``Agent`` and its turn/step loop: the seams in order, the log kept loadable on every path.

One turn: ``turn/start``; each queued prompt through ``agent/prompt-submit``;
then steps (turn-stop before every model call after the first, the model
call, ``agent/message-display`` for a root agent's text, the step's tool calls
through the registry with their results (and ``agent/cwd-changed`` after a call
that moved the workspace), then their context, then ``agent/post-tool-batch``)
until a reply without tool calls meets ``agent/turn-continuation``'s stop, a
limit, a stop, a cancellation or an error; ``turn/end``. Whatever happens, every
tool call the model asked for gets a result in the log and the turn gets its end.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, NoReturn, TypeVar, cast, final

from dsh._frozen import frozen
from dsh.agent._channels import (
    CWD_CHANGED,
    MESSAGE_DISPLAY,
    POST_COMPACT,
    POST_TOOL_BATCH,
    PRE_COMPACT,
    PROMPT_SUBMIT,
    SESSION_END,
    SESSION_START,
    SETUP,
    TURN_CONTINUATION,
    TURN_ERROR,
    TURN_STOP,
)
from dsh.agent._decisions import (
    SETUP_TRIGGERS,
    CompactRequest,
    CompactTrigger,
    ContinuationContinue,
    ContinuationDecision,
    ContinuationState,
    DisplayReplace,
    DisplayRequest,
    Notice,
    NoticeLevel,
    PostToolBatchProceed,
    PostToolBatchStop,
    PreCompactVeto,
    PromptAllow,
    PromptBlock,
    PromptSource,
    SessionEndReason,
    SessionStartSource,
    SetupTrigger,
    SteeringSource,
)
from dsh.base import SignalAbortedError, race
from dsh.context import Channel, Context
from dsh.models import Model, ModelRequest, ToolSpec
from dsh.session import (
    AbortCause,
    AssistantDisplayEvent,
    AssistantMessage,
    AssistantMessageEvent,
    CompactionEnd,
    CompactionStart,
    Content,
    ContextMessageEvent,
    ModelMessage,
    NoticeEvent,
    PromptBlockedEvent,
    SessionEvent,
    SessionLog,
    SessionStore,
    SteeringMessageEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolResultMessage,
    ToolUse,
    TurnEnd,
    TurnEndReason,
    TurnStart,
    UserMessage,
    UserMessageEvent,
    content_text,
    project,
    thaw_json,
)
from dsh.tools import (
    TOOLS,
    AbortSignal,
    CallToken,
    SealFailure,
    ToolCall,
    ToolExecutionResult,
    ToolRegistry,
    Workspace,
)

__all__ = ["Agent", "CancelWhen", "TurnResult"]

logger = logging.getLogger("dsh.agent")

T = TypeVar("T")

# By value: the enum's member names are the session package's business.
_COMPLETED = TurnEndReason("completed")
_REJECTED = TurnEndReason("rejected")
_ABORTED = TurnEndReason("aborted")
_MAX_STEPS = TurnEndReason("max_steps")
_STOPPED = TurnEndReason("stopped")
_ERROR = TurnEndReason("error")

CancelWhen = Literal["now", "after_step"]

DEFAULT_MAX_STEPS = 50
DEFAULT_CONTINUATION_CAP = 8

COMPACT_SYSTEM = (
    "You summarize a conversation between a user and a coding agent so the agent can continue "
    "from the summary alone."
)
COMPACT_PROMPT = (
    "Summarize the conversation so far: the user's goals, what was done (files, commands, "
    "results), decisions made, and what remains. Be concise and factual."
)


@final
@frozen
class TurnResult:
    """How a turn ended.

    ``steps`` counts the model replies the turn received; ``final_text`` is the
    text of its last one (empty when there was none); ``notices`` are the
    user-facing notices recorded while the turn ran; ``error`` describes an
    ``error`` ending.
    """

    end_reason: TurnEndReason
    cause: AbortCause | None = None
    steps: int = 0
    final_text: str = ""
    notices: tuple[Notice, ...] = ()
    error: str | None = None


class _EndTurn(Exception):
    """Internal control flow: end the running turn now, with this reason."""

    def __init__(
        self,
        reason: TurnEndReason,
        cause: AbortCause | None = None,
        error: Exception | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.cause = cause
        self.error = error


class _Turn:
    """The running turn's mutable state."""

    __slots__ = ("final_text", "id", "notices", "signal", "steps")

    def __init__(self, turn_id: str) -> None:
        self.id = turn_id
        self.signal = AbortSignal()
        self.steps = 0
        self.final_text = ""
        self.notices: list[Notice] = []


def _new_id() -> str:
    return uuid.uuid4().hex


class Agent:
    """An agent: a session log, a model, the tool registry, and the loop that joins them.

    ``source`` is what ``agent/session-start`` reports; when omitted it is
    inferred: ``startup`` for a new session or a fork (``forked_from`` tells
    them apart), ``resume`` for a session that already has events. ``store``
    is where subagents' sessions are created (subagents are unavailable
    without it). ``compact_budget`` is the projected-context size, in
    characters, above which the loop compacts before a model call (``None``:
    never automatically).
    """

    def __init__(
        self,
        ctx: Context,
        *,
        model: Model,
        session: SessionLog,
        registry: ToolRegistry | None = None,
        workspace: Workspace | None = None,
        source: SessionStartSource | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        continuation_cap: int = DEFAULT_CONTINUATION_CAP,
        system: str | None = None,
        store: SessionStore | None = None,
        compact_budget: int | None = None,
        parallel_tools: bool = True,
        on_event: Callable[[SessionEvent], None] | None = None,
        on_text: Callable[[str], None] | None = None,
        parent: Agent | None = None,
        parent_token: CallToken | None = None,
        agent_id: str | None = None,
        agent_type: str | None = None,
    ) -> None:
        if max_steps < 1:
            raise ValueError(f"Agent: max_steps must be at least 1, got {max_steps}")
        if continuation_cap < 0:
            raise ValueError(f"Agent: continuation_cap must be >= 0, got {continuation_cap}")
        if compact_budget is not None and compact_budget < 1:
            raise ValueError(f"Agent: compact_budget must be positive, got {compact_budget}")
        self._ctx = ctx
        self._model = model
        self._session = session
        self._registry = registry if registry is not None else ctx.require(TOOLS)
        self._workspace = workspace if workspace is not None else Workspace(cwd=_cwd())
        if source is None:
            source = "resume" if session.events and session.forked_from is None else "startup"
        self._start_source: SessionStartSource = source
        self._max_steps = max_steps
        self._continuation_cap = continuation_cap
        self._system = system
        self._store = store
        self._compact_budget = compact_budget
        self._parallel_tools = parallel_tools
        self._on_event = on_event
        self._on_text = on_text
        self._parent = parent
        self._parent_token = parent_token
        self._agent_id = agent_id
        self._agent_type = agent_type

        self._queue: deque[tuple[Content, PromptSource]] = deque()
        self._steering: deque[tuple[str, SteeringSource]] = deque()
        self._pending_context: list[tuple[str, str]] = []
        self._started = False
        self._closed = False
        self._compacting = False
        self._turn: _Turn | None = None
        self._cancel: tuple[AbortCause, CancelWhen] | None = None

    # -- identity -------------------------------------------------------------

    @property
    def ctx(self) -> Context:
        return self._ctx

    @property
    def model(self) -> Model:
        return self._model

    @property
    def registry(self) -> ToolRegistry:
        return self._registry

    @property
    def session(self) -> SessionLog:
        return self._session

    @property
    def session_id(self) -> str:
        return self._session.id

    @property
    def forked_from(self) -> str | None:
        return self._session.forked_from

    @property
    def store(self) -> SessionStore | None:
        return self._store

    @property
    def workspace(self) -> Workspace:
        return self._workspace

    @property
    def system(self) -> str | None:
        return self._system

    @property
    def parent(self) -> Agent | None:
        """The agent whose ``Agent`` tool call runs this one (``None`` at top level)."""
        return self._parent

    @property
    def parent_token(self) -> CallToken | None:
        """The token of the parent's ``Agent`` call; this agent's tool calls carry it."""
        return self._parent_token

    @property
    def agent_id(self) -> str | None:
        return self._agent_id

    @property
    def agent_type(self) -> str | None:
        return self._agent_type

    @property
    def start_source(self) -> SessionStartSource:
        return self._start_source

    @property
    def running(self) -> bool:
        """Whether a turn is in progress."""
        return self._turn is not None

    @property
    def turn_id(self) -> str | None:
        return self._turn.id if self._turn is not None else None

    @property
    def signal(self) -> AbortSignal | None:
        """The running turn's abort signal (``None`` between turns).

        ``cancel(..., when="now")`` aborts it. The loop cancels a listener of its
        own seams that is still running then; a listener of the tool seams (or any
        long work) should race its work against it, as the Claude Code bridge does
        with its hook processes.
        """
        return self._turn.signal if self._turn is not None else None

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def max_steps(self) -> int:
        return self._max_steps

    @property
    def continuation_cap(self) -> int:
        return self._continuation_cap

    @property
    def compact_budget(self) -> int | None:
        return self._compact_budget

    @property
    def parallel_tools(self) -> bool:
        return self._parallel_tools

    @property
    def events(self) -> tuple[SessionEvent, ...]:
        return self._session.events

    def __repr__(self) -> str:
        kind = f" {self._agent_type}" if self._agent_type else ""
        return f"<Agent{kind} session={self.session_id!r}>"

    # -- inputs ---------------------------------------------------------------

    def send(self, content: Content, *, source: PromptSource = "user") -> None:
        """Queue a prompt; the next turn drains the queue through ``agent/prompt-submit``."""
        if not isinstance(content, str | tuple):
            raise TypeError(f"Agent.send: content must be str or content blocks, got {content!r}")
        self._queue.append((content, source))

    def steer(self, text: str) -> None:
        """Queue steering; it is recorded as ``steering/message`` at the top of the next step."""
        self._steering.append((_text_arg(text, "Agent.steer"), "user"))

    def inject(self, text: str, source: str = "agent") -> None:
        """Add model-visible context (``context/message``) at the loop's next safe point.

        Safe points: right after ``agent/session-start``, after a turn's prompts,
        after a step's tool results, and before each model call, so context
        never lands between a tool call and its result.
        """
        self._pending_context.append(
            (_text_arg(source, "Agent.inject source"), _text_arg(text, "Agent.inject"))
        )

    def notice(self, text: str, *, source: str = "agent", level: NoticeLevel = "info") -> Notice:
        """Record a user-facing notice (``notice`` event); the model never sees it."""
        notice = Notice(_text_arg(text, "Agent.notice"), source, level)
        self._append(NoticeEvent(text=notice.text, source=notice.source, level=notice.level))
        if self._turn is not None:
            self._turn.notices.append(notice)
        return notice

    def cancel(self, cause: AbortCause | str, when: CancelWhen = "now") -> None:
        """End the running turn as ``aborted`` with ``cause``.

        ``now`` aborts the running model call or tool through its signal;
        ``after_step`` lets the step's calls finish first and skips the
        continuation seam. Called between turns, it applies to the next turn
        (which then ends before its first model call).
        """
        if isinstance(cause, str):
            cause = AbortCause(kind="user", reason=cause)
        if when not in ("now", "after_step"):
            raise ValueError(f"Agent.cancel: when must be 'now' or 'after_step', got {when!r}")
        if self._cancel is None or (when == "now" and self._cancel[1] == "after_step"):
            self._cancel = (cause, when)
        if when == "now" and self._turn is not None:
            self._turn.signal.abort(self._cancel[0].reason)

    def append_event(self, event: SessionEvent) -> SessionEvent:
        """Append ``event`` to this agent's log, stamped with the running turn's id.

        For packages that declare their own event types (a bridge's ``hook/*``
        events); the loop's own events are its business.
        """
        return self._append(event)

    def append_events(self, events: Sequence[SessionEvent]) -> tuple[SessionEvent, ...]:
        """Append several events together, as ``append_event`` each: one write, one fsync.

        For events produced together (the ``hook/invocation`` events of hooks
        fired at once); each is durable when this returns, as with ``append_event``.
        """
        turn = self._turn
        if turn is not None:
            events = [e if e.turn_id is not None else _with_turn(e, turn.id) for e in events]
        stamped = self._session.append_many(events)
        if self._on_event is not None:
            for event in stamped:
                try:
                    self._on_event(event)
                except Exception:
                    logger.exception("%r: on_event callback failed", self)
        return stamped

    # -- lifecycle ------------------------------------------------------------

    async def setup(self, trigger: SetupTrigger) -> None:
        """Fire ``agent/setup`` with ``trigger``, before the session starts (Claude Code's
        ``--init``, ``--init-only`` and ``--maintenance``); root agents only."""
        if trigger not in SETUP_TRIGGERS:
            raise ValueError(
                f"Agent.setup: trigger must be one of {', '.join(SETUP_TRIGGERS)}, not {trigger!r}"
            )
        if self._started:
            raise RuntimeError(f"{self!r}: setup runs before the session starts")
        if self.parent is not None:
            raise RuntimeError(f"{self!r}: a subagent has no setup")
        await self._ctx.emit(SETUP, self, trigger)

    async def start(self) -> None:
        """Fire ``agent/session-start`` (once); ``run_turn`` calls it when needed."""
        if self._started:
            return
        self._started = True
        self._repair_unfinished_turn()
        await self._ctx.emit(SESSION_START, self, self._start_source)
        self._flush_context()

    async def close(self, reason: SessionEndReason = "other") -> None:
        """Fire ``agent/session-end`` once, then close the workspace; later calls do nothing.

        Closing the workspace ends what the session's tools left running
        (background shells, by process group).
        """
        if self._closed:
            return
        self._closed = True
        if self._turn is not None:
            self.cancel(AbortCause(kind="user", reason=f"session closed ({reason})"))
        try:
            await self._ctx.emit(SESSION_END, self, reason)
        finally:
            # After the session-end hooks (which may still look at them): what the
            # session's tools left running ends with it.
            self._workspace.close()

    async def compact(self, instructions: str | None = None) -> str | None:
        """Compact the history now; returns the summary, or ``None`` if vetoed or failed."""
        await self.start()
        return await self._compact("manual", instructions)

    # -- the turn ---------------------------------------------------------------

    async def run_turn(self) -> TurnResult:
        """Run one turn: drain the queued prompts, then step until the turn ends."""
        if self._turn is not None:
            raise RuntimeError(f"{self!r}: a turn is already running")
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")
        await self.start()
        turn = _Turn(_new_id())
        self._turn = turn
        if self._cancel is not None and self._cancel[1] == "now":
            turn.signal.abort(self._cancel[0].reason)
        try:
            self._append(TurnStart())
            try:
                # Before the prompts, so a new prompt survives compaction verbatim.
                await self._compact_if_over_budget()
                await self._drain_prompts(turn)
                await self._steps(turn)
            except _EndTurn as end:
                return await self._end(turn, end.reason, end.cause, end.error)
            except Exception as exc:
                logger.exception("%r: turn %s failed", self, turn.id)
                return await self._end(turn, _ERROR, None, exc)
        except asyncio.CancelledError:
            if self._turn is turn:
                self._finish_log(turn, _ABORTED, AbortCause(kind="user", reason="cancelled"), None)
            raise
        finally:
            self._turn = None
            self._cancel = None

    async def _drain_prompts(self, turn: _Turn) -> None:
        drained = 0
        allowed = 0
        while self._queue:
            content, source = self._queue.popleft()
            drained += 1
            decision = await self._guarded(
                PROMPT_SUBMIT, self._ctx.waterfall(PROMPT_SUBMIT, self, content, source)
            )
            match decision:
                case PromptBlock(reason=reason):
                    self._append(PromptBlockedEvent(prompt=content, reason=reason, source=source))
                    self.notice(reason, source="agent/prompt-submit", level="warning")
                case PromptAllow(content=rewritten, additional_context=extra, source=by):
                    allowed += 1
                    final = rewritten if rewritten is not None else content
                    self._append(UserMessageEvent(content=final, source=source))
                    if extra:
                        self._append(
                            ContextMessageEvent(source=by or "agent/prompt-submit", text=extra)
                        )
        if drained and not allowed:
            raise _EndTurn(_REJECTED)
        self._flush_context()

    async def _steps(self, turn: _Turn) -> NoReturn:
        """Step until something ends the turn (always by raising ``_EndTurn``)."""
        streak = 0
        step = 0
        while True:
            step += 1
            self._check_cancel()
            if step > self._max_steps:
                self.notice(
                    f"stopped after {self._max_steps} steps (the step limit)",
                    source="agent",
                    level="warning",
                )
                raise _EndTurn(_MAX_STEPS)
            if step > 1:
                asked = self._ctx.serial(TURN_STOP, self, step)
                stop = await self._guarded(TURN_STOP, asked)
                if stop is not None:
                    self.notice(stop.reason, source="agent/turn-stop")
                    raise _EndTurn(_STOPPED, AbortCause(kind="hook", reason=stop.reason))
                self._check_cancel()
            self._drain_steering()
            self._flush_context()
            if step > 1:
                await self._compact_if_over_budget()

            reply = await self._call_model(self._request(), turn.signal)
            turn.steps += 1
            turn.final_text = reply.text
            message = self._append(
                AssistantMessageEvent(text=reply.text, tool_calls=reply.tool_calls)
            )
            if reply.text and self._parent is None:
                await self._display(turn, message)

            if reply.tool_calls:
                results = await self._run_tools(reply.tool_calls, turn)
                self._check_cancel()
                streak = 0
                decision = await self._guarded(
                    POST_TOOL_BATCH, self._ctx.waterfall(POST_TOOL_BATCH, self, tuple(results))
                )
                match decision:
                    case PostToolBatchStop(reason=reason):
                        self.notice(reason, source="agent/post-tool-batch")
                        raise _EndTurn(_STOPPED, AbortCause(kind="hook", reason=reason))
                    case PostToolBatchProceed(additional_context=extra, source=by) if extra:
                        self._append(
                            ContextMessageEvent(source=by or "agent/post-tool-batch", text=extra)
                        )
                continue

            self._check_cancel()
            incoming = (
                ContinuationDecision.continue_() if self._steering else ContinuationDecision.stop()
            )
            state = ContinuationState(incoming, streak, step, reply.text)
            decision_c = await self._guarded(
                TURN_CONTINUATION, self._ctx.waterfall(TURN_CONTINUATION, self, state)
            )
            self._check_cancel()
            if not isinstance(decision_c, ContinuationContinue):
                raise _EndTurn(_COMPLETED)
            if not incoming.continues:
                if streak >= self._continuation_cap:
                    self.notice(
                        f"continuation cap reached: {self._continuation_cap} forced continuations "
                        "in a row; the turn ends",
                        source="agent/turn-continuation",
                        level="warning",
                    )
                    raise _EndTurn(_COMPLETED)
                streak += 1
            if decision_c.reason:
                self._steering.append((decision_c.reason, "continuation"))

    def _check_cancel(self) -> None:
        if self._cancel is not None:
            raise _EndTurn(_ABORTED, self._cancel[0])

    async def _guarded(self, channel: Channel[Any], work: Awaitable[T]) -> T:
        """Run a seam's listeners, cancelled the moment the running turn's signal aborts.

        The cancellation reaches whatever a listener awaits (a hook process group is
        killed by its executor); the turn then ends as ``aborted``.
        """
        turn = self._turn
        if turn is None or not self._ctx.listeners(channel):
            return await work
        try:
            result = await race(work, turn.signal)
        except Exception:
            if not turn.signal.aborted:
                raise
            result = None  # the turn ends anyway
        if turn.signal.aborted:
            self._check_cancel()
            raise _EndTurn(_ABORTED, AbortCause(kind="user", reason="cancelled"))
        return cast(T, result)

    async def _display(self, turn: _Turn, message: SessionEvent) -> None:
        """``agent/message-display`` for a root agent's text; a replacement is logged."""
        assert isinstance(message, AssistantMessageEvent)
        request = DisplayRequest(turn_id=turn.id, message_id=message.id, text=message.text)
        try:
            decision = await self._guarded(
                MESSAGE_DISPLAY, self._ctx.waterfall(MESSAGE_DISPLAY, self, request)
            )
        except _EndTurn:
            raise
        except Exception:
            # Display is the user's view only: a broken listener shows the original.
            logger.exception("%r: agent/message-display failed; the original text is shown", self)
            return
        if isinstance(decision, DisplayReplace) and decision.text != message.text:
            self._append(AssistantDisplayEvent(message_id=message.id, text=decision.text))

    async def _end(
        self,
        turn: _Turn,
        reason: TurnEndReason,
        cause: AbortCause | None,
        error: Exception | None,
    ) -> TurnResult:
        if error is not None:
            await self._ctx.emit(TURN_ERROR, self, error)
        text = _error_text(error) if error is not None else None
        self._finish_log(turn, reason, cause, text)
        return TurnResult(
            end_reason=reason,
            cause=cause,
            steps=turn.steps,
            final_text=turn.final_text,
            notices=tuple(turn.notices),
            error=text,
        )

    def _finish_log(
        self, turn: _Turn, reason: TurnEndReason, cause: AbortCause | None, error: str | None
    ) -> None:
        # Results first: pending context must not land between a call and its result.
        self._close_tool_calls(
            self._turn_events(turn.id), "the turn ended before this call finished"
        )
        self._flush_context()
        self._append(TurnEnd(reason=reason, cause=cause, error=error))

    # -- model ----------------------------------------------------------------

    def _request(self) -> ModelRequest:
        specs = tuple(
            ToolSpec(name=d.name, description=d.description, input_schema=d.input_schema)
            for d in self._registry.definitions()
        )
        return ModelRequest(messages=self._projection(), tools=specs, system=self._system)

    def _projection(self) -> tuple[ModelMessage, ...]:
        return tuple(project(self._session.events))

    async def _compact_if_over_budget(self) -> None:
        budget = self._compact_budget
        if budget is not None and _estimate_chars(self._projection()) > budget:
            await self._compact("auto", None)
            self._check_cancel()

    async def _call_model(self, request: ModelRequest, signal: AbortSignal) -> AssistantMessage:
        """The model call, raced against the turn's signal so ``cancel("now")`` ends it."""
        self._check_cancel()
        try:
            reply: object = await race(self._model.complete(request, on_text=self._on_text), signal)
        except SignalAbortedError:
            self._check_cancel()
            raise _EndTurn(_ABORTED, AbortCause(kind="user", reason="cancelled")) from None
        except Exception as exc:
            raise _EndTurn(_ERROR, None, exc) from exc
        if not isinstance(reply, AssistantMessage):
            raise _EndTurn(
                _ERROR,
                None,
                TypeError(
                    f"model {self._model.name!r} returned {type(reply).__name__}, "
                    "not an AssistantMessage"
                ),
            )
        return reply

    # -- tools ------------------------------------------------------------------

    async def _run_tools(self, uses: Sequence[ToolUse], turn: _Turn) -> list[ToolExecutionResult]:
        """Run a step's calls; results in call order, then the step's context. Never interleaved."""
        results: list[ToolExecutionResult] = []
        for group in self._groups(uses):
            before = self._workspace.cwd
            if len(group) == 1:
                results.append(await self._execute(group[0], turn.signal, log_result=True))
            else:
                async with asyncio.TaskGroup() as tg:
                    tasks = [
                        tg.create_task(self._execute(u, turn.signal, log_result=False))
                        for u in group
                    ]
                for task in tasks:
                    res = task.result()
                    self._log_result(res)
                    results.append(res)
            after = self._workspace.cwd
            if after != before:
                await self._guarded(CWD_CHANGED, self._ctx.emit(CWD_CHANGED, self, before, after))
        for res in results:
            for text in res.additional_context:
                self._append(ContextMessageEvent(source="tools/post-execute", text=text))
        self._flush_context()
        return results

    def _groups(self, uses: Sequence[ToolUse]) -> list[list[ToolUse]]:
        """Runs of consecutive read-only, concurrency-safe calls; every other call alone."""
        if not self._parallel_tools:
            return [[u] for u in uses]
        safe = {d.name for d in self._registry.definitions() if d.read_only and d.concurrency_safe}
        groups: list[list[ToolUse]] = []
        for use in uses:
            if use.name in safe and groups and groups[-1][0].name in safe:
                groups[-1].append(use)
            else:
                groups.append([use])
        return groups

    async def _execute(
        self, use: ToolUse, signal: AbortSignal, *, log_result: bool
    ) -> ToolExecutionResult:
        # The model's arguments, frozen JSON already, are sealed as they are.
        sealed = await self._registry.seal(
            use, agent=self, parent=self._parent_token, signal=signal
        )
        self._log_call(sealed.call if isinstance(sealed, SealFailure) else sealed)
        res = await self._registry.run(sealed, signal=signal)
        if log_result:
            self._log_result(res)
        return res

    def _log_call(self, call: ToolCall) -> None:
        self._append(
            ToolCallEvent(
                token=str(call.token),
                parent_token=str(call.parent) if call.parent is not None else None,
                tool_use_id=call.tool_use_id,
                tool_name=call.name,
                arguments=call.arguments,
                original_arguments=call.original_arguments,
                rewritten_by=call.rewritten_by,
            )
        )

    def _log_result(self, res: ToolExecutionResult) -> None:
        r = res.result
        self._append(
            ToolResultEvent(
                token=str(res.call.token),
                tool_use_id=res.call.tool_use_id,
                content=r.content,
                output=r.output,
                is_error=r.is_error,
                code=r.code,
                info=r.info,
                dispatched=res.dispatched,
                approval=res.approval,
            )
        )

    def _close_tool_calls(self, events: Iterable[SessionEvent], reason: str) -> None:
        """Give every tool call of ``events`` that has no result an ``ABORTED`` one."""
        asked: dict[str, str] = {}
        tokens: dict[str, str] = {}
        answered: set[str] = set()
        for ev in events:
            if isinstance(ev, AssistantMessageEvent):
                for use in ev.tool_calls:
                    asked[use.id] = use.name
            elif isinstance(ev, ToolCallEvent) and ev.tool_use_id is not None:
                tokens[ev.tool_use_id] = ev.token
            elif isinstance(ev, ToolResultEvent) and ev.tool_use_id is not None:
                answered.add(ev.tool_use_id)
        for use_id in asked:
            if use_id in answered:
                continue
            self._append(
                ToolResultEvent(
                    token=tokens.get(use_id, ""),
                    tool_use_id=use_id,
                    content=reason,
                    output=None,
                    is_error=True,
                    code="ABORTED",
                    info=None,
                    dispatched=use_id in tokens,
                )
            )

    # -- context, steering, compaction --------------------------------------------

    def _flush_context(self) -> None:
        pending, self._pending_context = self._pending_context, []
        for source, text in pending:
            self._append(ContextMessageEvent(source=source, text=text))

    def _drain_steering(self) -> None:
        while self._steering:
            text, source = self._steering.popleft()
            self._append(SteeringMessageEvent(text=text, source=source))

    async def _compact(self, trigger: CompactTrigger, instructions: str | None) -> str | None:
        if self._compacting:
            raise RuntimeError(f"{self!r}: a compaction is already running")
        self._compacting = True
        try:
            compact = CompactRequest(trigger=trigger, instructions=instructions)
            decision = await self._guarded(
                PRE_COMPACT, self._ctx.waterfall(PRE_COMPACT, self, compact)
            )
            if isinstance(decision, PreCompactVeto):
                self.notice(
                    f"compaction vetoed: {decision.reason}",
                    source="agent/pre-compact",
                    level="warning",
                )
                return None
            history = self._projection()
            self._append(CompactionStart(trigger=trigger, instructions=instructions))
            prompt = COMPACT_PROMPT if not instructions else f"{COMPACT_PROMPT}\n\n{instructions}"
            request = ModelRequest(
                messages=(*history, UserMessage(content=prompt)), tools=(), system=COMPACT_SYSTEM
            )
            signal = self._turn.signal if self._turn is not None else AbortSignal()
            try:
                reply = await self._call_model(request, signal)
            except _EndTurn as end:
                if end.reason != _ERROR and self._turn is not None:
                    raise
                what = _error_text(end.error) if end.error is not None else end.reason.value
                self.notice(f"compaction failed: {what}", source="agent", level="error")
                return None
            summary = reply.text.strip() or "(the summary was empty)"
            self._append(CompactionEnd(summary=summary))
        finally:
            self._compacting = False
        # Claude Code's order: the re-seeding SessionStart (compact), then PostCompact.
        await self._guarded(SESSION_START, self._ctx.emit(SESSION_START, self, "compact"))
        await self._guarded(POST_COMPACT, self._ctx.emit(POST_COMPACT, self, summary))
        self._flush_context()
        return summary

    # -- log ----------------------------------------------------------------------

    def _append(self, event: SessionEvent) -> SessionEvent:
        turn = self._turn
        if turn is not None and event.turn_id is None:
            event = _with_turn(event, turn.id)
        stamped = self._session.append(event)
        if self._on_event is not None:
            try:
                self._on_event(stamped)
            except Exception:
                logger.exception("%r: on_event callback failed", self)
        return stamped

    def _turn_events(self, turn_id: str) -> list[SessionEvent]:
        return [e for e in self._session.events if e.turn_id == turn_id]

    def _repair_unfinished_turn(self) -> None:
        """A reloaded log whose last turn never ended (a crash): answer its calls and end it."""
        events = self._session.events
        last_start: SessionEvent | None = None
        for ev in reversed(events):
            if isinstance(ev, TurnEnd):
                return
            if isinstance(ev, TurnStart):
                last_start = ev
                break
        if last_start is None or last_start.turn_id is None:
            return
        turn_id = last_start.turn_id
        previous, self._turn = self._turn, _Turn(turn_id)
        try:
            self._close_tool_calls(
                self._turn_events(turn_id), "the session ended before this call finished"
            )
            self._append(
                TurnEnd(
                    reason=_ABORTED,
                    cause=AbortCause(kind="error", reason="the session ended before this turn did"),
                    error=None,
                )
            )
        finally:
            self._turn = previous


def _with_turn(event: SessionEvent, turn_id: str) -> SessionEvent:
    return dataclasses.replace(event, turn_id=turn_id)


def _text_arg(value: object, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _plain(arguments: Any) -> Any:
    try:
        return thaw_json(arguments)
    except Exception:
        return arguments


def _error_text(error: BaseException | None) -> str:
    if error is None:
        return "unknown error"
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _estimate_chars(messages: Iterable[ModelMessage]) -> int:
    """A cheap size estimate of a projection: its text plus its tool arguments as JSON."""
    total = 0
    for m in messages:
        if isinstance(m, AssistantMessage):
            total += len(m.text)
            for use in m.tool_calls:
                total += len(use.name) + len(json.dumps(_plain(use.arguments), default=str))
        elif isinstance(m, UserMessage | ToolResultMessage):
            total += len(content_text(m.content))
        else:
            total += len(m.text)
    return total


def _cwd() -> Path:
    return Path.cwd()
