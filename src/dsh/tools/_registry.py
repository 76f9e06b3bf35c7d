"""``ToolRegistry``: tool definitions, guards, and the execution pipeline.

``execute`` runs exactly these phases, each inside a normalization boundary:

1. seal: copy and freeze the caller's arguments (they must be JSON), resolve
   the tool (``UNKNOWN_TOOL``), validate (``INVALID_ARGS``), run the
   ``tools/rewrite-input`` chain (each replacement validated again: an invalid
   one is ``INVALID_ARGS`` naming the rewriter), then seal the effective input
   into the call's identity (``on_sealed``); a seal failure skips straight to
   post-execute;
2. ``tools/pre-execute`` waterfall: allow, deny, or ask;
3. ask: the ``approval/request`` waterfall (allow, deny, or abstain), then
   on abstain the ``APPROVAL`` service; only an allowed outcome goes on;
4. guards: sync, any denial wins, none can allow;
5. ``tools/execute`` wrappers around core dispatch of the tool body;
6. normalization of whatever the body and every listener produced;
7. ``tools/post-execute`` waterfall, for every outcome; the registry applies
   the decision to its own snapshot of the result;
8. the final frozen result goes to ``tools/result`` observers and back to the
   caller: the same object.

A failure anywhere becomes an ``is_error`` result with a stable code whose
content is the reason; nothing but the caller's own cancellation escapes.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar, cast, final

from dsh._frozen import frozen
from dsh.approval import (
    APPROVAL,
    ApprovalBroker,
    ApprovalDecision,
    ApprovalRequest,
    reply_outcome,
)
from dsh.base import DshError
from dsh.context import (
    ChannelError,
    Context,
    Disposer,
    Next,
    NextCalledTwiceError,
    ServiceKey,
    describe,
)
from dsh.session import AbortCause, FrozenDict, NotJSONError, TextBlock, ToolUse, freeze_json
from dsh.tools._channels import (
    APPROVAL_REQUEST,
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    REWRITE_INPUT,
    ExecuteListener,
    RewriteListener,
)
from dsh.tools._decisions import (
    GuardDenial,
    InputRewrite,
    PostToolDecision,
    PreToolDecision,
    check_content,
)
from dsh.tools._identity import (
    CallToken,
    ProposedCall,
    ToolCall,
    ToolExecution,
    ToolExecutionResult,
    ToolRequest,
    mint_token,
)
from dsh.tools._schema import ArgumentErrors, ArgumentValidator, compile_validator
from dsh.tools._signal import AbortedError, AbortSignal
from dsh.tools._types import (
    FAILURE_CODES,
    FailureCode,
    OutputMismatchError,
    ToolDefinition,
    ToolInvocation,
    ToolResult,
    Workspace,
)

__all__ = ["TOOLS", "Guard", "ToolRegistrationError", "ToolRegistry", "validate_arguments"]

logger = logging.getLogger("dsh.tools")

T = TypeVar("T")

Guard = Callable[[ToolCall], GuardDenial | None]
"""A terminal policy: deny with a ``GuardDenial`` or abstain with ``None``."""

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_EMPTY = FrozenDict()
_ALLOW = PreToolDecision.allow()
_ABSTAIN = ApprovalDecision.abstain()
_KEEP: Any = object()


class ToolRegistrationError(DshError, ValueError):
    """A tool definition cannot be registered (bad name, bad schema, duplicate)."""


@final
@frozen
class _Entry:
    definition: ToolDefinition
    validate: ArgumentValidator


class _Core:
    """What every scoped view of one registry shares."""

    __slots__ = ("ctx", "definitions", "entries", "guards", "workspace")

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.entries: dict[str, _Entry] = {}
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

    __slots__ = ("_core", "_scope")

    def __init__(self, ctx: Context) -> None:
        self._core = _Core(ctx)
        self._scope = ctx

    def bound_to(self, scope: Context) -> ToolRegistry:
        """This registry as seen from ``scope``: what it installs goes with the scope."""
        if scope is self._scope:
            return self
        view = ToolRegistry.__new__(ToolRegistry)
        view._core = self._core
        view._scope = scope
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
        entry = _Entry(definition, validate)
        _remember_validator(definition, validate)

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
        entry = self._core.entries.get(name)
        return entry.definition if entry is not None else None

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """Every registered tool, in registration order."""
        return self._core.definitions

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

    # -- the pipeline -----------------------------------------------------------

    async def execute(
        self,
        request: ToolRequest | ToolUse,
        *,
        agent: Any = None,
        parent: CallToken | None = None,
        signal: AbortSignal | None = None,
        workspace: Workspace | None = None,
        on_sealed: Callable[[ToolCall], None] | None = None,
    ) -> ToolExecutionResult:
        """Run one tool call through every phase; never raises for the call's own failures.

        ``on_sealed(call)`` runs right after sealing, with the effective
        input (an exception from it propagates: it is the caller's own
        code). ``workspace`` defaults to
        ``agent.workspace``, then to a registry-wide one in the current directory.
        """
        if parent is not None and type(parent) is not CallToken:
            raise TypeError(f"parent must be a CallToken or None, not {type(parent).__name__}")
        if signal is not None and type(signal) is not AbortSignal:
            raise TypeError(f"signal must be an AbortSignal or None, not {type(signal).__name__}")
        core = self._core
        call, result = _seal(core, request, agent, parent)
        if result is None:
            rewriters = core.ctx.listeners(REWRITE_INPUT)
            if rewriters and (signal is None or not signal.aborted):
                # Sealing found the entry just now (no await since): it is there.
                validate = core.entries[call.name].validate
                chain = _rewrite(rewriters, call, validate)
                try:
                    call, result = await (chain if signal is None else _abortable(chain, signal))
                except _AbortedDuring:
                    result = _aborted_before(cast(AbortSignal, signal))
        if on_sealed is not None:
            on_sealed(call)
        if workspace is None:
            workspace = getattr(agent, "workspace", None) if agent is not None else None
            if not isinstance(workspace, Workspace):
                workspace = core.workspace
                if workspace is None:
                    workspace = core.workspace = Workspace(Path.cwd())
        ctx = core.ctx
        contexts: tuple[str, ...] = ()
        dispatched = False
        approval: FrozenDict | None = None
        try:
            if result is None and signal is not None and signal.aborted:
                result = _aborted_before(signal)

            # 2. pre-execute, 3. ask
            if result is None:
                fns = ctx.listeners(PRE_EXECUTE)
                decision = _ALLOW
                if fns:
                    work = _waterfall(
                        "pre-execute", PRE_EXECUTE.name, fns, (call,), _ALLOW, PreToolDecision
                    )
                    try:
                        decision, result = await (
                            work if signal is None else _abortable(work, signal)
                        )
                    except _AbortedDuring:
                        result = _aborted_before(cast(AbortSignal, signal))
                if result is None:
                    contexts = decision.additional_context
                    if decision.kind == "deny":
                        reason = cast(str, decision.reason)
                        extra = {"info": decision.info} if decision.info is not None else {}
                        result = _denied("pre-execute", reason, **extra)
                    elif decision.kind == "ask":
                        result, approval = await _ask(
                            ctx, call, cast(str, decision.reason), agent, signal
                        )

            # 4. guards
            if result is None:
                for guard in core.guards:
                    result = _run_guard(guard, call)
                    if result is not None:
                        break

            # 5. around dispatch, and dispatch
            if result is None:
                if signal is not None and signal.aborted:
                    result = _aborted_before(signal)
                else:
                    run = _Dispatch(call, agent, ctx, ctx.listeners(EXECUTE))
                    result = await run.start(signal, workspace)
                    dispatched = run.dispatched

            # 7. post-execute
            post_fns = ctx.listeners(POST_EXECUTE)
            if post_fns:
                post = _post_execute(post_fns, call, result)
                try:
                    # Post-execute runs for every outcome, an aborted one included; only
                    # an abort that lands while it runs cuts it short.
                    racing = signal is not None and not signal.aborted
                    settled, more = await (
                        _abortable(post, signal) if signal is not None and racing else post
                    )
                except _AbortedDuring:
                    pass  # cancelled mid-policy: the result stands as the tool left it
                else:
                    result = settled
                    contexts += more
        except Exception as exc:
            # The outer boundary: a fault in the pipeline itself.
            text = _exc_text(exc)
            result = ToolResult(
                f"the tool pipeline failed: {text}",
                None,
                True,
                "LISTENER_ERROR",
                FrozenDict(phase="pipeline", error=text),
            )

        # 8. the final result, frozen JSON; observers see the object the caller gets
        ctx.emit_sync(RESULT, call, result)
        return ToolExecutionResult(call, result, dispatched, contexts, approval)

    def __repr__(self) -> str:
        names = ", ".join(self._core.entries)
        return f"<ToolRegistry scope={self._scope.name!r} tools=[{names}]>"


def _bind(registry: ToolRegistry, scope: Context) -> ToolRegistry:
    return registry.bound_to(scope)


TOOLS: ServiceKey[ToolRegistry] = ServiceKey("tools", bind=_bind)
"""The tool registry service; ``ctx.require(TOOLS)`` is bound to the asking scope."""


# -- phase 1: seal ----------------------------------------------------------------


def _seal(
    core: _Core, request: object, agent: Any, parent: CallToken | None
) -> tuple[ToolCall, ToolResult | None]:
    """The caller's call, checked (the rewrite chain comes after, when there is one)."""
    if type(request) is not ToolRequest:
        if isinstance(request, ToolUse):
            request = ToolRequest.from_tool_use(request)
        else:
            raise TypeError(f"execute() takes a ToolRequest, not {type(request).__name__}")
    req = request
    name = req.name if isinstance(req.name, str) else str(req.name)
    use_id = req.tool_use_id
    if use_id is not None and type(use_id) is not str:
        raise TypeError(f"tool_use_id must be a str or None, not {type(use_id).__name__}")
    # Minted here but seen by nobody before ``on_sealed``: rewriters get no token.
    token = mint_token()
    entry = core.entries.get(name)
    tool = entry.definition if entry is not None else None
    try:
        arguments = freeze_json(req.arguments)
    except NotJSONError as exc:
        call = ToolCall(name, _EMPTY, token, parent, use_id, tool, agent)
        return call, _invalid_args(name, ({"path": exc.path, "message": exc.problem},))
    except RecursionError:
        call = ToolCall(name, _EMPTY, token, parent, use_id, tool, agent)
        return call, _invalid_args(name, ({"path": "$", "message": "nested too deeply"},))
    if type(arguments) is not FrozenDict:
        call = ToolCall(name, _EMPTY, token, parent, use_id, tool, agent)
        problem = f"arguments must be a JSON object, not {_json_type(arguments)}"
        return call, _invalid_args(name, ({"path": "$", "message": problem},))
    call = ToolCall(name, arguments, token, parent, use_id, tool, agent)
    if entry is None:
        return call, ToolResult(
            f"No such tool available: {name}", None, True, "UNKNOWN_TOOL", FrozenDict(tool=name)
        )
    try:
        errors = entry.validate(arguments)
    except Exception as exc:
        errors = ({"path": "$", "message": f"the validator failed: {_exc_text(exc)}"},)
    if errors is not None:
        return call, _invalid_args(name, errors)
    return call, None


def _check(validate: ArgumentValidator, arguments: FrozenDict) -> ArgumentErrors | None:
    try:
        return validate(arguments)
    except Exception as exc:
        return ({"path": "$", "message": f"the validator failed: {_exc_text(exc)}"},)


async def _rewrite(
    fns: tuple[RewriteListener, ...], call: ToolCall, validate: ArgumentValidator
) -> tuple[ToolCall, ToolResult | None]:
    """The ``tools/rewrite-input`` chain, in registration order: the effective call.

    Each listener sees the input as the previous one left it; ``keep`` or
    ``None`` changes nothing. A replacement is validated before the next
    listener sees it, so an invalid one refuses the call (``INVALID_ARGS``
    naming the listener) and no later listener runs; so does a listener that
    raises (``LISTENER_ERROR``). The call that comes back carries the input
    as it stood, with the original and the rewriters' names once changed.
    """
    tool = cast(ToolDefinition, call.tool)
    original = call.arguments
    current = original
    rewriters: list[str] = []
    failure: ToolResult | None = None
    for fn in fns:
        proposed = ProposedCall(
            call.name, current, original, call.tool_use_id, tool, call.agent, call.parent
        )
        try:
            answer = await fn(proposed)
            if answer is not None and type(answer) is not InputRewrite:
                raise ChannelError(
                    f"listener {describe(fn)} on channel {REWRITE_INPUT.name} returned "
                    f"{type(answer).__name__}, not an InputRewrite or None"
                )
        except Exception as exc:
            failure = _Failure("rewrite-input", fn, exc).result()
            break
        if answer is None or answer.kind == "keep":
            continue
        arguments = cast(FrozenDict, answer.arguments)
        if _same_json(arguments, current):
            continue
        who = describe(fn)
        errors = _check(validate, arguments)
        if errors is not None:
            failure = _invalid_rewrite(call.name, who, errors, arguments)
            break
        if answer.reason is not None:
            logger.info("%s rewrote the input of %s: %s", who, call.name, answer.reason)
        current = arguments
        rewriters.append(who)
    if not rewriters:
        return call, failure
    rewritten = ToolCall(
        call.name,
        current,
        call.token,
        call.parent,
        call.tool_use_id,
        tool,
        call.agent,
        original,
        tuple(rewriters),
    )
    return rewritten, failure


def _same_json(a: object, b: object) -> bool:
    """Equal as JSON: ``1``, ``1.0`` and ``True`` differ (Python's ``==`` says they match)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        b_map = cast(dict[str, object], b)
        return a.keys() == b_map.keys() and all(_same_json(v, b_map[k]) for k, v in a.items())
    if isinstance(a, tuple):
        b_items = cast(tuple[object, ...], b)
        return len(a) == len(b_items) and all(
            _same_json(x, y) for x, y in zip(a, b_items, strict=True)
        )
    return a == b


def _invalid_rewrite(
    name: str, rewriter: str, errors: ArgumentErrors, arguments: FrozenDict
) -> ToolResult:
    return _invalid_args(
        f"{name} from the input rewrite of {rewriter}",
        errors,
        rewriter=rewriter,
        rewritten_arguments=arguments,
    )


# Validators by definition, for ``validate_arguments`` (a definition compiles once).
_VALIDATORS: dict[int, tuple[ToolDefinition, ArgumentValidator]] = {}
_VALIDATORS_MAX = 256


def _remember_validator(definition: ToolDefinition, validate: ArgumentValidator) -> None:
    if len(_VALIDATORS) >= _VALIDATORS_MAX:
        _VALIDATORS.clear()
    _VALIDATORS[id(definition)] = (definition, validate)


def validate_arguments(tool: ToolDefinition, arguments: object) -> ArgumentErrors | None:
    """Check ``arguments`` against ``tool``'s input as sealing does: ``None`` when valid.

    Otherwise the errors, each a ``{"path", "message"}`` dict. For a
    ``tools/rewrite-input`` listener that would rather not replace the input
    than have the call refused (the Claude Code bridge's ``updatedInput``).
    ``ValueError`` when the tool's schema is unusable.
    """
    known = _VALIDATORS.get(id(tool))
    if known is not None and known[0] is tool:
        validate = known[1]
    else:
        validate = compile_validator(tool.name, tool.input_schema, tool.input_model)
        _remember_validator(tool, validate)
    try:
        frozen = freeze_json(arguments)
    except NotJSONError as exc:
        return ({"path": exc.path, "message": exc.problem},)
    except RecursionError:
        return ({"path": "$", "message": "nested too deeply"},)
    if type(frozen) is not FrozenDict:
        problem = f"arguments must be a JSON object, not {_json_type(frozen)}"
        return ({"path": "$", "message": problem},)
    return _check(validate, frozen)


def _invalid_args(what: str, errors: ArgumentErrors, **extra: Any) -> ToolResult:
    """``INVALID_ARGS`` for ``what`` (a tool name, or one and who rewrote its input)."""
    detail = "; ".join(f"{e['path']}: {e['message']}" for e in errors)
    return ToolResult(
        f"Invalid arguments for {what}: {detail}",
        None,
        True,
        "INVALID_ARGS",
        FrozenDict(errors=freeze_json(errors), **extra),
    )


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array"


# -- phases 2 and 7: the waterfalls -----------------------------------------------


class _Failure(Exception):
    """The first listener failure of a chain (kept even if an outer listener swallows it)."""

    def __init__(self, phase: str, listener: object, error: BaseException) -> None:
        super().__init__(phase)
        self.phase = phase
        self.listener = listener
        self.error = error

    def result(self, output: Any = None, **extra: Any) -> ToolResult:
        name = self.listener if isinstance(self.listener, str) else describe(self.listener)
        text = _exc_text(self.error)
        return ToolResult(
            f"{self.phase} listener {name} failed: {text}",
            output,
            True,
            "LISTENER_ERROR",
            FrozenDict(phase=self.phase, listener=name, error=text, **extra),
        )


D = TypeVar("D")


async def _waterfall(
    phase: str,
    channel: str,
    fns: tuple[Callable[..., Awaitable[Any]], ...],
    args: tuple[Any, ...],
    default: D,
    returns: type[D],
) -> tuple[D, ToolResult | None]:
    """Run a decision chain; any listener failure anywhere makes it a ``LISTENER_ERROR``."""
    failed: list[_Failure] = []
    last = len(fns) - 1

    async def run(index: int) -> D:
        fn = fns[index]
        called = False

        async def next_() -> D:
            nonlocal called
            if called:
                raise NextCalledTwiceError(
                    f"listener {describe(fn)} on channel {channel} called next() twice"
                )
            called = True
            return default if index == last else await run(index + 1)

        try:
            decision = await fn(*args, cast(Next[D], next_))
        except Exception as exc:
            if not failed:
                failed.append(_Failure(phase, fn, exc))
            raise
        if type(decision) is not returns:
            error = ChannelError(
                f"listener {describe(fn)} on channel {channel} returned "
                f"{type(decision).__name__}, not a {returns.__name__}"
            )
            if not failed:
                failed.append(_Failure(phase, fn, error))
            raise error
        return decision

    try:
        decision = await run(0)
    except Exception:
        return default, failed[0].result()
    if failed:
        return default, failed[0].result()
    return decision, None


async def _post_execute(
    fns: tuple[Callable[..., Awaitable[Any]], ...],
    call: ToolCall,
    result: ToolResult,
) -> tuple[ToolResult, tuple[str, ...]]:
    # The protected snapshot: a listener that mutates ``result`` cannot reach these.
    content, output, is_error, code, info = (
        result.content,
        result.output,
        result.is_error,
        result.code,
        result.info,
    )
    accept = PostToolDecision.accept()
    decision, failure = await _waterfall(
        "post-execute", POST_EXECUTE.name, fns, (call, result), accept, PostToolDecision
    )
    if failure is not None:
        # A failure stays a failure, and a broken policy fails the call closed.
        info = FrozenDict(failure.info, original_code=code)
        return ToolResult(failure.content, output, True, "LISTENER_ERROR", info), ()
    if decision.output is not None:
        try:
            # A call without a definition (UNKNOWN_TOOL) is a failed one too.
            if is_error or call.tool is None:
                raise OutputMismatchError(
                    f"the output of a failed call ({code}) cannot be replaced; only a"
                    " successful call's can"
                )
            content = call.tool.present_output(decision.output)
        except Exception as exc:
            text = f"post-execute: {_exc_text(exc)}"
            info = FrozenDict(phase="post-execute", error=text, original_code=code)
            return ToolResult(text, output, True, "LISTENER_ERROR", info), ()
        output = decision.output
    if decision.content is not None:
        content = decision.content
    if decision.kind == "block" and decision.feedback:
        feedback = decision.feedback
        if not content:
            content = feedback
        else:
            blocks = (TextBlock(content),) if isinstance(content, str) else content
            content = (*blocks, TextBlock(feedback))
    return ToolResult(content, output, is_error, code, info), decision.additional_context


# -- phase 3: approval --------------------------------------------------------------


async def _ask(
    ctx: Context, call: ToolCall, reason: str, agent: Any, signal: AbortSignal | None
) -> tuple[ToolResult | None, FrozenDict | None]:
    """Settle an ``ask``: ``None`` lets the call go on; and the record of how it was settled."""
    session_id = getattr(agent, "session_id", None) if agent is not None else None
    req = ApprovalRequest(
        call.name,
        call.arguments,
        reason,
        session_id if isinstance(session_id, str) else None,
        call.tool_use_id,
    )

    def settled(outcome: str, by: str | None, why: str | None = None) -> FrozenDict:
        record: dict[str, Any] = {"asked": reason, "outcome": outcome}
        if by is not None:
            record["by"] = by
        if why is not None:
            record["reason"] = why
        return FrozenDict(record)

    service = ctx.get(APPROVAL) if agent is not None else None
    broker = service if isinstance(service, ApprovalBroker) else None
    if broker is not None and broker.remembers(req):
        # Allowed always earlier in this session: nobody is asked again, as a
        # Claude Code session rule means no prompt and no PermissionRequest.
        return None, settled("allowed-always", "memory")

    # The approval/request waterfall first, whether or not anyone could answer.
    fns = ctx.listeners(APPROVAL_REQUEST)
    if fns:
        work = _waterfall(
            "approval", APPROVAL_REQUEST.name, fns, (call, req), _ABSTAIN, ApprovalDecision
        )
        try:
            decision, failure = await (work if signal is None else _abortable(work, signal))
        except _AbortedDuring:
            return _aborted_before(signal), settled("cancelled", APPROVAL_REQUEST.name)
        if failure is not None:
            return failure, None
        if decision.kind == "allow":
            if decision.always and broker is not None:
                broker.remember(req)
            allowed = "allowed-always" if decision.always else "allowed-once"
            return None, settled(allowed, APPROVAL_REQUEST.name, decision.reason)
        if decision.kind == "deny":
            text = cast(str, decision.reason)
            halt = {"interrupt": True} if decision.interrupt else {}
            if decision.interrupt:
                _interrupt(agent, text)
            denied = _denied(
                "approval",
                text,
                outcome="rejected",
                channel=APPROVAL_REQUEST.name,
                asked=reason,
                **halt,
            )
            return denied, settled("rejected", APPROVAL_REQUEST.name, text)

    if agent is None:
        return _denied("approval", reason, outcome="no-agent"), settled("no-agent", None)
    if service is None:
        return _denied("approval", reason, outcome="no-service"), settled("no-service", None)
    try:
        if signal is None:
            reply = await service.request(req)
        else:
            reply = await _abortable(service.request(req), signal)
        outcome, why = reply_outcome(reply)
    except _AbortedDuring:
        return _aborted_before(signal), settled("cancelled", "service")
    except Exception as exc:
        return _Failure("approval", service, exc).result(), None
    if outcome == "allowed-once" or outcome == "allowed-always":
        return None, settled(outcome, "service", why)
    extra = {"approval_reason": why} if why is not None else {}
    denied = _denied("approval", reason, outcome=outcome or "no-channel", **extra)
    return denied, settled(outcome or "no-channel", "service", why)


def _interrupt(agent: Any, reason: str) -> None:
    """Ask the calling agent to end its turn once the step's calls have finished.

    The same request a pre-execute hook's ``continue: false`` makes; an agent
    without ``cancel`` (a bare registry caller) only gets ``interrupt`` in the
    result's ``info``.
    """
    cancel = getattr(agent, "cancel", None)
    if callable(cancel):
        cancel(AbortCause(kind="hook", reason=reason), when="after_step")


# -- phase 4: guards ----------------------------------------------------------------


def _run_guard(guard: Guard, call: ToolCall) -> ToolResult | None:
    try:
        verdict = guard(call)
    except Exception as exc:
        return _Failure("guard", guard, exc).result()
    if verdict is None:
        return None
    if type(verdict) is GuardDenial:
        extra = {"info": verdict.info} if verdict.info is not None else {}
        return _denied("guard", verdict.reason, guard=describe(guard), **extra)
    if inspect.iscoroutine(verdict):
        verdict.close()
    error = ChannelError(
        f"guard returned {type(verdict).__name__}; a guard returns a GuardDenial or None"
    )
    return _Failure("guard", guard, error).result()


# -- phases 5 and 6: around dispatch, dispatch, normalization -------------------------


class _AbortedDuring(Exception):
    """The signal aborted the awaited work (and only the signal did)."""


async def _abortable(work: Awaitable[T], signal: AbortSignal) -> T:
    """Await ``work`` in its own task, cancelled the moment ``signal`` aborts."""
    task = asyncio.ensure_future(work)

    def cancel(_reason: str) -> None:
        task.cancel()

    remove = signal.on_abort(cancel)
    try:
        return await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if signal.aborted and (current is None or current.cancelling() == 0):
            raise _AbortedDuring from None
        raise
    finally:
        remove()


class _Dispatch:
    """One call's around-dispatch chain and core dispatch."""

    __slots__ = ("agent", "call", "ctx", "dispatched", "failed", "fns", "last")

    def __init__(
        self, call: ToolCall, agent: Any, ctx: Context, fns: tuple[ExecuteListener, ...]
    ) -> None:
        self.call = call
        self.agent = agent
        self.ctx = ctx
        self.fns = fns
        self.dispatched = False
        self.failed: _Failure | None = None
        self.last: ToolResult | None = None

    async def start(self, signal: AbortSignal | None, workspace: Workspace) -> ToolResult:
        if not self.fns:
            return await self.dispatch(signal, workspace)
        try:
            result = await self.wrap(0, ToolExecution(self.call, signal, workspace))
        except Exception as exc:
            if self.failed is None:
                return _Failure("execute", "tools/execute", exc).result()
            return self.failed.result()
        if self.failed is not None:
            return self.failed.result()
        return result

    async def wrap(self, index: int, ex: ToolExecution) -> ToolResult:
        if index == len(self.fns):
            result = await self.dispatch(ex.signal, ex.workspace)
            self.last = result
            return result
        fn = self.fns[index]

        async def next_(*, signal: Any = _KEEP) -> ToolResult:
            if signal is _KEEP:
                inner = ex
            elif signal is None or type(signal) is AbortSignal:
                inner = ToolExecution(ex.call, signal, ex.workspace)
            else:
                raise TypeError(
                    f"next(signal=...) takes an AbortSignal or None, not {type(signal).__name__}"
                )
            return await self.wrap(index + 1, inner)

        try:
            raw = await fn(ex, next_)
        except Exception as exc:
            if self.failed is None:
                self.failed = _Failure("execute", fn, exc)
            raise
        if raw is self.last and raw is not None:
            return raw
        result = _normalize(raw, f"tools/execute listener {describe(fn)}")
        self.last = result
        return result

    async def dispatch(self, signal: AbortSignal | None, workspace: Workspace) -> ToolResult:
        if signal is not None and signal.aborted:
            return _aborted_before(signal)
        call = self.call
        definition = cast(ToolDefinition, call.tool)
        self.dispatched = True
        invocation = ToolInvocation(
            call.name, call.arguments, workspace, signal, self.agent, call.token, self.ctx
        )
        source = f"tool {call.name}"
        try:
            if signal is None:
                raw = await definition.run(invocation)
            else:
                raw = await _abortable(_body(definition, invocation), signal)
        except _AbortedDuring:
            return _aborted(cast(AbortSignal, signal))
        except AbortedError as exc:
            return _aborted(signal, exc.reason)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling() > 0:
                raise
            # The body cancelled itself; nobody asked for it.
            return ToolResult(
                f"the tool body of {call.name} was cancelled",
                None,
                True,
                "TOOL_ERROR",
                FrozenDict(exception="CancelledError"),
            )
        except Exception as exc:
            return ToolResult(
                _exc_text(exc),
                None,
                True,
                "TOOL_ERROR",
                FrozenDict(exception=type(exc).__name__),
            )
        result = _normalize(raw, source)
        if signal is not None and signal.aborted:
            # The body honored the signal and returned: the call was still aborted.
            output = None if result.code == "MALFORMED_RESULT" else result.output
            return _aborted(signal, output=output)
        return result


async def _body(definition: ToolDefinition, invocation: ToolInvocation) -> ToolResult:
    return await definition.run(invocation)


def _normalize(raw: object, source: str) -> ToolResult:
    """``raw`` as a valid, frozen ``ToolResult``, or a ``MALFORMED_RESULT`` naming the problem."""
    if type(raw) is not ToolResult:
        return _malformed(source, f"returned {type(raw).__name__}, not a ToolResult")
    result = raw
    content, output, is_error, code, info = (
        result.content,
        result.output,
        result.is_error,
        result.code,
        result.info,
    )
    if (
        type(content) is str
        and output is None
        and info is None
        and code is None
        and is_error is False
    ):
        return result
    try:
        content = check_content(content)
    except TypeError as exc:
        return _malformed(source, str(exc))
    if is_error is not True and is_error is not False:
        return _malformed(source, f"is_error must be a bool, not {type(is_error).__name__}")
    if code is not None and code not in FAILURE_CODES:
        return _malformed(source, f"code {code!r} is not a failure code")
    if code is not None and not is_error:
        return _malformed(source, f"a success cannot carry the failure code {code}")
    if is_error and code is None:
        code = "TOOL_ERROR"
    try:
        if output is not None and type(output) not in (str, int, bool):
            output = freeze_json(output, "$.output")
        if info is not None and type(info) not in (str, int, bool):
            info = freeze_json(info, "$.info")
    except NotJSONError as exc:
        return _malformed(source, str(exc))
    except RecursionError:
        return _malformed(source, "the result is nested too deeply")
    return ToolResult(content, output, is_error, code, info)


# -- failure results ------------------------------------------------------------------


def _exc_text(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _result(text: str, code: FailureCode, output: Any = None, /, **info: Any) -> ToolResult:
    return ToolResult(text, output, True, code, FrozenDict(info))


def _denied(by: str, reason: str, **extra: Any) -> ToolResult:
    return _result(reason, "DENIED", by=by, reason=reason, **extra)


def _malformed(source: str, problem: str) -> ToolResult:
    return _result(
        f"{source} returned a malformed result: {problem}",
        "MALFORMED_RESULT",
        source=source,
        problem=problem,
    )


def _aborted_before(signal: AbortSignal | None) -> ToolResult:
    reason = (signal.reason if signal is not None else None) or "aborted"
    return _result(reason, "ABORTED_BEFORE_DISPATCH", reason=reason)


def _aborted(
    signal: AbortSignal | None, reason: str | None = None, output: Any = None
) -> ToolResult:
    text = reason or (signal.reason if signal is not None else None) or "aborted"
    return _result(text, "ABORTED", output, reason=text)
