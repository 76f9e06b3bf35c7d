"""``EventSupport``: one row of the coverage table, and the phrases rows share."""

from __future__ import annotations

from typing import Literal, TypeAlias, final

from dsh._frozen import frozen

__all__ = ["HALTS", "NOTICE", "PERSISTED", "EventSupport", "SupportStatus", "not_supported"]

SupportStatus: TypeAlias = Literal["supported", "partial", "not-supported"]


@final
@frozen(kw_only=True)
class EventSupport:
    """How this host runs one Claude Code event.

    ``seam`` is the dsh channel the event runs on (empty when not supported);
    ``applied`` lists the output fields and behaviours that take effect;
    ``limits`` what does not, each with why; ``difference`` a deliberate
    difference from Claude Code, if any.
    """

    seam: str
    status: SupportStatus
    applied: tuple[str, ...] = ()
    limits: tuple[str, ...] = ()
    difference: str | None = None

    def __post_init__(self) -> None:
        if self.status == "not-supported":
            if self.seam or self.applied:
                raise ValueError("a not-supported event has no seam and applies nothing")
            if not self.limits:
                raise ValueError("a not-supported event must say why in `limits`")
        elif not self.seam:
            raise ValueError(f"a {self.status} event must name its seam")
        if self.status == "partial" and not self.limits:
            raise ValueError("a partial event must list what it does not apply")


def not_supported(reason: str) -> EventSupport:
    return EventSupport(seam="", status="not-supported", limits=(reason,))


HALTS = (
    "`continue: false` halts the turn through `agent.cancel` with a hook cause"
    " (`stopReason` as the reason)"
)
NOTICE = "`systemMessage` shown to the user as a notice"
PERSISTED = (
    "an `additionalContext` or shown plain stdout over 10,000 characters is saved whole in the"
    " session's `tool-results` folder and the model gets 2.1.332's `<persisted-output>` block"
    " (its size, the file, a 2,000-character preview) in its place"
)
