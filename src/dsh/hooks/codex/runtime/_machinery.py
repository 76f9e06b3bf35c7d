"""The Codex bridge's shared machinery: Codex's common payload fields, stdin, shell, answers.

``Runtime`` holds what every listener uses (one per plugin; each handler group,
``_handlers.Handlers``, takes it): the catalog, the permission mode
sent, the per-session state (``dsh.hook_protocol.SessionStates``), the common
fields in Codex's order (``session_id``, ``turn_id``, ``transcript_path``,
``cwd``, ``hook_event_name``, ``model``, ``permission_mode``, and
``agent_id``/``agent_type`` inside a subagent), the stdin as Codex writes it
(compact JSON, UTF-8 as is, no trailing newline), the shell (the user's,
``-c``, non-login), the environment (Codex adds nothing but what it was
started with; dsh passes ``CODEX_HOME`` so a hook finds the same home), and
``_fire``, which runs the hooks through ``dsh.hook_protocol.fire_hooks`` with
Codex's strict answer rules. Every output those rules reject is shown to the
user as a warning notice naming the hook and the reason (Codex marks the run
Failed on its status line).
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from dsh._frozen import frozen, slotted
from dsh.agent import Agent
from dsh.hook_protocol import (
    BackgroundFirings,
    HookDecodeError,
    HookOutcome,
    HookRun,
    MergedAnswers,
    RoutedSink,
    SessionStates,
    fire_hooks,
)
from dsh.hook_protocol._context_total import within_total
from dsh.hook_protocol._sessions import root_session
from dsh.hooks.codex.answers._decode import CodexAnswer, decode_codex_answer
from dsh.hooks.codex.config._trust import DEFAULT_CONTEXT_LIMIT
from dsh.hooks.codex.config._types import CodexCatalog, CodexHook, CodexPermissionMode
from dsh.hooks.codex.events._specs import MATCHER_FIELDS, run_id_label
from dsh.tools import CallStateKey

if TYPE_CHECKING:  # an mcp_tool handler's runner: dsh.hook_protocol loads it on first use
    from dsh.hook_protocol import InProcessHook

__all__ = [
    "SOURCE",
    "CodexMerged",
    "CodexPermissionMode",
    "CodexState",
    "PreToolOutcome",
    "Runtime",
    "codex_stdin",
    "hook_run_id",
]

SOURCE: Final = "codex-hooks"

ASYNC_LIMIT: Final = 8
"""Codex's bound on a session's ``async: true`` firings running at once."""

CodexMerged: TypeAlias = MergedAnswers[CodexHook, CodexAnswer]


@frozen
class PreToolOutcome:
    """PreToolUse's merged answer for one call: the first denial's reason, the contexts."""

    denial: str | None
    contexts: tuple[str, ...]


@slotted
class CodexState:
    """Per-session bookkeeping: the compaction trigger, hooks running, the watched signal."""

    compact_trigger: str = "manual"
    compact_session_start: bool = False
    background: set[asyncio.Task[None]] = field(default_factory=set)
    watched: object = None  # the turn signal whose abort fires Interrupt
    # `async: true` hooks still running: the session's end cancels them (Codex kills them).
    async_runs: BackgroundFirings = field(default_factory=lambda: BackgroundFirings(ASYNC_LIMIT))
    # `hook/skipped`: the events whose untrusted handlers were logged, and how many so far
    skips_given: set[str] = field(default_factory=set)
    skip_records: int = 0


SKIP_RECORDS: Final = 1000
"""At most this many ``hook/skipped`` events per session (a long session's log stays bounded)."""


def codex_stdin(payload: Mapping[str, Any]) -> bytes:
    """The payload as Codex writes it: compact JSON, UTF-8 raw, no trailing newline."""
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    # A lone surrogate (from a hostile prompt) goes out as its JSON escape.
    return text.encode("utf-8", "backslashreplace")


def _mcp_call(agent: Agent, hook: CodexHook) -> InProcessHook | None:
    """What runs an ``mcp_tool`` handler: a call on the session's servers (``None``: not one)."""
    if hook.mcp_tool is None:
        return None
    from dsh.hooks.codex.runtime._mcp_tool_hook import CodexMcpToolHook
    from dsh.mcp._session import MCP  # only where such a hook fires

    return CodexMcpToolHook(servers=agent.ctx.get(MCP), target=hook.mcp_tool)


def hook_run_id(hook: CodexHook) -> str:
    """``stop:10:/abs/hooks.json``: Codex's id of one hook run (the Stop continuation's)."""
    return f"{run_id_label(hook.event)}:{hook.display_order}:{hook.source}"


def _user_shell() -> str:
    shell = os.environ.get("SHELL", "")
    if os.path.isabs(shell) and os.access(shell, os.X_OK):
        return shell
    return "/bin/sh"


def _context_only(answer: CodexAnswer) -> CodexAnswer:
    return CodexAnswer(
        additional_context=answer.additional_context,
        system_message=answer.system_message,
        plain=answer.plain,
    )


class _CodexRules:
    """Codex's answer rules for one firing; keeps each rejection to show the user."""

    def __init__(self, event: str) -> None:
        self.event = event
        self.rejected: list[str] = []

    def decode(self, run: HookRun) -> CodexAnswer | None:
        try:
            return decode_codex_answer(run, self.event)
        except HookDecodeError as exc:
            stderr = run.stderr.strip()
            detail = f" (stderr: {stderr[:500]})" if stderr and exc.kind == "nonzero_exit" else ""
            self.rejected.append(f"{exc.reason}{detail}")
            raise

    def fail_closed(self, outcome: HookOutcome[CodexAnswer]) -> CodexAnswer:
        return CodexAnswer()  # Codex is fail-open: no handler is declared to block on failure

    def to_json(self, answer: CodexAnswer) -> object:
        return answer.to_json()


class Runtime:
    """The settings and the machinery every listener of the Codex bridge shares: one per
    plugin, which each handler group takes."""

    def __init__(
        self, catalog: CodexCatalog, *, permission_mode: CodexPermissionMode = "bypassPermissions"
    ) -> None:
        self.catalog = catalog
        self.permission_mode: CodexPermissionMode = permission_mode
        self._state: SessionStates[Agent, CodexState] = SessionStates(CodexState)
        # PreToolUse's outcome, in the call's own slot from tools/rewrite-input to pre-execute.
        self._pre_tool_outcome: CallStateKey[PreToolOutcome] = CallStateKey("codex-hooks.pre-tool")
        self._shell = _user_shell()

    def _log_skipped(
        self,
        agent: Agent,
        event: str,
        hooks: Sequence[CodexHook],
        payload: Mapping[str, Any],
        to: Agent | None,
        *,
        once: bool = False,
    ) -> None:
        """One ``hook/skipped`` for the handlers this firing runs without (``dsh log ID
        --hooks --why``): untrusted ones once per event and session, bounded per session
        (``once``: not when the session's log has the same record, ``logged_before``)."""
        state = self._state(agent)
        if state.skip_records >= SKIP_RECORDS or len(hooks) == self._declared_count(event):
            return
        # Only when a handler is left out: the reasons, and the record that says them.
        from dsh.hook_protocol import logged_before, skipped_event
        from dsh.hooks.codex.config._selection import firing_skips

        trust = event not in state.skips_given
        state.skips_given.add(event)
        record = skipped_event(
            event, firing_skips(self.catalog, event, hooks, payload, trust=trust)
        )
        if record is not None and not (once and logged_before(record, (to or agent).events)):
            state.skip_records += 1
            (to or agent).append_events([record], durable=False)

    def _matching(
        self, agent: Agent, event: str, value: str | None, *, log_to: Agent | None = None
    ) -> list[CodexHook]:
        """The running hooks of ``event`` that ``value`` selects; when the event has handlers
        and none is selected, the firing that does not happen is a ``hook/skipped`` (each
        handler's matcher, and the first time the untrusted ones), as the Claude bridge's."""
        hooks = self.catalog.matching(event, value)
        if not hooks and self._declared_count(event):
            field = MATCHER_FIELDS.get(event)
            self._log_skipped(agent, event, (), {field: value} if field else {}, log_to)
        return hooks

    def _declared_count(self, event: str) -> int:
        return sum(1 for h in self.catalog.hooks if h.event == event)

    def declared(self, event: str) -> bool:
        return self.catalog.declared(event)

    def _base(
        self,
        agent: Agent,
        event: str,
        *,
        turn: bool = True,
        model: bool = True,
        permission: bool = True,
    ) -> Any:
        """The common fields, in Codex's order; the caller types it as its event's payload
        (``payloads``), so that mypy checks every field it adds."""
        root = root_session(agent)
        payload: dict[str, Any] = {"session_id": root.session_id}
        if turn:
            payload["turn_id"] = agent.turn_id or root.turn_id or str(uuid.uuid4())
        if agent.parent is not None:
            payload["agent_id"] = agent.agent_id
            payload["agent_type"] = agent.agent_type or "default"
        path = root.session.path
        payload["transcript_path"] = str(path) if path is not None else None
        payload["cwd"] = str(agent.workspace.cwd)
        payload["hook_event_name"] = event
        if model:
            payload["model"] = agent.model.name
        if permission:
            payload["permission_mode"] = self.permission_mode
        return payload

    def _env(self) -> dict[str, str]:
        home = self.catalog.codex_home
        return {"CODEX_HOME": str(home)} if home is not None else {}

    async def _fire(
        self,
        agent: Agent,
        event: str,
        hooks: Sequence[CodexHook],
        payload: Mapping[str, Any],
        *,
        log_to: Agent | None = None,
        detached: bool = False,
        skips_logged: bool = False,
    ) -> CodexMerged:
        """Run ``hooks`` with ``payload``; log them; show what was rejected; return the answers.

        ``log_to``: the session whose log gets the events (a subagent's parent);
        ``detached``: not cancelled by the running turn's signal (Interrupt's);
        ``skips_logged``: the firing's ``hook/skipped`` is written already (an ``async:
        true`` hook's own run, ``_fire_async``). The ``async: true`` hooks among ``hooks``
        are not waited for.
        """
        if not skips_logged:
            self._log_skipped(agent, event, hooks, payload, log_to)
        if not detached and any(h.run_async for h in hooks):
            self._fire_async(agent, event, [h for h in hooks if h.run_async], payload, log_to)
            hooks = [h for h in hooks if not h.run_async]
        if not hooks:
            return MergedAnswers()
        env = self._env()
        cwd = agent.workspace.cwd
        handlers = [
            (h, h.to_command(shell=self._shell, cwd=cwd, env=env, call=_mcp_call(agent, h)))
            for h in hooks
        ]
        rules = _CodexRules(event)
        sink: Agent | RoutedSink = agent
        if detached:
            sink = RoutedSink(log_to if log_to is not None else agent, None)
        elif log_to is not None:
            sink = RoutedSink(log_to, agent.signal if agent.signal is not None else log_to.signal)
        merged = await fire_hooks(handlers, codex_stdin(payload), sink=sink, rules=rules)
        if any(h.run_async for h, _ in merged):
            # Codex ignores an async hook's block, stop and feedback: only its context counts.
            merged = MergedAnswers(
                tuple((h, _context_only(a) if h.run_async else a) for h, a in merged.answers)
            )
        notify = log_to if log_to is not None else agent
        for reason in rules.rejected:
            notify.notice(
                f"{event} hook failed: {reason}", source=f"{SOURCE}:{event}", level="warning"
            )
        for _, answer in merged:
            if answer.system_message:
                notify.notice(answer.system_message, source=f"{SOURCE}:{event}", level="warning")
            if answer.halt and answer.stop_reason:
                notify.notice(
                    f"{event} hook stopped: {answer.stop_reason}", source=f"{SOURCE}:{event}"
                )
        return merged

    def _fire_async(
        self,
        agent: Agent,
        event: str,
        hooks: Sequence[CodexHook],
        payload: Mapping[str, Any],
        log_to: Agent | None,
    ) -> None:
        """Start ``async: true`` hooks in the background, as Codex 0.171 runs them (checked with
        the binary): the turn goes on at once; when they are done, each one's
        ``additionalContext`` (or accepted plain stdout) reaches the model before the next
        request, ``systemMessage`` and rejections are shown, and a block, a stop or feedback
        counts for nothing. At most ``ASYNC_LIMIT`` run at once; the session's end kills
        what is still running."""

        runs = self._state(agent).async_runs
        for hook in hooks:  # each on its own: the bound counts hooks, each delivers when done

            async def run(hook: CodexHook = hook) -> None:
                merged = await self._fire(
                    agent, event, [hook], payload, log_to=log_to, detached=True, skips_logged=True
                )
                self._inject_contexts(agent, event, merged)

            runs.start(run, name=f"codex-hooks:{event}:async")

    def _inject_contexts(self, agent: Agent, event: str, merged: CodexMerged) -> None:
        """Each ``additionalContext`` (or accepted plain stdout) as its own context message,
        all of them within the event's total."""
        texts = [
            (hook.command, self._bounded(agent, hook, text))
            for hook, answer in merged
            if (text := answer.additional_context or answer.plain)
        ]
        for text in within_total(event, texts):
            agent.inject(text, source=f"{SOURCE}:{event}")

    def _contexts(self, agent: Agent, event: str, merged: CodexMerged) -> tuple[str, ...]:
        """A tool event's ``additionalContext`` texts, each within its hook's limit and all of
        them within the event's total (``within_total``: a note names the hooks left out)."""
        texts = [
            (hook.command, self._bounded(agent, hook, answer.additional_context))
            for hook, answer in merged
            if answer.additional_context
        ]
        return tuple(within_total(event, texts)) if texts else ()

    def _bounded(self, agent: Agent, hook: CodexHook, text: str) -> str:
        """``text`` as the model may read it: over the hook's ``additionalContextLimit``
        (4 bytes a token; 2500 tokens unless set, 0 for no limit) it is written to a file
        beside the session log and the model reads its start and end and the path, as Codex
        spills it (``_spill``)."""
        from dsh.hooks.codex.runtime._spill import BYTES_PER_TOKEN, spilled_text

        tokens = hook.additional_context_limit
        limit = (DEFAULT_CONTEXT_LIMIT if tokens is None else tokens) * BYTES_PER_TOKEN
        if limit == 0 or len(text.encode("utf-8", "surrogatepass")) <= limit:
            return text
        root = root_session(agent)
        path = root.session.path
        if path is None:
            return spilled_text(text, limit, None)
        folder = path.with_name(f"{root.session_id}-hook-output")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            spill = folder / f"{uuid.uuid4()}.txt"
            spill.write_text(text, encoding="utf-8", errors="backslashreplace")
        except OSError:
            return spilled_text(text, limit, None)
        return spilled_text(text, limit, spill)

    def _settle(self, agent: Agent) -> asyncio.Future[list[Any]]:
        """Wait for the session's background firings (Interrupt hooks) to finish."""
        tasks = list(self._state(agent).background)
        return asyncio.gather(*tasks, return_exceptions=True)
