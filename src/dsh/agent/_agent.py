"""``Agent``: the public face of the loop (identity, inputs, lifecycle) and its turn.

One turn: ``turn/start``; each queued prompt through ``agent/prompt-submit``;
then steps (turn-stop before every model call after the first, the model
call, ``agent/message-display`` for a root agent's text, the step's tool calls
through the registry with their results (and ``agent/cwd-changed`` after a call
that moved the workspace), then their context, then ``agent/post-tool-batch``)
until a reply without tool calls meets ``agent/turn-continuation``'s stop, a
limit, a stop, a cancellation or an error; ``turn/end``. Whatever happens, every
tool call the model asked for gets a result in the log and the turn gets its end.

The parts live beside it: ``_core`` (the log, pending inputs, the turn's
signal), ``_loop`` (prompts and steps), ``_tool_step`` (a step's tool calls),
``_compaction``, and ``_turn`` (a turn's state and result).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from dsh.agent._background import settle_background
from dsh.agent._channels import SESSION_END, SESSION_START, SETUP
from dsh.agent._core import AgentCore, text_arg
from dsh.agent._decisions import (
    SETUP_TRIGGERS,
    Notice,
    NoticeLevel,
    PromptSource,
    SessionEndReason,
    SessionStartSource,
    SetupTrigger,
)
from dsh.agent._deferral import (
    CONTINUE_PROMPT,
    DeferredCall,
    Settlement,
    pending_calls,
    rejection_result,
    settled_record,
)
from dsh.agent._loop import compact_if_over_budget, drain_prompts, end_turn, run_steps
from dsh.agent._options import AgentOptions
from dsh.agent._turn import (
    ABORTED,
    DEFERRED_END,
    ERROR,
    CancelWhen,
    EndTurn,
    TurnResult,
    TurnState,
    new_turn_id,
)
from dsh.base import AbortSignal, freeze_json
from dsh.context import Context
from dsh.messages import Content, ModelMessage, ToolUse
from dsh.models import Model
from dsh.session import (
    AbortCause,
    SessionEvent,
    SessionLog,
    SessionStore,
    SessionWriteError,
    TurnStart,
)
from dsh.tools import TOOLS, ToolRegistry, Workspace
from dsh.tools._failures import DEFERRED
from dsh.tools._identity import CallToken

if TYPE_CHECKING:  # a switch's or an added directory's: imported when one happens
    from dsh.agent._switching import (
        DirectorySource,
        ModelSwitchRequest,
        ModelSwitchSource,
        ModelSwitchVariant,
    )

__all__ = ["Agent", "CancelWhen", "TurnResult"]

logger = logging.getLogger("dsh.agent")

DEFAULT_OPTIONS = AgentOptions()


class Agent:
    """An agent: a session log, a model, the tool registry, and the loop that joins them.

    ``source`` is what ``agent/session-start`` reports; when omitted it is
    inferred: ``startup`` for a new session or a fork (``forked_from`` tells
    them apart), ``resume`` for a session that already has events. ``store``
    is where subagents' sessions are created (subagents are unavailable
    without it). ``options`` are the loop's limits and manners (``AgentOptions``);
    ``system`` is the system prompt sent with each model call.
    """

    def __init__(
        self,
        ctx: Context,
        *,
        model: Model,
        session: SessionLog,
        registry: ToolRegistry | None = None,
        workspace: Workspace | None = None,
        options: AgentOptions = DEFAULT_OPTIONS,
        source: SessionStartSource | None = None,
        system: str | None = None,
        store: SessionStore | None = None,
        on_event: Callable[[SessionEvent], None] | None = None,
        on_text: Callable[[str], None] | None = None,
        parent: Agent | None = None,
        parent_token: CallToken | None = None,
        agent_id: str | None = None,
        agent_type: str | None = None,
    ) -> None:
        self._ctx = ctx
        self._model = model
        self._session = session
        self._registry = registry if registry is not None else ctx.require(TOOLS)
        self._workspace = workspace if workspace is not None else Workspace(cwd=_cwd())
        if self._workspace.tool_results_dir is None and session.path is not None:
            # Beside the log, as Claude Code's ``<session>/tool-results`` (a subagent's
            # workspace carries its root's).
            results = session.path.parent / session.id / "tool-results"
            self._workspace.tool_results_dir = results
        if source is None:
            source = "resume" if session.events and session.forked_from is None else "startup"
        self._start_source: SessionStartSource = source
        self._options = options
        self._system = system
        self._store = store
        self._parent = parent
        self._parent_token = parent_token
        self._agent_id = agent_id
        self._agent_type = agent_type
        self._directories: tuple[Path, ...] = ()
        self._switches: list[ModelSwitchRequest] = []
        self._started = False
        self._closed = False
        self._core = AgentCore(self, ctx, session, on_event=on_event, on_text=on_text)

    # -- identity -------------------------------------------------------------

    @property
    def ctx(self) -> Context:
        return self._ctx

    @property
    def model(self) -> Model:
        return self._model

    @property
    def directories(self) -> tuple[Path, ...]:
        """The working directories added to the session (``add_directory``), in order."""
        return self._directories

    def _set_model(self, model: Model, request: ModelSwitchRequest) -> None:
        self._model = model
        self._switches.append(request)  # `agent/model-switched` fires as the next turn begins

    def _add_directory(self, path: Path) -> None:
        self._directories += (path,)

    async def switch_model(
        self, model: Model, *, requested: str, source: ModelSwitchSource = "sdk"
    ) -> ModelSwitchVariant:
        """Switch to ``model`` between turns, unless ``agent/model-switch`` denies it."""
        from dsh.agent._switching import switch_model

        return await switch_model(self, model, requested=requested, source=source)

    async def add_directory(self, directory: Path, *, source: DirectorySource) -> Path:
        """Add a working directory (``agent/directory-added``); returns it, absolute."""
        from dsh.agent._switching import add_directory

        return await add_directory(self, directory, source=source)

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
        return self._core.turn is not None

    @property
    def turn_id(self) -> str | None:
        turn = self._core.turn
        return turn.id if turn is not None else None

    @property
    def signal(self) -> AbortSignal | None:
        """The running turn's abort signal (``None`` between turns).

        ``cancel(..., when="now")`` aborts it. The loop cancels a listener of its
        own seams that is still running then; a listener of the tool seams (or any
        long work) should race its work against it, as the Claude Code bridge does
        with its hook processes.
        """
        turn = self._core.turn
        return turn.signal if turn is not None else None

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def options(self) -> AgentOptions:
        """How this agent runs its turns (the step limit, the continuation cap, ...)."""
        return self._options

    @property
    def events(self) -> Sequence[SessionEvent]:
        return self._session.events

    def messages(self) -> tuple[ModelMessage, ...]:
        """The model view of the history so far: ``project(self.events)``, kept as events are
        logged (reading it decodes no part of a reopened history)."""
        return self._core.projection()

    def __repr__(self) -> str:
        kind = f" {self._agent_type}" if self._agent_type else ""
        return f"<Agent{kind} session={self.session_id!r}>"

    # -- inputs ---------------------------------------------------------------

    def send(self, content: Content, *, source: PromptSource = "user") -> None:
        """Queue a prompt; the next turn drains the queue through ``agent/prompt-submit``."""
        if not isinstance(content, str | tuple):
            raise TypeError(f"Agent.send: content must be str or content blocks, got {content!r}")
        self._core.queue.append((content, source))

    def steer(self, text: str) -> None:
        """Queue steering; it is recorded as ``steering/message`` at the top of the next step."""
        self._core.steering.append((text_arg(text, "Agent.steer"), "user"))

    def inject(self, text: str, source: str = "agent") -> None:
        """Add model-visible context (``context/message``) at the loop's next safe point.

        Safe points: right after ``agent/session-start``, after a turn's prompts,
        after a step's tool results, and before each model call, so context
        never lands between a tool call and its result.
        """
        self._core.pending_context.append(
            (text_arg(source, "Agent.inject source"), text_arg(text, "Agent.inject"))
        )

    def notice(self, text: str, *, source: str = "agent", level: NoticeLevel = "info") -> Notice:
        """Record a user-facing notice (``notice`` event); the model never sees it."""
        return self._core.notice(text, source=source, level=level)

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
        core = self._core
        if core.cancel is None or (when == "now" and core.cancel[1] == "after_step"):
            core.cancel = (cause, when)
        if when == "now" and core.turn is not None:
            core.turn.signal.abort(core.cancel[0].reason)

    def append_event(self, event: SessionEvent) -> SessionEvent:
        """Append ``event`` to this agent's log, stamped with the running turn's id.

        For packages that declare their own event types (a bridge's ``hook/*``
        events); the loop's own events are its business.
        """
        return self._core.append(event)

    def append_events(
        self, events: Sequence[SessionEvent], *, durable: bool = True
    ) -> tuple[SessionEvent, ...]:
        """Append several events together, as ``append_event`` each: one write, one fsync.

        For events produced together (the ``hook/invocation`` events of hooks
        fired at once); each is durable when this returns, as with ``append_event``.
        ``durable=False`` (a record of what already happened, like ``hook/result``)
        writes them and leaves the fsync to the next durable append or the close.
        """
        return self._core.append_many(events, durable=durable)

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
        self._core.repair_unfinished_turn()
        await self._ctx.emit(SESSION_START, self, self._start_source)
        self._core.flush_context()

    async def close(self, reason: SessionEndReason = "other") -> None:
        """Fire ``agent/session-end`` once, then close the workspace; later calls do nothing.

        Closing the workspace ends what the session's tools left running
        (background shells, by process group).
        """
        if self._closed:
            return
        self._closed = True
        if self._core.turn is not None:
            self.cancel(AbortCause(kind="user", reason=f"session closed ({reason})"))
        try:
            await settle_background(self)  # a background subagent ends with its parent
            await self._ctx.emit(SESSION_END, self, reason)
        finally:
            # After the session-end hooks (which may still look at them): what the
            # session's tools left running ends with it.
            self._workspace.close()

    async def compact(self, instructions: str | None = None) -> str | None:
        """Compact the history now; returns the summary, or ``None`` if vetoed or failed."""
        await self.start()
        from dsh.agent._compaction import compact  # asked for: not every run's

        return await compact(self._core, "manual", instructions)

    # -- the turn ---------------------------------------------------------------

    @property
    def pending_calls(self) -> tuple[DeferredCall, ...]:
        """The tool calls deferred and not settled yet (``settle_deferred``), in log order."""
        return pending_calls(self._core.session.events)

    async def settle_deferred(
        self,
        tool_use_id: str,
        outcome: Settlement,
        *,
        by: str,
        reason: str | None = None,
    ) -> TurnResult:
        """Settle a deferred call and go on with its turn's work, as a turn of its own:
        ``approved`` runs it through the pipeline again (same ``tool_use_id``: the policies
        decide afresh), ``rejected`` answers it with an error; then the session continues
        with 2.1.332's ``Continue from where you left off.`` ``by`` says who settled it
        (``terminal``, ``acp``, ``resume``...), for the log. ``KeyError`` when no such call
        is pending."""
        call = next((c for c in self.pending_calls if c.tool_use_id == tool_use_id), None)
        if call is None:
            raise KeyError(f"no deferred call {tool_use_id!r} is pending in this session")
        record = settled_record(outcome, by, reason)
        core = self._core

        async def settle(turn: TurnState) -> None:
            if outcome == "rejected":
                core.append(rejection_result(call, by, reason))
                return
            use = ToolUse(call.tool_use_id, call.tool_name, freeze_json(call.arguments))
            from dsh.agent._tool_step import run_settled_call  # a deferred call settled

            res = await run_settled_call(core, use, turn.signal, record)
            if res.result.code == DEFERRED:
                raise EndTurn(DEFERRED_END)  # deferred again: it stays pending

        self.send(CONTINUE_PROMPT)
        return await self._turn(settle)

    async def run_turn(self) -> TurnResult:
        """Run one turn: drain the queued prompts, then step until the turn ends."""
        return await self._turn(None)

    async def _turn(self, prelude: Callable[[TurnState], Awaitable[None]] | None) -> TurnResult:
        """A turn; ``prelude`` runs first, inside it (a deferred call being settled)."""
        if self._core.turn is not None:
            raise RuntimeError(f"{self!r}: a turn is already running")
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")
        await self.start()
        while self._switches:  # made by _switching, imported then
            from dsh.agent._switching import MODEL_SWITCHED

            await self._ctx.emit(MODEL_SWITCHED, self, self._switches.pop(0))
        core = self._core
        turn = TurnState(new_turn_id())
        core.turn = turn
        if core.cancel is not None and core.cancel[1] == "now":
            turn.signal.abort(core.cancel[0].reason)
        try:
            core.append(TurnStart())
            try:
                if prelude is not None:
                    await prelude(turn)
                # Before the prompts, so a new prompt survives compaction verbatim.
                await compact_if_over_budget(core)
                await drain_prompts(core)
                await run_steps(core, turn)
            except EndTurn as end:
                return await end_turn(core, turn, end.reason, end.cause, end.error)
            except SessionWriteError:
                raise  # the log takes nothing more, not even the turn's end: the caller says so
            except Exception as exc:
                logger.exception("%r: turn %s failed", self, turn.id)
                return await end_turn(core, turn, ERROR, None, exc)
        except asyncio.CancelledError:
            if core.turn is turn:
                core.finish_log(turn, ABORTED, AbortCause(kind="user", reason="cancelled"), None)
            raise
        finally:
            core.turn = None
            core.cancel = None


def _cwd() -> Path:
    return Path.cwd()
