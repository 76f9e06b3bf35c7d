"""Approval channels: a rule-based policy for headless runs, a terminal prompt, a script.

A channel answers one ``ApprovalRequest`` with an outcome (or an
``ApprovalAnswer`` carrying its reason), or ``None`` when it cannot answer.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import re
import sys
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import field
from typing import Literal, TextIO, TypeAlias, final

from dsh._frozen import frozen
from dsh.approval._types import (
    APPROVAL_OUTCOMES,
    ApprovalAnswer,
    ApprovalChannel,
    ApprovalRequest,
    ChannelAnswer,
)

__all__ = ["PolicyAction", "PolicyChannel", "PolicyRule", "ScriptedChannel", "TerminalChannel"]

PolicyAction: TypeAlias = Literal["allow", "deny", "ask"]
_ACTIONS: tuple[PolicyAction, ...] = ("allow", "deny", "ask")


def _compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@final
@frozen
class PolicyRule:
    """``action`` for calls of tools matching ``tool`` (a glob on the name).

    With ``glob`` or ``regex``, the rule also needs the argument named
    ``argument`` to match (a string argument as is, any other value as compact
    JSON); without ``argument`` the pattern is matched against the whole
    arguments object as compact JSON with sorted keys. ``glob`` must match the
    whole text (``fnmatch``, case-sensitive); ``regex`` is searched
    (anchor it with ``^...$`` to match the whole text).
    """

    action: PolicyAction
    tool: str = "*"
    argument: str | None = None
    glob: str | None = None
    regex: str | None = None
    reason: str | None = None
    _compiled: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = f"policy rule {self.action} {self.tool!r}"
        if self.action not in _ACTIONS:
            raise ValueError(f"{where}: action must be one of {', '.join(_ACTIONS)}")
        if not isinstance(self.tool, str) or not self.tool:
            raise ValueError(f"{where}: tool must be a non-empty name or glob")
        if self.glob is not None and self.regex is not None:
            raise ValueError(f"{where}: give glob or regex, not both")
        if self.argument is not None and self.glob is None and self.regex is None:
            raise ValueError(f"{where}: argument {self.argument!r} needs a glob or a regex")
        if self.regex is not None:
            try:
                compiled = re.compile(self.regex)
            except re.error as exc:
                raise ValueError(f"{where}: regex {self.regex!r} does not compile: {exc}") from exc
            object.__setattr__(self, "_compiled", compiled)

    @classmethod
    def allow(
        cls,
        tool: str = "*",
        *,
        argument: str | None = None,
        glob: str | None = None,
        regex: str | None = None,
        reason: str | None = None,
    ) -> PolicyRule:
        return cls("allow", tool, argument, glob, regex, reason)

    @classmethod
    def deny(
        cls,
        tool: str = "*",
        *,
        argument: str | None = None,
        glob: str | None = None,
        regex: str | None = None,
        reason: str | None = None,
    ) -> PolicyRule:
        return cls("deny", tool, argument, glob, regex, reason)

    @classmethod
    def ask(
        cls,
        tool: str = "*",
        *,
        argument: str | None = None,
        glob: str | None = None,
        regex: str | None = None,
        reason: str | None = None,
    ) -> PolicyRule:
        return cls("ask", tool, argument, glob, regex, reason)

    def matches(self, req: ApprovalRequest) -> bool:
        if not fnmatch.fnmatchcase(req.tool_name, self.tool):
            return False
        if self.glob is None and self._compiled is None:
            return True
        if self.argument is None:
            text = _compact(req.arguments)
        else:
            if self.argument not in req.arguments:
                return False
            value = req.arguments[self.argument]
            text = value if isinstance(value, str) else _compact(value)
        if self.glob is not None:
            return fnmatch.fnmatchcase(text, self.glob)
        assert self._compiled is not None
        return self._compiled.search(text) is not None

    def describe(self) -> str:
        pattern = ""
        if self.glob is not None or self.regex is not None:
            kind, text = ("glob", self.glob) if self.glob is not None else ("regex", self.regex)
            pattern = f" {self.argument or 'arguments'} {kind} {text!r}"
        return f"{self.action} {self.tool}{pattern}"


@final
class PolicyChannel:
    """Answers by the first rule that matches; ``default`` when none does.

    ``allow`` answers allowed-once, ``deny`` rejected. ``ask`` goes to
    ``fallback`` (a channel a person can answer); in a headless run, with no
    fallback or a fallback that cannot answer, it is rejected with a reason
    saying nobody could approve the call.
    """

    __slots__ = ("_default", "_fallback", "_rules")

    def __init__(
        self,
        rules: Sequence[PolicyRule] = (),
        *,
        default: PolicyAction = "ask",
        fallback: ApprovalChannel | None = None,
    ) -> None:
        for i, rule in enumerate(rules):
            if not isinstance(rule, PolicyRule):
                raise TypeError(f"policy rule #{i} is {type(rule).__name__}, not a PolicyRule")
        if default not in _ACTIONS:
            raise ValueError(
                f"policy default must be one of {', '.join(_ACTIONS)}, not {default!r}"
            )
        self._rules = tuple(rules)
        self._default: PolicyAction = default
        self._fallback = fallback

    @property
    def rules(self) -> tuple[PolicyRule, ...]:
        return self._rules

    def decide(self, req: ApprovalRequest) -> tuple[PolicyAction, PolicyRule | None]:
        """The action for ``req`` and the rule that chose it (``None``: the default)."""
        for rule in self._rules:
            if rule.matches(req):
                return rule.action, rule
        return self._default, None

    async def request(self, req: ApprovalRequest, /) -> ChannelAnswer:
        action, rule = self.decide(req)
        which = f"policy rule {rule.describe()!r}" if rule is not None else "the policy default"
        if action == "allow":
            return ApprovalAnswer("allowed-once", rule.reason if rule and rule.reason else which)
        if action == "deny":
            reason = rule.reason if rule is not None and rule.reason else f"denied by {which}"
            return ApprovalAnswer("rejected", reason)
        if self._fallback is not None:
            reply = await self._fallback.request(req)
            if reply is not None:
                return reply
        return ApprovalAnswer(
            "rejected",
            f"{req.tool_name} needs approval ({which} says ask) and nobody can answer in this run",
        )


@final
class TerminalChannel:
    """Asks a person on a terminal: ``y`` once, ``a`` always, ``n`` no; end of input cancels.

    Reads lines from ``input`` (default: standard input, and only when it is a
    TTY; otherwise the channel cannot answer and returns ``None``) and writes
    the prompt to ``output`` (default: standard error). Prompts never overlap.
    """

    __slots__ = ("_attempts", "_input", "_interactive", "_lock", "_output")

    def __init__(
        self,
        input: TextIO | None = None,
        output: TextIO | None = None,
        *,
        max_attempts: int = 3,
    ) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {max_attempts}")
        self._input = input
        self._output = output
        self._interactive: bool | None = True if input is not None else None
        self._attempts = max_attempts
        self._lock = asyncio.Lock()

    def _streams(self) -> tuple[TextIO, TextIO] | None:
        stream = self._input if self._input is not None else sys.stdin
        if self._interactive is None:
            try:
                self._interactive = stream is not None and stream.isatty()
            except (ValueError, OSError):
                self._interactive = False
        if not self._interactive or stream is None:
            return None
        return stream, self._output if self._output is not None else sys.stderr

    async def request(self, req: ApprovalRequest, /) -> ChannelAnswer:
        streams = self._streams()
        if streams is None:
            return None
        stream, out = streams
        args = _compact(req.arguments)
        if len(args) > 500:
            args = args[:500] + "…"
        async with self._lock:
            out.write(f"\n{req.tool_name} wants to run with {args}\n")
            if req.reason:
                out.write(f"Approval asked: {req.reason}\n")
            for _ in range(self._attempts):
                out.write("Allow? [y]es once / [a]lways this session / [n]o: ")
                out.flush()
                line = await asyncio.to_thread(stream.readline)
                if not line:
                    out.write("\n")
                    return ApprovalAnswer("cancelled", "no answer: end of input")
                answer = line.strip().lower()
                if answer in ("y", "yes"):
                    return "allowed-once"
                if answer in ("a", "always"):
                    return "allowed-always"
                if answer in ("n", "no"):
                    return ApprovalAnswer("rejected", "the user rejected this call")
                out.write(f"Please answer y, a or n (got {answer!r}).\n")
            return ApprovalAnswer("rejected", f"no valid answer after {self._attempts} attempts")


@final
class ScriptedChannel:
    """Answers with ``outcomes`` in order, recording each request; for tests.

    Running out of answers is an error (the test asked more than it expected).
    """

    __slots__ = ("_outcomes", "requests")

    def __init__(self, outcomes: Iterable[ChannelAnswer]) -> None:
        queue: deque[ChannelAnswer] = deque()
        for i, o in enumerate(outcomes):
            if not (o is None or isinstance(o, ApprovalAnswer) or o in APPROVAL_OUTCOMES):
                raise ValueError(
                    f"scripted outcome #{i} {o!r} is not one of {', '.join(APPROVAL_OUTCOMES)}, "
                    "an ApprovalAnswer or None"
                )
            queue.append(o)
        self._outcomes = queue
        self.requests: list[ApprovalRequest] = []

    @property
    def remaining(self) -> int:
        return len(self._outcomes)

    async def request(self, req: ApprovalRequest, /) -> ChannelAnswer:
        self.requests.append(req)
        if not self._outcomes:
            raise LookupError(
                f"ScriptedChannel has no outcome left for {req.tool_name} "
                f"(request #{len(self.requests)})"
            )
        return self._outcomes.popleft()
