"""The normalized failures of a tool call: every ``is_error`` result the pipeline itself makes.

Each carries a stable ``code`` and JSON ``info``; its content is the reason.
"""

from __future__ import annotations

from typing import Any, Final

from dsh.base import AbortSignal, FrozenDict, freeze_json
from dsh.context._chain import describe
from dsh.tools._schema import ArgumentErrors
from dsh.tools._types import FailureCode, ToolResult

__all__ = [
    "aborted",
    "aborted_before",
    "denied",
    "exc_text",
    "invalid_args",
    "listener_failed",
    "malformed",
    "result",
]


def exc_text(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def result(text: str, code: FailureCode, output: Any = None, /, **info: Any) -> ToolResult:
    return ToolResult(text, output, True, code, FrozenDict(info))


def listener_failed(
    phase: str, listener: object, error: BaseException, output: Any = None, **extra: Any
) -> ToolResult:
    """``LISTENER_ERROR``: the listener (or the named seam) of ``phase`` that failed, and how."""
    name = listener if isinstance(listener, str) else describe(listener)
    text = exc_text(error)
    return ToolResult(
        f"{phase} listener {name} failed: {text}",
        output,
        True,
        "LISTENER_ERROR",
        FrozenDict(phase=phase, listener=name, error=text, **extra),
    )


def denied(by: str, reason: str, **extra: Any) -> ToolResult:
    return result(reason, "DENIED", by=by, reason=reason, **extra)


DEFERRED: Final = "DEFERRED"
"""The code of a call a pre-execute policy deferred: it has not run, and waits to be settled."""


def deferred(reason: str | None, by: str | None) -> ToolResult:
    text = "the call is deferred: it waits for someone to approve or reject it"
    return result(text, DEFERRED, by=by, reason=reason)


def malformed(source: str, problem: str) -> ToolResult:
    return result(
        f"{source} returned a malformed result: {problem}",
        "MALFORMED_RESULT",
        source=source,
        problem=problem,
    )


def aborted_before(signal: AbortSignal | None) -> ToolResult:
    reason = (signal.reason if signal is not None else None) or "aborted"
    return result(reason, "ABORTED_BEFORE_DISPATCH", reason=reason)


def aborted(
    signal: AbortSignal | None, reason: str | None = None, output: Any = None
) -> ToolResult:
    text = reason or (signal.reason if signal is not None else None) or "aborted"
    return result(text, "ABORTED", output, reason=text)


def invalid_args(
    what: str, errors: ArgumentErrors, *, text: str | None = None, **extra: Any
) -> ToolResult:
    """``INVALID_ARGS`` for ``what`` (a tool name, or one and who rewrote its input); its
    content is ``text`` when given (2.1.332's ``InputValidationError``), else dsh's."""
    detail = "; ".join(f"{e['path']}: {e['message']}" for e in errors)
    return ToolResult(
        text if text is not None else f"Invalid arguments for {what}: {detail}",
        None,
        True,
        "INVALID_ARGS",
        FrozenDict(errors=freeze_json(errors), **extra),
    )
