"""A bridge's per-session state, keyed by the root session, and a hook's environment.

A bridge keeps bookkeeping between the events of one session (the current
prompt, when each tool call started, what a pre-tool hook decided for a call
that has not reached execution yet). A subagent belongs to its root session's
bookkeeping, and a session that is gone takes its state with it, so the state
is keyed by the root session and held weakly. The state type is the bridge's.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from typing import Generic, Protocol, Self, TypeVar, final

__all__ = ["Nested", "SessionStates", "hook_environment", "root_session"]


class Nested(Protocol):
    """A session that may run inside another one (a ``dsh.agent.Agent`` is one)."""

    @property
    def parent(self) -> Self | None: ...


N = TypeVar("N", bound=Nested)
S = TypeVar("S")


def root_session(session: N) -> N:
    """The outermost session ``session`` runs in (itself at top level)."""
    while (parent := session.parent) is not None:
        session = parent
    return session


@final
class SessionStates(Generic[N, S]):
    """A bridge's state per root session, created on first use and dropped with the session."""

    __slots__ = ("_new", "_states")

    def __init__(self, new: Callable[[], S]) -> None:
        self._new = new
        self._states: weakref.WeakKeyDictionary[N, S] = weakref.WeakKeyDictionary()

    def __call__(self, session: N) -> S:
        """The state of ``session``'s root session."""
        root = root_session(session)
        state = self._states.get(root)
        if state is None:
            state = self._states[root] = self._new()
        return state


def hook_environment(
    base: Mapping[str, str] | None, variables: Mapping[str, str] | None
) -> dict[str, str]:
    """What a hook adds to the inherited environment: ``base``, then ``variables``.

    ``base`` is the declaration's own (a project or plugin directory);
    ``variables`` are the bridge's per-firing ones (the session id), which win.
    """
    return {**(base or {}), **(variables or {})}
