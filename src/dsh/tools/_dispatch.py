"""Phases 5 and 6: the ``tools/execute`` wrappers around core dispatch, and normalization.

Core dispatch runs the tool body (or answers ``UNKNOWN_TOOL`` for a call no
tool has the name of) inside a normalization boundary, so every wrapper
receives an already-normalized result, a thrown or unknown tool's included.
"""

from __future__ import annotations

import asyncio
from typing import Any

from dsh.base import AbortedError, AbortSignal, FrozenDict, NotJSONError, freeze_json, race
from dsh.base._signal import SignalAbortedError
from dsh.context import Context
from dsh.context._chain import describe
from dsh.tools._channels import ExecuteListener
from dsh.tools._decisions import check_content
from dsh.tools._failures import aborted, aborted_before, exc_text, listener_failed, malformed
from dsh.tools._identity import ToolCall, ToolExecution
from dsh.tools._types import FAILURE_CODES, ToolInvocation, ToolResult, Workspace

__all__ = ["Dispatch", "normalize"]

_KEEP: Any = object()


class _WrapperFailed(Exception):
    """The first ``tools/execute`` wrapper failure (kept even if an outer wrapper swallows it)."""

    def __init__(self, listener: object, error: BaseException) -> None:
        super().__init__(describe(listener))
        self.listener = listener
        self.error = error


class Dispatch:
    """One call's around-dispatch chain and core dispatch.

    Not a waterfall: a wrapper's ``next`` takes a signal and may be awaited
    more than once (a retry), so this chain has its own runner.
    """

    __slots__ = ("call", "ctx", "dispatched", "failed", "fns", "last")

    def __init__(self, call: ToolCall, ctx: Context, fns: tuple[ExecuteListener, ...]) -> None:
        self.call = call
        self.ctx = ctx
        self.fns = fns
        self.dispatched = False
        self.failed: _WrapperFailed | None = None
        self.last: ToolResult | None = None

    async def start(self, signal: AbortSignal | None, workspace: Workspace) -> ToolResult:
        if not self.fns:
            return await self.dispatch(signal, workspace)
        try:
            result = await self.wrap(0, ToolExecution(self.call, signal, workspace))
        except Exception as exc:
            if self.failed is None:
                return listener_failed("execute", "tools/execute", exc)
            return listener_failed("execute", self.failed.listener, self.failed.error)
        if self.failed is not None:
            return listener_failed("execute", self.failed.listener, self.failed.error)
        return result

    async def wrap(self, index: int, ex: ToolExecution) -> ToolResult:
        fn = self.fns[index]
        innermost = index + 1 == len(self.fns)

        async def next_(*, signal: Any = _KEEP) -> ToolResult:
            if signal is _KEEP:
                inner = ex
            elif signal is None or type(signal) is AbortSignal:
                inner = ToolExecution(ex.call, signal, ex.workspace)
            else:
                raise TypeError(
                    f"next(signal=...) takes an AbortSignal or None, not {type(signal).__name__}"
                )
            if not innermost:
                return await self.wrap(index + 1, inner)
            # Core dispatch straight from the innermost ``next``: no frame between.
            result = await self.dispatch(inner.signal, inner.workspace)
            self.last = result
            return result

        try:
            raw = await fn(ex, next_)
        except Exception as exc:
            if self.failed is None:
                self.failed = _WrapperFailed(fn, exc)
            raise
        if raw is self.last and raw is not None:
            return raw
        result = normalize(raw, f"tools/execute listener {describe(fn)}")
        self.last = result
        return result

    async def dispatch(self, signal: AbortSignal | None, workspace: Workspace) -> ToolResult:
        if signal is not None and signal.aborted:
            return aborted_before(signal)
        call = self.call
        definition = call.tool
        if definition is None:
            name = call.name
            return ToolResult(
                f"No such tool available: {name}", None, True, "UNKNOWN_TOOL", FrozenDict(tool=name)
            )
        self.dispatched = True
        invocation = ToolInvocation(
            call.name, call.arguments, workspace, signal, call.agent, call.token, self.ctx
        )
        try:
            body = definition.run(invocation)
            raw = await (body if signal is None else race(body, signal))
        except SignalAbortedError:
            return aborted(signal)
        except AbortedError as exc:
            return aborted(signal, exc.reason)
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
                exc_text(exc), None, True, "TOOL_ERROR", FrozenDict(exception=type(exc).__name__)
            )
        result = normalize(raw, f"tool {call.name}")
        if signal is not None and signal.aborted:
            # The body honored the signal and returned: the call was still aborted.
            output = None if result.code == "MALFORMED_RESULT" else result.output
            return aborted(signal, output=output)
        return result


def normalize(raw: object, source: str) -> ToolResult:
    """``raw`` as a valid, frozen ``ToolResult``, or a ``MALFORMED_RESULT`` naming the problem."""
    if type(raw) is not ToolResult:
        return malformed(source, f"returned {type(raw).__name__}, not a ToolResult")
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
        return malformed(source, str(exc))
    if is_error is not True and is_error is not False:
        return malformed(source, f"is_error must be a bool, not {type(is_error).__name__}")
    if code is not None and code not in FAILURE_CODES:
        return malformed(source, f"code {code!r} is not a failure code")
    if code is not None and not is_error:
        return malformed(source, f"a success cannot carry the failure code {code}")
    if is_error and code is None:
        code = "TOOL_ERROR"
    try:
        if output is not None and type(output) not in (str, int, bool):
            output = freeze_json(output, "$.output")
        if info is not None and type(info) not in (str, int, bool):
            info = freeze_json(info, "$.info")
    except NotJSONError as exc:
        return malformed(source, str(exc))
    except RecursionError:
        return malformed(source, "the result is nested too deeply")
    return ToolResult(content, output, is_error, code, info)
