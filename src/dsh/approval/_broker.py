"""``ApprovalBroker``: the ``APPROVAL`` service that remembers allowed-always answers.

It routes each request to its channel, unless the same session already
allowed the same pattern always. The pattern is the tool name and its exact
arguments by default; ``remember=by_tool`` widens it to every call of the tool.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable

from dsh.approval._types import ApprovalAnswer, ApprovalChannel, ApprovalRequest, ChannelAnswer

__all__ = ["ApprovalBroker", "by_call", "by_tool"]

RememberKey = Callable[[ApprovalRequest], Hashable]


def by_call(req: ApprovalRequest) -> Hashable:
    """Remember the tool name with its exact arguments."""
    return (req.tool_name, json.dumps(req.arguments, sort_keys=True, separators=(",", ":")))


def by_tool(req: ApprovalRequest) -> Hashable:
    """Remember the tool name alone: allowed-always covers every later call of it."""
    return req.tool_name


class ApprovalBroker:
    """Answers from memory first, then from ``channel`` (``None``: nobody can answer)."""

    __slots__ = ("_always", "_channel", "_key")

    def __init__(
        self, channel: ApprovalChannel | None = None, *, remember: RememberKey = by_call
    ) -> None:
        self._channel = channel
        self._key = remember
        self._always: dict[str | None, set[Hashable]] = {}

    @property
    def channel(self) -> ApprovalChannel | None:
        return self._channel

    async def request(self, req: ApprovalRequest, /) -> ChannelAnswer:
        key = self._key(req)
        if key in self._always.get(req.session_id, ()):
            return ApprovalAnswer("allowed-always", "allowed always earlier in this session")
        if self._channel is None:
            return None
        reply = await self._channel.request(req)
        outcome = reply.outcome if isinstance(reply, ApprovalAnswer) else reply
        if outcome == "allowed-always":
            self.remember(req)
        return reply

    def remember(self, req: ApprovalRequest) -> None:
        """Allow ``req``'s pattern always for its session, as an allowed-always answer does.

        An ``approval/request`` listener's ``ApprovalDecision.allow(always=True)``
        lands here, so the memory stays one whoever answered.
        """
        self._always.setdefault(req.session_id, set()).add(self._key(req))

    def remembers(self, req: ApprovalRequest) -> bool:
        """Whether ``req`` would be allowed from memory, without asking."""
        return self._key(req) in self._always.get(req.session_id, ())

    def forget(self, session_id: str | None = None) -> None:
        """Drop what ``session_id`` allowed always (``None``: the session-less calls')."""
        self._always.pop(session_id, None)
