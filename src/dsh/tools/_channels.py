"""The tool pipeline's channels, in the order a call passes them.

``tools/rewrite-input`` and ``tools/execute`` have their own dispatch (the
registry runs the rewrite chain inside sealing, and the execute chain around
core dispatch), so their channels are ``Channel`` subclasses: a rewriter sees
the input as the previous one left it; an execute wrapper's ``next`` takes the
one thing a wrapper may change: the signal.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeAlias

from dsh.approval import ApprovalDecision, ApprovalRequest
from dsh.base import AbortSignal
from dsh.context import SyncNotifyChannel, WaterfallChannel
from dsh.context._channels import Channel
from dsh.tools._decisions import InputRewrite, PostToolDecision, PreToolDecision
from dsh.tools._identity import ProposedCall, ToolCall, ToolExecution
from dsh.tools._types import ToolResult

__all__ = [
    "APPROVAL_REQUEST",
    "EXECUTE",
    "POST_EXECUTE",
    "PRE_EXECUTE",
    "RESULT",
    "REWRITE_INPUT",
    "ExecuteChannel",
    "ExecuteListener",
    "ExecuteNext",
    "RewriteChannel",
    "RewriteListener",
]


RewriteListener: TypeAlias = Callable[[ProposedCall], Awaitable[InputRewrite | None]]
"""A ``tools/rewrite-input`` listener: ``InputRewrite.replace(...)``, ``keep()`` or ``None``."""


class RewriteChannel(Channel[RewriteListener]):
    """The input-rewrite chain inside sealing, before the call's identity exists."""

    __slots__ = ()


REWRITE_INPUT = RewriteChannel("tools/rewrite-input")
"""Before identity: listeners in registration order may replace the whole input."""


class ExecuteNext(Protocol):
    """The rest of the ``tools/execute`` chain, ending in core dispatch.

    ``await next()`` keeps the signal, ``await next(signal=s)`` replaces it,
    ``await next(signal=None)`` removes it. It returns the already-normalized
    result and may be awaited more than once (a retry wrapper).
    """

    def __call__(self, *, signal: AbortSignal | None = ...) -> Awaitable[ToolResult]: ...


ExecuteListener: TypeAlias = Callable[[ToolExecution, ExecuteNext], Awaitable[ToolResult]]


class ExecuteChannel(Channel[ExecuteListener]):
    """The around-dispatch chain: timeout, retry and metrics wrappers."""

    __slots__ = ()


PRE_EXECUTE: WaterfallChannel[PreToolDecision, ToolCall] = WaterfallChannel(
    "tools/pre-execute",
    default=lambda call: PreToolDecision.allow(),
    returns=PreToolDecision,
)
"""Pre-tool policy: allow (the default), deny(reason, info) or ask(reason)."""

APPROVAL_REQUEST: WaterfallChannel[ApprovalDecision, ToolCall, ApprovalRequest] = WaterfallChannel(
    "approval/request",
    default=lambda call, request: ApprovalDecision.abstain(),
    returns=ApprovalDecision,
)
"""After a pre-execute ``ask``, before the ``APPROVAL`` service: abstain (the default),
allow(always=...) or deny(reason, interrupt=...)."""

EXECUTE = ExecuteChannel("tools/execute")
"""Around dispatch: a wrapper returns a result, usually ``await next(...)``'s."""

POST_EXECUTE: WaterfallChannel[PostToolDecision, ToolCall, ToolResult] = WaterfallChannel(
    "tools/post-execute",
    default=lambda call, result: PostToolDecision.accept(),
    returns=PostToolDecision,
)
"""Post-tool transform, for every outcome: accept or block(feedback)."""

RESULT: SyncNotifyChannel[ToolCall, ToolResult] = SyncNotifyChannel("tools/result")
"""The final observer: sees exactly the result the caller gets."""
