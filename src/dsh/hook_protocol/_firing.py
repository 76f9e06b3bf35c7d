"""Firing an event's hooks: the audit trail, cancellation, fail-closed answers, the merge.

``fire_hooks`` is the protocol-generic half of running a bridge's hooks at one
point: it runs the matching handlers concurrently (deduplicated by each
command's ``key``, which the bridge sets), logs every ``hook/invocation``
before and every ``hook/result`` after as one write and one fsync per group,
closes the trail when it is cancelled (every invocation gets its result), and
returns the decided answers in declaration order. What a hook's output means
(``decode``), what a handler that failed closed answers (``fail_closed``) and
which answers win (``MergedAnswers.strongest`` with the bridge's precedence)
are the bridge's ``AnswerRules``; where events go and the signal that cancels
the hooks are its ``HookSink``. So this module knows no bridge and no agent.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, Protocol, TypeVar, final

from dsh._frozen import frozen
from dsh.hook_protocol._declarations import HookCommand
from dsh.hook_protocol._events import HookInvocationEvent, invocation_event, result_event
from dsh.hook_protocol._executor import run_hooks, unique_hooks
from dsh.hook_protocol._outcome import FAILURE_REASONS, HookOutcome, WrongEvent, hook_outcome
from dsh.hook_protocol._run import CancelSignal, HookRun
from dsh.session import NoticeEvent, SessionEvent

__all__ = [
    "AnswerRules",
    "HookSink",
    "MergedAnswers",
    "RoutedSink",
    "Strongest",
    "fire_hooks",
]

logger = logging.getLogger("dsh.hook_protocol")

H = TypeVar("H")
A = TypeVar("A")
V = TypeVar("V")


class HookSink(Protocol):
    """Where a firing's ``hook/*`` events are appended, and the signal that cancels its hooks.

    A ``dsh.agent.Agent`` is one: ``append_events`` writes a group with one
    fsync (``durable=False``: written, the fsync left to the next durable
    append); ``signal`` is its running turn's abort signal (``None`` between turns).
    """

    def append_events(
        self, events: Sequence[SessionEvent], /, *, durable: bool = True
    ) -> object: ...

    @property
    def signal(self) -> CancelSignal | None: ...


@final
@frozen
class RoutedSink:
    """A sink whose events go to ``events_to`` and whose hooks are cancelled by ``signal``.

    For hooks fired about one session and logged in another (a subagent's
    hooks, in its parent's log, cancelled by the subagent's turn).
    """

    events_to: HookSink
    signal: CancelSignal | None

    def append_events(self, events: Sequence[SessionEvent], /, *, durable: bool = True) -> object:
        return self.events_to.append_events(events, durable=durable)


class AnswerRules(Protocol[A]):
    """A bridge's rules for one firing: what an output means, what failing closed answers."""

    def decode(self, run: HookRun) -> A | WrongEvent | None:
        """The run's answer, ``WrongEvent``, ``None`` (no opinion), or ``HookDecodeError``."""
        ...

    def fail_closed(self, outcome: HookOutcome[A]) -> A:
        """The answer of a handler declared ``on_failure="block"`` that failed."""
        ...

    def to_json(self, answer: A) -> object:
        """``answer`` as plain JSON, recorded in its ``hook/result`` event."""
        ...


@final
@frozen
class Strongest(Generic[V, H, A]):
    """The strongest kind of answer of a firing, with every answer that gave it, in order."""

    kind: V
    answers: tuple[tuple[H, A], ...]


@final
@frozen
class MergedAnswers(Generic[H, A]):
    """Every decided answer of one firing with its handler, in declaration order.

    Handlers that abstained, failed open or were cancelled have no entry; a
    handler that failed closed has the answer its bridge synthesized. ``failed``
    holds each handler that failed open (no decision for a reason in
    ``FAILURE_REASONS``: it could not start, exited non-zero without an answer,
    timed out, ...) with its outcome, for a bridge that reports such failures.
    ``durations``: each answer's run time, parallel to ``answers``; the hooks of a firing
    start together, so these order them by when they finished (``in_finishing_order``).
    """

    answers: tuple[tuple[H, A], ...] = ()
    failed: tuple[tuple[H, HookOutcome[A]], ...] = ()
    durations: tuple[float, ...] = ()

    def in_finishing_order(self) -> tuple[tuple[H, A], ...]:
        """The entries in the order their hooks finished (declaration order among equal
        times, and when no times were kept)."""
        if len(self.durations) != len(self.answers):
            return self.answers
        order = sorted(range(len(self.answers)), key=self.durations.__getitem__)
        return tuple(self.answers[i] for i in order)

    def __iter__(self) -> Iterator[tuple[H, A]]:
        return iter(self.answers)

    def __len__(self) -> int:
        return len(self.answers)

    def where(self, keep: Callable[[A], bool]) -> tuple[tuple[H, A], ...]:
        """The entries whose answer ``keep`` accepts, in declaration order."""
        return tuple((h, a) for h, a in self.answers if keep(a))

    def first(self, keep: Callable[[A], bool]) -> A | None:
        """The earliest answer ``keep`` accepts."""
        return next((a for _, a in self.answers if keep(a)), None)

    def last(self, keep: Callable[[A], bool]) -> A | None:
        """The latest answer ``keep`` accepts (where the last declaration wins)."""
        return next((a for _, a in reversed(self.answers) if keep(a)), None)

    def strongest(
        self, kind_of: Callable[[A], V | None], precedence: Sequence[V]
    ) -> Strongest[V, H, A] | None:
        """The first kind in ``precedence`` any answer gives, with all that give it.

        ``kind_of`` reads one answer (``None``: it gives none); ``precedence``
        lists the bridge's kinds strongest first (for example deny, ask).
        """
        given = [(kind_of(a), h, a) for h, a in self.answers]
        for wanted in precedence:
            chosen = tuple((h, a) for v, h, a in given if v == wanted)
            if chosen:
                return Strongest(wanted, chosen)
        return None


async def fire_hooks(
    handlers: Sequence[tuple[H, HookCommand]],
    payload: bytes,
    *,
    sink: HookSink,
    rules: AnswerRules[A],
) -> MergedAnswers[H, A]:
    """Run ``handlers`` with ``payload`` on stdin, log them to ``sink``, merge their answers.

    Each handler comes with the command it runs; a command whose ``key``
    equals an earlier one's does not run and has no entry. Cancelling the
    caller, or aborting ``sink.signal``, ends every hook's process group; a
    cancelled firing still logs one ``hook/result`` per ``hook/invocation``.
    """
    if not handlers:
        return MergedAnswers()
    cmds = [cmd for _, cmd in handlers]
    selected = unique_hooks(cmds)
    # Hooks fired together are logged together: one write and one fsync for the lot.
    digest = hashlib.sha256(payload).hexdigest()  # one payload: hashed once, not per hook
    invocations = [invocation_event(cmds[i], payload, payload_sha256=digest) for i in selected]
    sink.append_events(invocations)
    started = time.perf_counter()
    try:
        runs = await run_hooks(
            [cmds[i] for i in selected], payload, dedup=False, signal=sink.signal
        )
    except asyncio.CancelledError:
        # Cancelled under us (the executor killed the groups): close the audit trail.
        _close_trail(cmds, selected, invocations, time.perf_counter() - started, sink, rules)
        raise
    outcomes = [hook_outcome(run, rules.decode) for run in runs]
    # The results record what already happened: the next write-ahead record (a tool
    # call, the next hooks' invocations) or the turn's end makes them durable.
    sink.append_events(
        [
            *(
                result_event(
                    outcome,
                    invocation=inv,
                    decision_json=rules.to_json(outcome.decision)
                    if outcome.decision is not None
                    else None,
                )
                for outcome, inv in zip(outcomes, invocations, strict=True)
            ),
            *(_left_behind_notice(run) for run in runs if run.left_behind),
        ],
        durable=False,
    )
    merged: list[tuple[H, A]] = []
    failed: list[tuple[H, HookOutcome[A]]] = []
    durations: list[float] = []
    for i, outcome in zip(selected, outcomes, strict=True):
        answer = outcome.decision
        if answer is None:
            if outcome.no_decision not in (None, "abstained"):
                logger.info("%s", outcome.reason)
            if not outcome.failed_closed:
                if outcome.no_decision in FAILURE_REASONS:
                    failed.append((handlers[i][0], outcome))
                continue
            answer = rules.fail_closed(outcome)
        merged.append((handlers[i][0], answer))
        durations.append(outcome.run.duration)
    return MergedAnswers(tuple(merged), tuple(failed), tuple(durations))


_SHOWN_COMMAND = 200  # characters of a command named in a notice


def _left_behind_notice(run: HookRun) -> NoticeEvent:
    """Says once per hook run that dsh ended what the hook left running, and how to keep it:
    a user whose hook's daemon died learns why."""
    argv = run.command.argv
    command = argv[2] if len(argv) >= 3 and argv[1] == "-c" else " ".join(argv)
    if len(command) > _SHOWN_COMMAND:
        command = command[:_SHOWN_COMMAND] + "…"
    # A settings file wrote it: no control character reaches a terminal through the notice.
    command = "".join(c if c.isprintable() else repr(c)[1:-1] for c in command)
    n = run.left_behind
    text = (
        f"ended {n} process{'es' if n != 1 else ''} the {run.command.origin.event} hook"
        f" `{command}` left running after it exited; to keep hooks' helpers until the"
        ' session ends, set hook_helpers = "session" in dsh\'s config (or DSH_HOOK_HELPERS=session)'
    )
    logger.info("%s", text)
    return NoticeEvent(text=text, source="hooks", level="info")


def _close_trail(
    cmds: Sequence[HookCommand],
    selected: Sequence[int],
    invocations: Sequence[HookInvocationEvent],
    elapsed: float,
    sink: HookSink,
    rules: AnswerRules[A],
) -> None:
    cancelled = [HookRun.without_output(cmds[i], elapsed, cancelled=True) for i in selected]
    sink.append_events(
        [
            result_event(hook_outcome(run, rules.decode), invocation=inv)
            for run, inv in zip(cancelled, invocations, strict=True)
        ]
    )
