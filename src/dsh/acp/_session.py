"""One ACP session: its own host (``open_host``), its outbox of updates, its running prompt.

Updates go out in the order the loop produced them, through one sender task
per session; before a prompt is answered or a permission asked, the outbox
is drained, so the client has seen everything that came before. A session
runs one prompt at a time; ``cancel`` aborts it as Ctrl-C does (the running
model call, tools and hooks are killed through the turn's signal).

A background subagent (an ``Agent`` call, in the background by default as in
2.1.332) that finishes gets its notification turn, as Claude Code's ACP adapter
runs it: a turn the client did not prompt, streamed as ``session/update``s after
the prompt that launched it was answered, its ``<task-notification>`` prompt
shown as a user message. Turns never overlap: one that finishes while a prompt
runs waits for it to be answered, and a prompt that arrives during a
notification turn waits for that turn to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from acp import RequestError, plan_entry, update_plan
from acp.interfaces import Client
from acp.schema import (
    ConfigOptionUpdate,
    CurrentModeUpdate,
    PermissionOption,
    PlanEntryStatus,
    PromptResponse,
    RequestPermissionResponse,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionModeState,
)

from dsh.acp._approval import AcpApprovalChannel, permission_call
from dsh.acp._commands import commands_update, report, slash_command, switch_model
from dsh.acp._config import AcpConfig, SessionSeams, session_host_options, untrusted_lines
from dsh.acp._files import EditorFiles
from dsh.acp._modes import (
    MountedProfile,
    can_enter,
    config_options,
    mode_state,
    permission_state,
)
from dsh.acp._outbox import Outbox
from dsh.acp._tools import tool_view
from dsh.acp._trust import ask_trust
from dsh.acp._turns import notification_turns, settle_deferred, stop_reason_for
from dsh.acp._updates import Notice, Update, UpdateTranslator, call_id, notice_update
from dsh.agent import (
    MESSAGE_DISPLAY,
    TURN_ERROR,
    Agent,
    TurnResult,
    notifications_ready,
    notify_later,
    permission_notify_delay,
    watch_background,
)
from dsh.approval import ApprovalBroker, ApprovalRequest
from dsh.context import Context
from dsh.host import Host, open_host
from dsh.messages import Content
from dsh.models import Model, ModelRefusal
from dsh.session import AbortCause, SessionEvent, TurnEndReason
from dsh.tools import EXECUTE, ExecuteNext, ToolExecution, ToolResult
from dsh.tools.builtin._client_files import CLIENT_FILES
from dsh.tools.builtin._tasks import session_tasks

__all__ = ["AcpSession"]

logger = logging.getLogger("dsh.acp")


class AcpSession:
    """A dsh session driven by an ACP client; ``open`` it, ``prompt`` it, ``close`` it."""

    __slots__ = (
        "_began",
        "_client",
        "_delivery",
        "_host",
        "_models",
        "_notices",
        "_outbox",
        "_profiles",
        "_prompting",
        "_refused",
        "_resolve",
        "_stack",
        "_turn",
        "_turns",
        "_unwatch",
        "elicitation_form",
        "files",
        "id",
        "project",
        "translator",
    )

    def __init__(
        self, client: Client, project: Path, resolve: Callable[[str], Model] | None = None
    ) -> None:
        self._client = client
        self._resolve: Callable[[str], Model] = resolve or (lambda _name: self.agent.model)
        self.project = project
        self.id = ""
        self.translator = UpdateTranslator(self._put, project)
        self.translator.on_tasks = self._plan
        self._outbox = Outbox(client)
        self._stack = contextlib.AsyncExitStack()
        self._host: Host | None = None
        self._turn: asyncio.Future[TurnResult] | None = None
        self._refused = False
        self._notices: list[str] = []
        self._turns = asyncio.Lock()  # one turn at a time: the client's or a notification's
        self._prompting = False
        self._delivery: asyncio.Task[None] | None = None
        self._unwatch: Callable[[], None] | None = None
        self._profiles: tuple[MountedProfile, ...] = ()
        self.elicitation_form = False
        """Whether the client advertised ``elicitation.form`` (``DshAgent`` sets it)."""
        self.files: EditorFiles | None = None
        """The client's files, when it offers them (``DshAgent`` sets it)."""
        self._began = "default"
        self._models: tuple[str, ...] = ()

    # -- lifecycle ---------------------------------------------------------------------

    async def open(
        self,
        config: AcpConfig,
        *,
        resume: str | None,
        notices: Sequence[str],
        mcp_servers: Sequence[Any] = (),
    ) -> None:
        """Open the host; ``resume`` continues that session (``session/load``). What the
        project controls and is not trusted is asked about first (``ask_trust``)."""
        seams = SessionSeams(
            approval=ApprovalBroker(AcpApprovalChannel(self._ask)),
            plugin=self._plugin,
            on_event=self._on_event,
            on_text=self.translator.text,
        )
        session_id = resume if resume is not None else str(uuid.uuid4())  # as the store's
        trust = False
        if not config.trust_projects:
            pending = untrusted_lines(config, self.project)
            trust = bool(pending) and await ask_trust(
                self._client, session_id, self.project, pending
            )
        options = session_host_options(
            config,
            self.project,
            seams,
            resume=resume,
            session_id=None if resume is not None else session_id,
            trust=trust,
            mcp_servers=mcp_servers,
        )
        self._profiles = tuple(MountedProfile(p) for p in options.profiles)
        options = dataclasses.replace(options, profiles=self._profiles)
        self._models = config.models
        self._host = await self._stack.enter_async_context(open_host(options))
        self.id = self._host.session.id
        if self._host.assembly.mcp is not None:  # after the hooks' listeners (`_elicitation`)
            from dsh.acp._elicitation import AcpElicitation
            from dsh.mcp import ELICITATION

            form = AcpElicitation(self._client, lambda: self.id, form=self.elicitation_form)
            self._host.ctx.on(ELICITATION, form.answer)
        state = permission_state(self._profiles)
        self._began = state.mode if state is not None else "default"
        self._notices = [*(str(d) for d in self._host.diagnostics), *notices]
        self._outbox.start(self.id)
        self._unwatch = watch_background(self._host.agent, self._background_finished)

    @property
    def agent(self) -> Agent:
        assert self._host is not None, "the session is not open"
        return self._host.agent

    # -- modes and configuration options (``_modes``) ----------------------------------

    def modes(self) -> SessionModeState | None:
        return mode_state(permission_state(self._profiles), self._began)

    def config_options(self) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
        state = permission_state(self._profiles)
        return config_options(state, self._began, self.agent.model.name, self._models)

    def set_mode(self, mode: str) -> None:
        """``session/set_mode`` (or the ``mode`` option): the permission mode from now on."""
        state = permission_state(self._profiles)
        if state is None:
            raise RequestError.invalid_params(
                {"modeId": f"{mode}: this session has no permission modes (no Claude Code hooks)"}
            )
        if not can_enter(state, self._began, mode):
            raise RequestError.invalid_params({"modeId": f"not a mode of this session: {mode}"})
        state.mode = mode
        state.mode_source = "set by the ACP client"
        self._put(CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode))
        self._put(self._options_update())

    async def set_option(
        self, option: str, value: str
    ) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
        """``session/set_config_option``: ``mode`` or ``model`` (a switch hooks may refuse)."""
        if option == "mode":
            self.set_mode(value)
        elif option == "model":
            if self.running:
                raise RequestError(-32600, "the model changes between turns: wait for the answer")
            said = await switch_model(self.agent, value, self._resolve)
            if said is not None:
                raise RequestError.invalid_params({"value": said})
            self._put(self._options_update())
        else:
            raise RequestError.invalid_params({"configId": f"no such option: {option}"})
        await self.flush()
        return self.config_options()

    def _options_update(self) -> ConfigOptionUpdate:
        return ConfigOptionUpdate(
            session_update="config_option_update", config_options=list(self.config_options())
        )

    @property
    def running(self) -> bool:
        return self._turn is not None or self._prompting

    async def replay(self) -> None:
        """The session's history as updates (``session/load``), then the slash commands, all
        sent when this returns."""
        replay = UpdateTranslator(self._put, self.project, replay=True)
        for event in self.agent.events:
            replay.event(event)
        replay.flush()
        self.announce_commands()
        await self.flush()

    async def close(self) -> None:
        """End the session: session-end fires once (its hooks run), then the host closes."""
        if self._unwatch is not None:
            self._unwatch()
        if self._turn is not None:
            self.agent.cancel(AbortCause(kind="user", reason="the ACP client went away"))
        if self._delivery is not None:
            self._delivery.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._delivery
        try:
            await self._stack.aclose()
        except Exception:
            logger.exception("session %s: closing failed", self.id)
        await self._outbox.close()

    # -- the turn ----------------------------------------------------------------------

    async def prompt(self, content: Content) -> PromptResponse:
        if self._prompting:
            raise RequestError(
                -32600,
                f"session {self.id} is already answering a prompt: wait for its answer, or "
                "send session/cancel, before sending another",
                {"sessionId": self.id},
            )
        self._prompting = True
        try:
            async with self._turns:  # after a notification turn that is running
                self._pending_notices()
                command = slash_command(content)
                if command is not None:
                    return await self._command(*command)
                result = await self._run(content)
        finally:
            self._prompting = False
        return PromptResponse(stop_reason=stop_reason_for(result, refused=self._refused))

    def _pending_notices(self) -> None:
        """What the session's opening left to say (hooks left out, settings diagnostics)."""
        for text in self._notices:
            self._put(Notice(text, "warning", "dsh", uuid.uuid4().hex))
        self._notices = []

    def announce_commands(self) -> None:
        """Offer the slash commands dsh runs (``available_commands_update``)."""
        self._put(commands_update())

    async def _command(self, name: str, rest: str) -> PromptResponse:
        """A slash command dsh runs itself (``_commands``)."""
        if name == "init":
            from dsh.instructions._init import INIT_PROMPT

            result = await self._run(INIT_PROMPT + (f"\n\n{rest}" if rest else ""))
            return PromptResponse(stop_reason=stop_reason_for(result, refused=self._refused))
        self.translator.flush()
        if name == "compact":
            summary = await self.agent.compact(rest or None)
            self.translator.flush()
            said = (
                "Compacted: the summary above replaces the conversation so far."
                if summary is not None
                else "Not compacted (a hook vetoed it, or it failed)."
            )
        else:
            state = permission_state(self._profiles)
            said = await report(name, rest, agent=self.agent, state=state, resolve=self._resolve)
            if name == "model" and rest:
                self._put(self._options_update())
        self._put(notice_update(said, level="info", source="dsh", key=uuid.uuid4().hex))
        await self.flush()
        return PromptResponse(stop_reason="end_turn")

    async def _run(self, content: Content | None) -> TurnResult:
        """One turn (``content`` the client's prompt; ``None``: the ready notifications'),
        all its updates sent when it returns."""
        assert self._host is not None
        agent = self._host.agent
        self.translator.stream_text = not self._host.ctx.listeners(MESSAGE_DISPLAY)
        self.translator.show_prompts = content is None
        self._refused = False
        self._pending_notices()
        try:
            if content is not None and agent.pending_calls:
                # A loaded session's deferred calls are settled before its next prompt.
                await self._settle_deferred()
            if content is not None:
                agent.send(content)
                work = agent.run_turn()
            else:
                work = notification_turns(agent)
            result = await self._await_turn(work)
            if result.end_reason == TurnEndReason.deferred:
                result = await self._settle_deferred() or result
        finally:
            self.translator.show_prompts = False
        self.translator.flush()
        await self.flush()
        return result

    async def _settle_deferred(self) -> TurnResult | None:
        """Each deferred call put to the client and its turn run on (``_turns``)."""
        return await settle_deferred(self.agent, self._ask, self._await_turn)

    async def _await_turn(self, work: Awaitable[TurnResult]) -> TurnResult:
        """``work`` (a turn) as the session's running turn, until it ends."""
        agent = self.agent
        turn = self._turn = asyncio.ensure_future(work)
        try:
            result = await asyncio.shield(turn)
        except asyncio.CancelledError:
            # The connection is closing: the turn ends as aborted, its tools killed.
            agent.cancel(AbortCause(kind="user", reason="the ACP client went away"))
            with contextlib.suppress(Exception):
                await turn
            raise
        finally:
            self._turn = None
        return result

    # -- background subagents' notification turns -------------------------------------

    def _background_finished(self) -> None:
        """A background subagent finished: its notification turn runs once no turn does."""
        if self._delivery is None or self._delivery.done():
            self._delivery = asyncio.create_task(self._deliver(), name=f"dsh-acp-notify-{self.id}")

    async def _deliver(self) -> None:
        try:
            while notifications_ready(self.agent) and not self.agent.closed:
                async with self._turns:
                    if notifications_ready(self.agent):
                        await self._run(None)
        except Exception:  # never a crash of the connection: the session's log has it
            logger.exception("session %s: a notification turn failed", self.id)

    def cancel(self) -> None:
        """``session/cancel``: abort the running turn (nothing when none runs)."""
        if self._turn is not None:
            self.agent.cancel(
                AbortCause(kind="user", reason="cancelled by the client (session/cancel)")
            )

    # -- the host's seams --------------------------------------------------------------

    def _plugin(self, ctx: Context) -> None:
        ctx.on(EXECUTE, self._execute)
        ctx.on(TURN_ERROR, self._turn_error)

    async def _execute(self, execution: ToolExecution, next: ExecuteNext) -> ToolResult:
        call = execution.call
        if call.agent is self.agent:
            self.translator.started(call.tool_use_id, str(call.token))
        if self.files is None:
            return await next()
        token = CLIENT_FILES.set(self.files)  # Read/Write/Edit go through the editor
        try:
            return await next()
        finally:
            CLIENT_FILES.reset(token)

    async def _turn_error(self, agent: Agent, error: Exception) -> None:
        if agent is self.agent and isinstance(error, ModelRefusal):
            self._refused = True

    def _on_event(self, event: SessionEvent) -> None:
        self.translator.event(event)

    def _plan(self) -> None:
        entries = []
        for task in session_tasks(self.agent.workspace):
            status: PlanEntryStatus = task.status
            words = task.active_form if status == "in_progress" and task.active_form else None
            entries.append(plan_entry(words or task.subject, priority="medium", status=status))
        self._put(update_plan(entries))

    async def _ask(
        self, req: ApprovalRequest, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        self.translator.flush()
        await self.flush()
        key = call_id(req.tool_use_id, f"dsh-approval-{uuid.uuid4().hex}")
        view = self.translator.view(key) or tool_view(req.tool_name, req.arguments, self.project)
        call = permission_call(key, req.tool_name, view, req.reason)
        # 2.1.332's words over its SDK, once the question has waited 6 s unanswered.
        message = f"Claude needs your permission to use {req.tool_name}"
        answered = notify_later(self.agent, message, "permission_prompt", permission_notify_delay())
        try:
            return await self._client.request_permission(
                session_id=self.id, tool_call=call, options=options
            )
        finally:
            answered()

    # -- the outbox --------------------------------------------------------------------

    @property
    def notices(self) -> bool:
        """Whether the client advertised ``session.notices`` (``DshAgent`` sets it)."""
        return self._outbox.notices

    @notices.setter
    def notices(self, value: bool) -> None:
        self._outbox.notices = value

    def _put(self, update: Update) -> None:
        self._outbox.put(update)

    async def flush(self) -> None:
        """Wait until every update produced so far has been written to the client."""
        await self._outbox.flush()
