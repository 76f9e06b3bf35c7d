"""The bridge's shared machinery: Claude Code's common payload fields and the firing.

``Runtime`` holds what every event's listener uses (one per plugin; each handler
group, ``_handlers.Handlers``, takes it): the catalog, the custom commands and the
session's settings, the per-session state (``dsh.hook_protocol.SessionStates``
keyed by the root agent), the transcript each hook may read, the common
payload fields in Claude Code's order, and ``_fire``, which runs the hooks through
``dsh.hook_protocol.fire_hooks`` with Claude Code's answer rules and hook environment
(``_hook_env``), ``async: true`` hooks in the background. The effects every event shares
(``systemMessage``, ``continue: false``, exit 2 shown to the user, ``additionalContext``)
are here too, and the ``if``-aware hook selection of tool events; how an answer reads
(what blocks, halts, adds context) is ``_answers``'; the events themselves are the handler
groups (``_lifecycle``, ``_turn_end``, ``_subagents``, ``_tool_events``,
``_permission_events``, ``_command_events``, ``_session_commands``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dsh._frozen import frozen, slotted
from dsh.agent import Agent
from dsh.agent._background import background_subagents
from dsh.base._env_policy import model_keys
from dsh.hook_protocol import (
    HookOutcome,
    HookRun,
    HookSelection,
    MergedAnswers,
    RoutedSink,
    SessionStates,
    WrongEvent,
    fire_hooks,
    logged_before,
    skipped_event,
)
from dsh.hook_protocol._sessions import root_session
from dsh.hook_protocol._slots import in_background
from dsh.hooks.claude.answers._answer import HookAnswer
from dsh.hooks.claude.answers._caps import Saver
from dsh.hooks.claude.answers._decode import decode_answer
from dsh.hooks.claude.events._specs import EFFORT_LEVEL
from dsh.hooks.claude.rules._modes import PermissionMode
from dsh.hooks.claude.runtime._agent_hooks import is_hook_agent
from dsh.hooks.claude.runtime._answers import (
    Merged,
    PreToolOutcome,
    event_context,
    fail_closed_reason,
    halting,
    shown_reason,
)
from dsh.hooks.claude.runtime._extensions import extensions_on, usage_so_far
from dsh.hooks.claude.runtime._hook_env import (
    ENV_FILE_EVENTS,
    claude_env,
    env_files,
    make_plugin_data,
)
from dsh.hooks.claude.runtime._judged import in_process
from dsh.hooks.claude.runtime._no_decision import no_decision_notice
from dsh.hooks.claude.runtime._persisted_output import output_saver
from dsh.hooks.claude.runtime._why import SKIP_RECORDS, firing_skips, skipped_selections
from dsh.hooks.claude.settings._agents import AgentSet
from dsh.hooks.claude.settings._commands import CommandSet
from dsh.hooks.claude.settings._types import Catalog, HookDeclaration
from dsh.hooks.claude.transcript._projection import (
    TranscriptWriter,
    claude_json,
    default_transcript_dir,
    project_slug,
)
from dsh.session import AbortCause
from dsh.tools import CallStateKey

if TYPE_CHECKING:
    from dsh.hooks.claude.permissions._plugin import PermissionState

__all__ = ["SOURCE", "AgentState", "PermissionMode", "Runtime", "background_tasks"]


SOURCE: Final = "claude-hooks"


@slotted
class AgentState:
    """Per-session bookkeeping: the current prompt id, the compaction trigger, hooks running."""

    prompt_id: str | None = None
    compact_trigger: str = "manual"
    # `async: true` hooks still running; the session's end cancels what is left.
    background: set[asyncio.Task[None]] = field(default_factory=set)
    # the subagents whose SubagentStop fired on their continuation seam (by agent id)
    subagents_stopped: set[str] = field(default_factory=set)
    # dsh's opt-in Stop counter: how many times in a row each Stop hook blocked (by place)
    stop_blocks: dict[str, int] = field(default_factory=dict)
    # the hooks of the skills loaded so far (from the call after the load on), and those
    # loaded by a call still running
    skill_hooks: list[HookDeclaration] = field(default_factory=list)
    skill_hooks_pending: list[HookDeclaration] = field(default_factory=list)
    # the `once: true` frontmatter hooks that ran already (by dedup key)
    once_fired: set[Hashable] = field(default_factory=set)
    # `hook/skipped`: the events whose left-out handlers were logged, and how many so far
    skips_given: set[str] = field(default_factory=set)
    skip_records: int = 0
    # SessionStart's text, which 2.1.332 sends after the first prompt, in one message with
    # what UserPromptSubmit's hooks add
    session_context: str = ""


def background_tasks(agent: Agent) -> list[dict[str, str]]:
    """Stop's and SubagentStop's ``background_tasks``: the session's background subagents
    still running, as 2.1.332 lists them."""
    return [
        {
            "id": b.agent_id,
            "type": "subagent",
            "status": "running",
            "description": b.description,
            "agent_type": b.agent_type,
        }
        for b in background_subagents(root_session(agent))
    ]


@frozen
class _ClaudeRules:
    """Claude Code's answer rules for one event (``dsh.hook_protocol.AnswerRules``)."""

    event: str
    save: Saver | None = None  # a long context or stdout saved to a file (_persisted_output)

    def decode(self, run: HookRun) -> HookAnswer | WrongEvent | None:
        return decode_answer(run, self.event, self.save)

    def fail_closed(self, outcome: HookOutcome[HookAnswer]) -> HookAnswer:
        run = outcome.run
        return HookAnswer(
            exit_code=run.exit_code if run.exit_code is not None else -1,
            blocking_error=fail_closed_reason(outcome),
            # 2.1.332 blocks a prompt without quoting it (`prompt-onfailure-exit1`).
            suppress_original_prompt=True,
        )

    def to_json(self, answer: HookAnswer) -> object:
        return answer.to_json()


class Runtime:
    """The settings and the machinery every listener of the bridge shares: one per plugin,
    which each handler group takes."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        permission_mode: PermissionMode = "bypassPermissions",
        transcript_dir: Path | None = None,
        effort: str | None = EFFORT_LEVEL,
        attended: bool = False,
        permissions: PermissionState | None = None,
        commands: CommandSet | None = None,
        agents: AgentSet | None = None,
        left_out: Mapping[str, Sequence[HookSelection]] | None = None,
    ) -> None:
        self.catalog = catalog
        # What the catalog never had, by event ("*": every event), for `hook/skipped`.
        self.left_out = left_out if left_out is not None else {}
        self.commands = commands if commands is not None else CommandSet()
        self.agents = agents if agents is not None else AgentSet()
        # The events a skill's or an agent's frontmatter has hooks for: their listeners
        # are mounted even when no settings file declares them.
        self._scoped_events = self.agents.hook_events() | {
            e for c in self.commands.commands for e, hooks in c.hooks.items() if hooks
        }
        self._permission_mode: PermissionMode = permission_mode
        self.permissions = permissions
        self.transcript_dir = transcript_dir
        self.effort = effort
        self.attended = attended
        # Per root agent, not per session id: a resumed session is a new process in
        # Claude Code, with no prompt id until its first prompt.
        self._state: SessionStates[Agent, AgentState] = SessionStates(AgentState)
        # A call's own, in its slot: PreToolUse's outcome (from tools/rewrite-input to
        # tools/pre-execute) and when the call started (for PostToolUse's duration_ms).
        self._pre_tool_outcome: CallStateKey[PreToolOutcome] = CallStateKey("claude-hooks.pre-tool")
        self._started: CallStateKey[float] = CallStateKey("claude-hooks.started")
        self._transcripts: dict[Path, TranscriptWriter] = {}
        # Set by the FileChanged watch (``_watch``) when it is mounted.
        self.on_watch_paths: Callable[[Agent, Sequence[str]], None] | None = None
        self._legacy_warned: set[Hashable] = set()
        keys = model_keys(os.environ)  # never to a hook, wherever they are set
        self._settings_env = {k: v for k, v in catalog.env.items() if k not in keys}

    @property
    def permission_mode(self) -> PermissionMode:
        """The mode hooks are sent: the permission policy's current one, when it is mounted."""
        return self.permissions.mode if self.permissions is not None else self._permission_mode

    def watch_paths_from(self, agent: Agent, merged: Merged) -> None:
        """A SessionStart, CwdChanged or FileChanged firing's ``watchPaths`` (the last answer
        with one), handed to the FileChanged watch (``_watch``), when one is mounted."""
        found: tuple[str, ...] | None = None
        for _, answer in merged.answers:
            if answer.watch_paths is not None:
                found = answer.watch_paths
        if found is not None and self.on_watch_paths is not None:
            self.on_watch_paths(agent, found)

    def declared(self, event: str) -> bool:
        return bool(self.catalog.for_event(event)) or event in self._scoped_events

    def scoped(self, agent: Agent, event: str, value: str | None) -> tuple[HookDeclaration, ...]:
        """The frontmatter hooks of ``event`` that apply to ``agent`` and match ``value``: its
        own agent type's (a subagent's), then the session's loaded skills'. A ``once: true``
        hook is handed out the first time only."""
        found: list[HookDeclaration] = []
        if agent.parent is not None:
            own = self.agents.get(agent.agent_type)
            if own is not None:
                found.extend(own.hooks.get(event, ()))
        state = self._state(agent)
        if event == "PreToolUse" and state.skill_hooks_pending:
            # A skill's hooks start with the call after the one that loaded it (2.1.332).
            state.skill_hooks.extend(state.skill_hooks_pending)
            state.skill_hooks_pending.clear()
        found.extend(h for h in state.skill_hooks if h.event == event)
        out = []
        for hook in found:
            if not hook.matches(value) or (hook.once and hook.dedup_key in state.once_fired):
                continue
            if hook.once:
                state.once_fired.add(hook.dedup_key)
            out.append(hook)
        return tuple(out)

    def load_skill_hooks(
        self, agent: Agent, hooks: Mapping[str, Sequence[HookDeclaration]]
    ) -> None:
        """A skill was loaded: its hooks apply from the session's next tool call on."""
        state = self._state(agent)
        known = {h.dedup_key for h in (*state.skill_hooks, *state.skill_hooks_pending)}
        for decls in hooks.values():
            state.skill_hooks_pending.extend(h for h in decls if h.dedup_key not in known)

    def _tool_hooks(
        self, event: str, name: str, arguments: Mapping[str, Any], agent: Agent
    ) -> tuple[HookDeclaration, ...]:
        """The hooks of a tool event for this call: matcher, then ``if`` (as Claude Code);
        the settings' first, then the frontmatter's (``scoped``)."""
        cwd = agent.workspace.cwd
        chosen = tuple(
            h
            for h in (*self.catalog.matching(event, name), *self.scoped(agent, event, name))
            if h.if_rule is None or h.if_rule.admits(name, arguments, cwd=cwd)
        )
        # The handlers left out, and why, for `dsh log ID --hooks --why` (`hook/skipped`).
        about = {"tool_name": name, "tool_input": arguments}
        self._log_skipped(agent, event, skipped_selections(self.catalog, event, chosen, about, cwd))
        return chosen

    def _log_skipped(
        self,
        agent: Agent,
        event: str,
        skipped: Sequence[HookSelection],
        to: Agent | None = None,
        *,
        once: bool = False,
    ) -> None:
        """One ``hook/skipped`` event for ``skipped``, while the session's bound allows;
        ``once``: not when the session's log has it already (``logged_before``)."""
        state = self._state(agent)
        record = skipped_event(event, skipped) if state.skip_records < SKIP_RECORDS else None
        if record is not None and not (once and logged_before(record, (to or agent).events)):
            state.skip_records += 1
            (to or agent).append_events([record], durable=False)

    def _firing_skipped(
        self,
        agent: Agent,
        event: str,
        hooks: Sequence[HookDeclaration],
        payload: Any,
        to: Agent | None,
        *,
        once: bool = False,
    ) -> None:
        """Log the handlers this firing runs without (``firing_skips``): the catalog's left-out
        ones the first time ``event`` fires in the session, matcher and duplicates each time
        (``once``: unless the session's log has the same record, ``_log_skipped``)."""
        state = self._state(agent)
        left_out: Sequence[HookSelection] = ()
        if self.left_out and event not in state.skips_given:
            state.skips_given.add(event)
            left_out = (*self.left_out.get(event, ()), *self.left_out.get("*", ()))
        cwd = agent.workspace.cwd
        self._log_skipped(
            agent,
            event,
            firing_skips(self.catalog, event, hooks, payload, cwd, left_out),
            to,
            once=once,
        )

    def transcript_path(self, agent: Agent) -> Path:
        """Where ``agent``'s (root session's) transcript is written."""
        root = root_session(agent)
        base = self.transcript_dir if self.transcript_dir is not None else default_transcript_dir()
        project = root.workspace.project_dir or root.workspace.cwd
        return base / project_slug(project) / f"{root.session_id}.jsonl"

    def _session_env_dir(self) -> Path:
        """Where the ``CLAUDE_ENV_FILE``s go: beside the transcripts, in dsh's data dir by
        default (dsh's session state, so not Claude Code's config dir)."""
        base = self.transcript_dir if self.transcript_dir is not None else default_transcript_dir()
        return base.parent / "claude-session-env"

    def _base(
        self,
        agent: Agent,
        event: str,
        *,
        prompt_id: bool = True,
        permission: bool = True,
        agent_fields: bool = True,
        effort: bool = True,
        as_agent: tuple[str, str] | None = None,
    ) -> Any:
        """The common fields, in Claude Code's order; the caller types it as its event's
        payload (``payloads``), so that mypy checks every field it adds.

        ``as_agent``: the ``agent_id`` and ``agent_type`` to send instead of the agent's
        (the compaction's SubagentStop is an agent of its own)."""
        root = root_session(agent)
        payload: dict[str, Any] = {
            "session_id": root.session_id,
            "transcript_path": str(self.transcript_path(agent)),
            "cwd": str(agent.workspace.cwd),
        }
        pid = self._state(agent).prompt_id
        if prompt_id and pid is not None:
            payload["prompt_id"] = pid
        hook_agent = is_hook_agent(agent)  # 2.1.332: `dontAsk`, an id and no type
        if permission:
            payload["permission_mode"] = (
                "dontAsk"
                if hook_agent
                else self.permissions.mode_for(agent)
                if self.permissions is not None
                else self.permission_mode
            )
        if as_agent is not None:
            payload["agent_id"], payload["agent_type"] = as_agent
        elif agent_fields and agent.parent is not None:
            payload["agent_id"] = agent.agent_id
            if not hook_agent:
                payload["agent_type"] = agent.agent_type
        if effort and self.effort is not None:
            payload["effort"] = {"level": self.effort}
        payload["hook_event_name"] = event
        if extensions_on():  # dsh's opt-in `dsh` key (runtime._extensions)
            payload["dsh"] = {"usage": usage_so_far(agent)}
        return payload

    async def _fire(
        self,
        agent: Agent,
        event: str,
        hooks: Sequence[HookDeclaration],
        payload: Mapping[str, Any],
        *,
        log_to: Agent | None = None,
        detached: bool = False,
    ) -> Merged:
        """Run ``hooks`` with ``payload``; log them; return the decided answers in order.

        ``detached``: not cancelled by the running turn's signal (a background hook).
        """
        if not detached:
            self._firing_skipped(agent, event, hooks, payload, log_to)
        if not detached and event != "SessionEnd" and any(h.run_async for h in hooks):
            # Claude Code does not wait for `async: true` hooks: their answers come later.
            # Not at SessionEnd: nothing is left to deliver to, and a firing left running
            # there outlives the session (dsh's exit waited for it forever). Those run with
            # the others, each cut at the SessionEnd budget.
            background = [h for h in hooks if h.run_async]
            self._fire_background(agent, event, background, payload, self._async_answers(agent))
            hooks = [h for h in hooks if not h.run_async]
        if not hooks:
            return MergedAnswers()
        root = root_session(agent)
        path = self.transcript_path(agent)
        writer = self._transcripts.get(path)
        if writer is None:
            writer = self._transcripts[path] = TranscriptWriter(
                path, session_id=root.session_id, permission_mode=self.permission_mode
            )
        writer.sync(root.events, cwd=root.workspace.cwd)
        # As Claude Code writes it: compact JSON, UTF-8 raw, one trailing newline.
        data = (claude_json(payload) + "\n").encode("utf-8")
        # Settings `env` first (2.1.332 has it in its own environment), Claude Code's over it.
        env = {**self._settings_env, **claude_env(root, payload, attended=self.attended)}
        make_plugin_data(hooks)
        files = None
        if event in ENV_FILE_EVENTS:
            files = env_files(self._session_env_dir() / root.session_id, root, event, len(hooks))
        handlers = []
        for n, hook in enumerate(hooks):
            own = env if files is None else {**env, "CLAUDE_ENV_FILE": str(files[n])}
            call = in_process(hook, agent, path) if hook.kind != "command" else None
            handlers.append((hook, hook.to_command(cwd=agent.workspace.cwd, env=own, call=call)))
        # The running turn's signal: `agent.cancel(..., when="now")` ends the hooks'
        # process groups and their runs come back `cancelled` (no decision).
        sink: Agent | RoutedSink = agent
        if detached:
            sink = RoutedSink(agent, None)
        elif log_to is not None:
            sink = RoutedSink(log_to, agent.signal if agent.signal is not None else log_to.signal)
        save = output_saver(agent.workspace.tool_results_dir, event, payload, root.session_id)
        merged = await fire_hooks(handlers, data, sink=sink, rules=_ClaudeRules(event, save))
        warning = no_decision_notice(event, merged)
        if warning is not None:
            agent.notice(warning, source=f"{SOURCE}:{event}", level="warning")
        return merged

    def _fire_background(
        self,
        agent: Agent,
        event: str,
        hooks: Sequence[HookDeclaration],
        payload: Mapping[str, Any],
        deliver: Callable[[Merged], None],
    ) -> None:
        """Run ``async: true`` hooks without waiting; ``deliver`` their answers when done.

        Logged to ``agent`` like any firing, but not cancelled with its turn: only
        ``_settle_background`` (the session's end) cancels them, closing their trail.
        """
        if not hooks:
            return

        async def run() -> None:
            with in_background():  # the background limit's slots: never the foreground's
                merged = await self._fire(agent, event, hooks, payload, detached=True)
            deliver(merged)

        tasks = self._state(agent).background
        task = asyncio.get_running_loop().create_task(run(), name=f"claude-hooks:{event}:async")
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def _async_answers(self, agent: Agent) -> Callable[[Merged], None]:
        """How an ``async: true`` hook's answer reaches the model, as 2.1.332 delivers it: its
        ``systemMessage`` and ``additionalContext`` as one context message ``M\\nC`` (no event
        prefix) before the first model request after it finished; decisions have no effect."""

        def deliver(merged: Merged) -> None:
            for decl, answer in merged:
                lines = [t for t in (answer.system_message, answer.additional_context) if t]
                if lines:
                    agent.inject("\n".join(lines), source=f"{SOURCE}:{decl.event}")

        return deliver

    async def _settle_background(self, agent: Agent) -> None:
        """Cancel the session's ``async: true`` hooks still running and wait for them: each
        invocation gets its (cancelled) ``hook/result`` before the session ends."""
        tasks = list(self._state(agent).background)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _common_effects(self, agent: Agent, event: str, merged: Merged) -> None:
        """``systemMessage`` as notices; ``continue: false`` halts after the step."""
        for _, answer in merged:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{SOURCE}:{event}")
        stop = halting(merged)
        if stop is not None:
            reason = stop.stop_reason or f"{event} hook stopped the session"
            agent.cancel(AbortCause(kind="hook", reason=reason), when="after_step")

    def _user_errors(self, agent: Agent, event: str, merged: Merged) -> None:
        """Exit 2 where it cannot block: stderr shown to the user as a hook-error notice,
        after ``[<command>]: `` as Claude Code shows it (SessionEnd: its own line)."""
        for decl, answer in merged:
            if answer.blocking_error is None:
                continue
            if event == "SessionEnd":
                stderr = answer.blocking_error.strip() or "No stderr output"
                text = f"SessionEnd hook [{decl.declared_command}] failed: {stderr}"
            else:
                text = f"{event} hook error: {shown_reason(decl, answer)}"
            agent.notice(text, source=f"{SOURCE}:{event}", level="warning")

    def _inject_contexts(
        self, agent: Agent, event: str, merged: Merged, *, plain_as: str | None
    ) -> None:
        """The hooks' ``additionalContext`` and (named ``plain_as``) plain stdout as one
        context message (``event_context``)."""
        text = event_context(event, merged, plain_as=plain_as)
        if text:
            agent.inject(text, source=f"{SOURCE}:{event}")
