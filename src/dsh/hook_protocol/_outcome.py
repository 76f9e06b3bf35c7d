"""Containment: turning a ``HookRun`` into a decision, or into a recorded reason for none.

The executor reports what a process did; each bridge knows what its tool makes
of exit codes and stdout. ``hook_outcome`` puts the two together and never
raises, so no hook, however broken, becomes an exception in the loop. A hook
without a decision is as if it had not run, unless it was declared
``on_failure="block"`` and failed: then ``failed_closed`` tells the bridge to
block.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Final, Generic, Literal, TypeAlias, TypeVar, final

from dsh._frozen import frozen
from dsh.base import DshError
from dsh.hook_protocol._run import HookRun

__all__ = [
    "FAILURE_REASONS",
    "HookDecodeError",
    "HookOutcome",
    "NoDecision",
    "WrongEvent",
    "hook_outcome",
]

D = TypeVar("D")

NoDecision: TypeAlias = Literal[
    "spawn_error",
    "cancelled",
    "timed_out",
    "killed",
    "nonzero_exit",
    "undecodable",
    "wrong_event",
    "abstained",
]
"""Why a hook contributed no decision.

- ``spawn_error``: it never started (missing file, not executable, bad cwd), or
  the executor failed around it.
- ``cancelled``: the point was aborted while it ran (the abort signal).
- ``timed_out``: it outran its timeout and its group was killed.
- ``killed``: a signal it did not get from us ended it.
- ``nonzero_exit``: the bridge's decoder says the exit code means failure
  (``HookDecodeError(reason, kind="nonzero_exit")``), e.g. Claude Code's exit 1
  with plain-text stdout.
- ``undecodable``: the decoder rejected the output (invalid JSON, schema
  failure), or the decoder itself raised.
- ``wrong_event``: the output answered for another event (``hookEventName``).
- ``abstained``: it ran fine and expressed no opinion (the decoder returned
  ``None``, e.g. exit 0 with empty stdout). Not a failure.
"""

FAILURE_REASONS: Final[frozenset[NoDecision]] = frozenset(
    {"spawn_error", "timed_out", "killed", "nonzero_exit", "undecodable", "wrong_event"}
)
"""The reasons that count as a hook *failure*: with ``on_failure="block"`` they fail closed.

``cancelled`` is not one (the point itself is going away), nor is ``abstained``.
"""


class HookDecodeError(DshError):
    """Raised by a bridge's decoder: this run carries no usable decision, and why."""

    def __init__(
        self, reason: str, *, kind: Literal["undecodable", "nonzero_exit"] = "undecodable"
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind: Literal["undecodable", "nonzero_exit"] = kind


@final
@frozen
class WrongEvent:
    """A decoder's answer: the hook answered for ``answered_for``, not this event."""

    answered_for: str


@final
@frozen(kw_only=True)
class HookOutcome(Generic[D]):
    """What one hook contributes at its point.

    Exactly one of ``decision`` and ``no_decision`` is set. ``reason`` says, in
    words, why there is no decision (``None`` when there is one).
    ``failed_closed`` is true when the hook failed (``no_decision`` in
    ``FAILURE_REASONS``) and was declared ``on_failure="block"``: the bridge
    must block the guarded action instead of proceeding.
    """

    run: HookRun
    decision: D | None
    no_decision: NoDecision | None
    reason: str | None = None
    failed_closed: bool = False

    @classmethod
    def decided(cls, run: HookRun, decision: D) -> HookOutcome[D]:
        return cls(run=run, decision=decision, no_decision=None)

    @classmethod
    def undecided(cls, run: HookRun, why: NoDecision, reason: str) -> HookOutcome[D]:
        return cls(
            run=run,
            decision=None,
            no_decision=why,
            reason=reason,
            failed_closed=run.command.on_failure == "block" and why in FAILURE_REASONS,
        )


def _describe_signal(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def hook_outcome(
    run: HookRun, decode: Callable[[HookRun], D | WrongEvent | None]
) -> HookOutcome[D]:
    """Decide what ``run`` contributes, using the bridge's ``decode``; never raises.

    Runs that did not end on their own (spawn error, cancelled, timed out,
    killed by a signal) are not decoded. Otherwise ``decode(run)`` sees the
    exit code and the output and returns the decision, ``WrongEvent(name)``,
    or ``None`` (no opinion), or raises ``HookDecodeError``. Any other exception
    from ``decode`` counts as ``undecodable``.
    """
    where = run.command.origin.describe()
    if run.spawn_error is not None:
        return HookOutcome.undecided(run, "spawn_error", run.spawn_error)
    if run.cancelled:
        return HookOutcome.undecided(run, "cancelled", f"hook {where} was cancelled")
    if run.timed_out:
        return HookOutcome.undecided(
            run, "timed_out", f"hook {where} timed out after {run.command.timeout:g}s"
        )
    if run.signal is not None:
        return HookOutcome.undecided(
            run, "killed", f"hook {where} was killed by {_describe_signal(run.signal)}"
        )
    try:
        decoded = decode(run)
    except HookDecodeError as exc:
        return HookOutcome.undecided(run, exc.kind, exc.reason)
    except Exception as exc:
        return HookOutcome.undecided(
            run, "undecodable", f"decoding the output of hook {where} failed: {exc!r}"
        )
    if isinstance(decoded, WrongEvent):
        return HookOutcome.undecided(
            run,
            "wrong_event",
            f"hook {where} answered for {decoded.answered_for}, not {run.command.origin.event}",
        )
    if decoded is None:
        return HookOutcome.undecided(run, "abstained", f"hook {where} expressed no decision")
    return HookOutcome.decided(run, decoded)
