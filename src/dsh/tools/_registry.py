"""``ToolRegistry``: tool definitions, guards, and the two steps of a call, seal and run.

``seal`` is phase 1: copy and freeze the caller's arguments (they must be
JSON), check the identity's shape, validate against the tool
(``INVALID_ARGS``), run the ``tools/rewrite-input`` chain (each replacement
validated again), and seal the effective input into the call's identity.
The caller logs the call, then ``run`` takes it through the phases, each
inside a normalization boundary (a seal failure skips straight to 7):

2. ``tools/pre-execute`` waterfall: allow, deny, or ask;
3. ask: the ``APPROVAL`` service's ``approval/request`` waterfall (allow,
   deny, or abstain), then on abstain the service itself; only an allowed
   outcome goes on, and no agent or no service is a denial;
4. guards: sync, any denial wins, none can allow;
5. ``tools/execute`` wrappers around core dispatch of the tool body (an
   unknown tool is normalized there: ``UNKNOWN_TOOL``);
6. normalization of whatever the body and every listener produced;
7. ``tools/post-execute`` waterfall, for every outcome; the registry applies
   the decision to its own snapshot of the result;
8. the final frozen result goes to ``tools/result`` observers and back to the
   caller: the same object.

Each call has a slot for listeners, ``call.state`` (``CallState``, made at
sealing): the registry drops what it holds once the ``tools/result``
observers have seen the result, whatever the end.

A failure anywhere becomes an ``is_error`` result with a stable code whose
content is the reason; nothing but the caller's own cancellation escapes.
``execute`` is seal then run, for callers that log nothing in between.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import TYPE_CHECKING

from dsh.base import AbortSignal, DshError, FrozenDict, race
from dsh.base._signal import SignalAbortedError
from dsh.context import Context, Disposer, ServiceKey
from dsh.context._chain import describe
from dsh.messages import ToolUse
from dsh.tools._call_state import drop
from dsh.tools._channels import EXECUTE, POST_EXECUTE, PRE_EXECUTE, RESULT, REWRITE_INPUT
from dsh.tools._failures import DEFERRED, aborted_before, exc_text
from dsh.tools._identity import CallToken, ToolCall, ToolExecutionResult, ToolRequest
from dsh.tools._schema import compile_validator
from dsh.tools._seal import Entry, SealFailure, remember_validator, rewrite, seal_request
from dsh.tools._types import ToolCaller, ToolDefinition, ToolResult, Workspace

if TYPE_CHECKING:  # a call's phases and dispatch: imported by run, at a tool's first call
    from dsh.tools._dispatch import Dispatch
    from dsh.tools._phases import Guard

__all__ = ["TOOLS", "ToolRegistrationError", "ToolRegistry"]

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class ToolRegistrationError(DshError, ValueError):
    """A tool definition cannot be registered (bad name, bad schema, duplicate)."""


class _Core:
    """What every scoped view of one registry shares."""

    __slots__ = ("ctx", "definitions", "entries", "guards", "workspace")

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.entries: dict[str, Entry] = {}
        self.definitions: tuple[ToolDefinition, ...] = ()
        # Copy-on-write, like the context's listener lists.
        self.guards: tuple[Guard, ...] = ()
        self.workspace: Workspace | None = None


class ToolRegistry:
    """The tools of a context tree, and the pipeline that runs them.

    Provide it as the ``TOOLS`` service (``ctx.provide(TOOLS, ToolRegistry(ctx))``);
    ``ctx.require(TOOLS)`` then hands each plugin scope a view whose
    registrations and guards are removed when that scope is disposed.
    """

    __slots__ = ("_core", "_only", "_scope")

    def __init__(self, ctx: Context) -> None:
        self._core = _Core(ctx)
        self._scope = ctx
        self._only: frozenset[str] | None = None

    def bound_to(self, scope: Context) -> ToolRegistry:
        """This registry as seen from ``scope``: what it installs goes with the scope."""
        if scope is self._scope:
            return self
        view = ToolRegistry.__new__(ToolRegistry)
        view._core = self._core
        view._scope = scope
        view._only = self._only
        return view

    def limited_to(self, names: frozenset[str] | None) -> ToolRegistry:
        """This registry with only the tools ``names`` (``None``: all of them): a subagent
        type's tools. The others are neither offered nor run (an unknown tool to the call)."""
        view = ToolRegistry.__new__(ToolRegistry)
        view._core = self._core
        view._scope = self._scope
        view._only = names
        return view

    # -- definitions ------------------------------------------------------------

    def register(self, definition: ToolDefinition) -> Disposer:
        """Add a tool (removed when this view's scope is disposed, or by the disposer)."""
        if not isinstance(definition, ToolDefinition):
            raise ToolRegistrationError(
                f"register() takes a ToolDefinition, not {type(definition).__name__}"
            )
        name = definition.name
        if not isinstance(name, str) or not _NAME.match(name):
            raise ToolRegistrationError(
                f"tool name {name!r} must be 1 to 64 letters, digits, '_' or '-'"
            )
        if not isinstance(definition.description, str):
            raise ToolRegistrationError(f"tool {name!r}: description must be a str")
        if not callable(definition.run):
            raise ToolRegistrationError(f"tool {name!r}: run is not callable")
        core = self._core
        existing = core.entries.get(name)
        if existing is not None:
            raise ToolRegistrationError(
                f"tool {name!r} is already registered; unregister it first or pick another name"
            )
        try:
            validate = compile_validator(name, definition.input_schema, definition.input_model)
        except ValueError as exc:
            raise ToolRegistrationError(str(exc)) from exc
        entry = Entry(definition, validate)
        remember_validator(definition, validate)

        def remove() -> None:
            if core.entries.get(name) is entry:
                del core.entries[name]
                core.definitions = tuple(e.definition for e in core.entries.values())

        disposer = self._scope.add_disposer(remove)
        core.entries[name] = entry
        core.definitions = (*core.definitions, definition)
        return disposer

    def unregister(self, name: str) -> None:
        """Remove the tool called ``name``; ``KeyError`` when there is none."""
        core = self._core
        if name not in core.entries:
            raise KeyError(f"no tool named {name!r} is registered")
        del core.entries[name]
        core.definitions = tuple(e.definition for e in core.entries.values())

    def get(self, name: str) -> ToolDefinition | None:
        if self._only is not None and name not in self._only:
            return None
        entry = self._core.entries.get(name)
        return entry.definition if entry is not None else None

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """Every registered tool, in registration order."""
        if self._only is not None:
            return tuple(d for d in self._core.definitions if d.name in self._only)
        return self._core.definitions

    def _entries(self) -> dict[str, Entry]:
        entries = self._core.entries
        if self._only is None:
            return entries
        return {name: e for name, e in entries.items() if name in self._only}

    # -- guards -----------------------------------------------------------------

    def guard(self, fn: Guard) -> Disposer:
        """Install a terminal guard (removed with this view's scope, or by the disposer)."""
        if not callable(fn):
            raise TypeError(f"a guard must be callable, not {fn!r}")
        if inspect.iscoroutinefunction(fn):
            raise TypeError(f"guards are synchronous; {describe(fn)} is a coroutine function")
        core = self._core

        def remove() -> None:
            core.guards = tuple(g for g in core.guards if g is not fn)

        disposer = self._scope.add_disposer(remove)
        core.guards = (*core.guards, fn)
        return disposer

    @property
    def guards(self) -> tuple[Guard, ...]:
        return self._core.guards

    # -- the two steps of a call ----------------------------------------------------

    async def seal(
        self,
        request: ToolRequest | ToolUse,
        *,
        agent: ToolCaller | None = None,
        parent: CallToken | None = None,
        signal: AbortSignal | None = None,
    ) -> ToolCall | SealFailure:
        """Phase 1: the sealed call, or the call as far as it was sealed with its failure.

        The ``tools/rewrite-input`` chain runs here (the input is rewritten
        before identity). A ``tool_use_id`` that is not a str, or a ``parent``
        that is not a ``CallToken``, is a failure (``INVALID_ARGS``), not an
        exception.
        """
        if signal is not None and type(signal) is not AbortSignal:
            raise _bad_signal(signal)
        core = self._core
        call, failure = seal_request(self._entries(), request, agent, parent)
        if failure is None and call.tool is not None:
            rewriters = core.ctx.listeners(REWRITE_INPUT)
            if rewriters and (signal is None or not signal.aborted):
                # Sealing found the entry just now (no await since): it is there.
                validate = core.entries[call.name].validate
                try:
                    call, failure = await race(rewrite(rewriters, call, validate), signal)
                except SignalAbortedError:
                    failure = aborted_before(signal)
        return call if failure is None else SealFailure(call, failure)

    async def run(
        self,
        sealed: ToolCall | SealFailure,
        *,
        signal: AbortSignal | None = None,
        workspace: Workspace | None = None,
    ) -> ToolExecutionResult:
        """Phases 2 to 8 for a sealed call; never raises for the call's own failures.

        ``workspace`` defaults to the caller's (``call.agent.workspace``), then
        to a registry-wide one in the current directory.
        """
        if signal is not None and type(signal) is not AbortSignal:
            raise _bad_signal(signal)
        if type(sealed) is SealFailure:
            call, result = sealed.call, sealed.result
        elif type(sealed) is ToolCall:
            call, result = sealed, None
        else:
            raise TypeError(f"run() takes a sealed call, not {type(sealed).__name__}")
        if workspace is None:
            workspace = self._workspace(call.agent)
        ctx = self._core.ctx
        contexts: tuple[str, ...] = ()
        run: Dispatch | None = None
        approval: FrozenDict | None = None
        # A call's phases, dispatch and result bounds (a run that calls no tool never imports them).
        from dsh.tools._dispatch import Dispatch
        from dsh.tools._persist import cut_error, persist_oversized
        from dsh.tools._phases import decide, post_execute

        try:
            if result is None and signal is not None and signal.aborted:
                result = aborted_before(signal)
            if result is None:
                fns = ctx.listeners(PRE_EXECUTE)
                if fns:
                    result, contexts, approval = await decide(ctx, fns, call, signal)
            if result is None:
                result = self._guard(call)
            if result is None:
                if signal is not None and signal.aborted:
                    result = aborted_before(signal)
                else:
                    wrappers = ctx.listeners(EXECUTE)
                    run = Dispatch(call, ctx, wrappers)
                    work = run.start if wrappers else run.dispatch
                    # A failure's text as the model and PostToolUseFailure see it.
                    result = cut_error(call, await work(signal, workspace))
            post_fns = ctx.listeners(POST_EXECUTE)
            # A deferred call has not run: nothing after it (2.1.332 fires no PostToolUse).
            if post_fns and result.code != DEFERRED:
                result, more = await post_execute(post_fns, call, result, signal)
                contexts += more
            # What the model will see, bounded: the one place every tool's result passes.
            result = persist_oversized(call, result, workspace.tool_results_dir)
        except Exception as exc:
            # The outer boundary: a fault in the pipeline itself.
            text = exc_text(exc)
            result = ToolResult(
                f"the tool pipeline failed: {text}",
                None,
                True,
                "LISTENER_ERROR",
                FrozenDict(phase="pipeline", error=text),
            )
        except BaseException:
            # The caller's own cancellation: the call ends here, and its slot with it.
            drop(call.state)
            raise
        ctx.emit_sync(RESULT, call, result)
        drop(call.state)
        dispatched = run is not None and run.dispatched
        return ToolExecutionResult(call, result, dispatched, contexts, approval)

    async def execute(
        self,
        request: ToolRequest | ToolUse,
        *,
        agent: ToolCaller | None = None,
        parent: CallToken | None = None,
        signal: AbortSignal | None = None,
        workspace: Workspace | None = None,
    ) -> ToolExecutionResult:
        """Seal then run, for a caller that logs nothing between the two."""
        sealed = await self.seal(request, agent=agent, parent=parent, signal=signal)
        return await self.run(sealed, signal=signal, workspace=workspace)

    def _guard(self, call: ToolCall) -> ToolResult | None:
        from dsh.tools._phases import run_guard  # imported by run already

        for guard in self._core.guards:
            result = run_guard(guard, call)
            if result is not None:
                return result
        return None

    def _workspace(self, agent: ToolCaller | None) -> Workspace:
        if agent is not None:
            return agent.workspace
        core = self._core
        if core.workspace is None:
            core.workspace = Workspace(Path.cwd())
        return core.workspace

    def __repr__(self) -> str:
        names = ", ".join(self._core.entries)
        return f"<ToolRegistry scope={self._scope.name!r} tools=[{names}]>"


def _bad_signal(signal: object) -> TypeError:
    return TypeError(f"signal must be an AbortSignal or None, not {type(signal).__name__}")


def _bind(registry: ToolRegistry, scope: Context) -> ToolRegistry:
    return registry.bound_to(scope)


TOOLS: ServiceKey[ToolRegistry] = ServiceKey("tools", bind=_bind)
"""The tool registry service; ``ctx.require(TOOLS)`` is bound to the asking scope."""
