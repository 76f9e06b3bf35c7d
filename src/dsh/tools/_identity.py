"""A tool call's sealed identity, its opaque token, and what ``execute`` returns.

``ProposedCall`` is a validated call before identity: what the
``tools/rewrite-input`` listeners see. After them the registry seals the
effective input into a ``ToolCall``.

Only the registry mints ``CallToken``s: the constructor wants a private key,
and a token cannot be copied or pickled into a second one. ``str(token)`` is
its log form, unique across processes.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import field
from typing import TYPE_CHECKING, NoReturn, final

from dsh._frozen import frozen
from dsh.base import AbortSignal, FrozenDict
from dsh.messages import ToolUse
from dsh.tools._call_state import CallState
from dsh.tools._types import ToolCaller, ToolDefinition, ToolResult, Workspace

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "CallToken",
    "ProposedCall",
    "ToolCall",
    "ToolExecution",
    "ToolExecutionResult",
    "ToolRequest",
    "mint_token",
]

_MINT = object()
_PREFIX = os.urandom(4).hex()  # secrets.token_hex(4), without importing secrets (hmac, random)
_counter: Iterator[int] = itertools.count(1)


@final
class CallToken:
    """The opaque identity of one tool call. Plugins cannot construct one."""

    __slots__ = ("_n",)

    def __init__(self, key: object, n: int) -> None:
        if key is not _MINT:
            raise TypeError("a CallToken is minted by the tool registry; plugins cannot make one")
        self._n = n

    def __str__(self) -> str:
        return f"call_{_PREFIX}_{self._n:x}"

    def __repr__(self) -> str:
        return f"<CallToken {self}>"

    def __copy__(self) -> CallToken:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> CallToken:
        return self

    def __reduce__(self) -> NoReturn:
        raise TypeError("a CallToken cannot be pickled; log str(token)")


def mint_token() -> CallToken:
    return CallToken(_MINT, next(_counter))


@final
@frozen
class ToolRequest:
    """What the caller asks to run: a tool name and its (not yet checked) arguments."""

    name: str
    arguments: object
    tool_use_id: str | None = None

    @classmethod
    def from_tool_use(cls, use: ToolUse) -> ToolRequest:
        return cls(use.name, use.arguments, use.id)


@final
@frozen
class ProposedCall:
    """A validated call before identity: what a ``tools/rewrite-input`` listener sees.

    ``arguments`` are the current input (the model's, or as the previous
    rewriter left it), already valid for ``tool``; ``original_arguments`` the
    caller's. Both are deep-frozen JSON. There is no token yet: identity is
    created after the last rewriter. ``state`` is the call's slot
    (``CallState``), the sealed call's own.
    """

    name: str
    arguments: FrozenDict
    original_arguments: FrozenDict
    tool_use_id: str | None
    tool: ToolDefinition
    agent: ToolCaller | None = None
    parent: CallToken | None = None
    state: CallState = field(default_factory=CallState, compare=False, repr=False)


@final
@frozen
class ToolCall:
    """A call's sealed identity: never changes after sealing.

    ``arguments`` are deep-frozen JSON (a mutation raises ``TypeError``), the
    effective input every phase, the log and the tool body see;
    ``tool`` is ``None`` when no tool has the name; ``parent`` is the token
    of the call this one is nested in (only the token, never its identity).
    When ``tools/rewrite-input`` listeners replaced the input,
    ``original_arguments`` holds the caller's and ``rewritten_by`` names the
    listeners that replaced it, in order; otherwise they are ``None`` and ``()``.
    ``state`` is the call's slot for listeners (``CallState``): not part of
    the identity, its values dropped once the result is final.
    """

    name: str
    arguments: FrozenDict
    token: CallToken
    parent: CallToken | None = None
    tool_use_id: str | None = None
    tool: ToolDefinition | None = None
    agent: ToolCaller | None = None
    original_arguments: FrozenDict | None = None
    rewritten_by: tuple[str, ...] = ()
    state: CallState = field(default_factory=CallState, compare=False, repr=False)


@final
@frozen
class ToolExecution:
    """What a ``tools/execute`` wrapper sees: the identity, the signal, the workspace.

    A wrapper changes only the signal, through ``await next(signal=s)``.
    """

    call: ToolCall
    signal: AbortSignal | None
    workspace: Workspace


@final
@frozen
class ToolExecutionResult:
    """What ``execute`` returns: the identity, the final result, and this call's context.

    ``dispatched`` says whether the tool body ran. ``result`` is the very
    object the ``tools/result`` observers saw. ``approval`` says how a
    pre-execute ``ask`` was settled (``None`` when nobody asked): frozen JSON
    with ``asked`` (the reason), ``outcome`` (``allowed-once``,
    ``allowed-always``, ``rejected``, ``cancelled``, or why nobody could
    answer: ``no-agent``, ``no-service``, ``no-channel``), ``by`` (``memory``,
    ``approval/request`` or ``service``) and, when one was given, ``reason``.
    """

    call: ToolCall
    result: ToolResult
    dispatched: bool
    additional_context: tuple[str, ...] = ()
    approval: FrozenDict | None = None
