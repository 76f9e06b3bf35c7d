"""The loop's vocabularies and decisions: what its seams receive and what listeners return.

Each decision is one frozen, slotted, ``@final`` class whose ``kind`` literal
closes its variants; listeners build them with the named constructors
(``PromptDecision.block(reason)``), never by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.session import Content

__all__ = [
    "CompactRequest",
    "CompactTrigger",
    "ContinuationDecision",
    "ContinuationState",
    "DisplayDecision",
    "DisplayRequest",
    "InstructionsFile",
    "InstructionsLoadReason",
    "InstructionsScope",
    "Notice",
    "NoticeLevel",
    "PostToolBatchDecision",
    "PreCompactDecision",
    "PromptDecision",
    "PromptSource",
    "SessionEndReason",
    "SessionStartSource",
    "SetupTrigger",
    "SteeringSource",
    "TurnStop",
    "TurnStopDecision",
]

SessionStartSource: TypeAlias = Literal["startup", "resume", "clear", "compact"]
SetupTrigger: TypeAlias = Literal["init", "maintenance"]
"""Why ``agent/setup`` fires: a project's first set-up, or its periodic upkeep."""
SETUP_TRIGGERS: tuple[SetupTrigger, ...] = ("init", "maintenance")

InstructionsScope: TypeAlias = Literal["Managed", "User", "Project", "Local"]
"""Whose instructions a file holds (Claude Code's ``memory_type``)."""
InstructionsLoadReason: TypeAlias = Literal[
    "session_start", "nested_traversal", "path_glob_match", "include", "compact"
]
"""Why an instructions file was loaded (Claude Code's ``load_reason``)."""


@final
@frozen(kw_only=True)
class InstructionsFile:
    """An instructions file (a ``CLAUDE.md``) whose text was put into the model's context.

    ``parent_path`` is the file whose ``@path`` imported it (``load_reason``
    ``include``); ``globs`` the ``paths`` patterns of a conditional rule and
    ``trigger_file_path`` the file whose access loaded it (lazy loads).
    """

    path: Path
    scope: InstructionsScope
    load_reason: InstructionsLoadReason
    parent_path: Path | None = None
    globs: tuple[str, ...] = ()
    trigger_file_path: Path | None = None


"""Why ``agent/session-start`` fired: a new or forked session, a reloaded one, or a compaction."""

PromptSource: TypeAlias = Literal["user", "subagent"]
"""Where a queued prompt came from: the user, or a parent agent (a child's first prompt)."""

SessionEndReason: TypeAlias = Literal["clear", "resume", "logout", "prompt_input_exit", "other"]
"""Why a session ended, in Claude Code's vocabulary."""

SteeringSource: TypeAlias = Literal["user", "continuation"]
"""Who steered: ``agent.steer()`` or a forced continuation's reason."""

CompactTrigger: TypeAlias = Literal["manual", "auto"]
NoticeLevel: TypeAlias = Literal["info", "warning", "error"]


def _require_text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string, got {value!r}")
    return value


def _optional_text(value: object, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string or None, got {type(value).__name__}")
    return value or None


@final
@frozen
class PromptDecision:
    """``agent/prompt-submit``'s answer: allow (maybe rewritten, maybe with context) or block."""

    kind: Literal["allow", "block"]
    content: Content | None = None
    additional_context: str | None = None
    reason: str | None = None
    source: str | None = None

    @classmethod
    def allow(
        cls,
        content: Content | None = None,
        additional_context: str | None = None,
        *,
        source: str | None = None,
    ) -> PromptDecision:
        """Let the prompt through; ``content`` replaces it, ``additional_context`` follows it.

        ``source`` names who added the context (``plugin:<name>``); the loop
        uses ``agent/prompt-submit`` when it is not given.
        """
        if content is not None and not isinstance(content, str | tuple):
            raise TypeError(f"PromptDecision.allow: content must be str or blocks, got {content!r}")
        return cls(
            kind="allow",
            content=content,
            additional_context=_optional_text(additional_context, "additional_context"),
            source=source,
        )

    @classmethod
    def block(cls, reason: str) -> PromptDecision:
        """Drop the prompt; ``reason`` is logged with it and shown to the user."""
        return cls(kind="block", reason=_require_text(reason, "PromptDecision.block reason"))

    @property
    def blocked(self) -> bool:
        return self.kind == "block"


@final
@frozen
class PostToolBatchDecision:
    """``agent/post-tool-batch``'s answer: proceed to the next model call, or stop the turn."""

    kind: Literal["proceed", "stop"]
    additional_context: str | None = None
    reason: str | None = None
    source: str | None = None

    @classmethod
    def proceed(
        cls, additional_context: str | None = None, *, source: str | None = None
    ) -> PostToolBatchDecision:
        return cls(
            kind="proceed",
            additional_context=_optional_text(additional_context, "additional_context"),
            source=source,
        )

    @classmethod
    def stop(cls, reason: str) -> PostToolBatchDecision:
        return cls(kind="stop", reason=_require_text(reason, "PostToolBatchDecision.stop reason"))


@final
@frozen
class ContinuationDecision:
    """``agent/turn-continuation``'s answer: let the turn end, or keep it going.

    A ``continue_`` reason reaches the model as steering at the top of the next step.
    """

    kind: Literal["stop", "continue"]
    reason: str | None = None

    @classmethod
    def stop(cls) -> ContinuationDecision:
        return cls(kind="stop")

    @classmethod
    def continue_(cls, reason: str | None = None) -> ContinuationDecision:
        return cls(kind="continue", reason=_optional_text(reason, "continue_ reason"))

    @property
    def continues(self) -> bool:
        return self.kind == "continue"


@final
@frozen
class ContinuationState:
    """What ``agent/turn-continuation`` receives besides the agent.

    ``decision`` is the loop's own answer (continue when steering is already
    queued, else stop) and the chain's default. ``streak`` counts the forced
    continuations in a row (reset by a step that ran a tool), so a bridge's
    ``stop_hook_active`` is ``streak > 0``.
    """

    decision: ContinuationDecision
    streak: int
    step: int
    final_text: str

    @property
    def stop_hook_active(self) -> bool:
        return self.streak > 0


@final
@frozen
class TurnStop:
    """An ``agent/turn-stop`` listener's answer: end the turn as ``stopped`` now."""

    reason: str

    def __post_init__(self) -> None:
        _require_text(self.reason, "TurnStop reason")


TurnStopDecision: TypeAlias = TurnStop


@final
@frozen
class CompactRequest:
    """What ``agent/pre-compact`` receives: why compaction runs, and the user's instructions."""

    trigger: CompactTrigger
    instructions: str | None = None


@final
@frozen
class PreCompactDecision:
    """``agent/pre-compact``'s answer: let compaction run, or veto it with a reason."""

    kind: Literal["proceed", "veto"]
    reason: str | None = None

    @classmethod
    def proceed(cls) -> PreCompactDecision:
        return cls(kind="proceed")

    @classmethod
    def veto(cls, reason: str) -> PreCompactDecision:
        return cls(kind="veto", reason=_require_text(reason, "PreCompactDecision.veto reason"))


@final
@frozen(kw_only=True)
class DisplayRequest:
    """What ``agent/message-display`` receives: an assistant message's text about to be shown.

    ``message_id`` is the ``assistant/message`` event's id. dsh shows a message
    whole, so ``index`` is 0 and ``final`` true (Claude Code's headless mode);
    the fields exist so a streaming printer can send line batches later.
    """

    turn_id: str
    message_id: str
    index: int = 0
    final: bool = True
    text: str


@final
@frozen
class DisplayDecision:
    """``agent/message-display``'s answer: show the text as it is, or show another text.

    A replacement changes what the user sees only (logged as ``assistant/display``);
    the model and the history keep the original.
    """

    kind: Literal["show", "replace"]
    text: str | None = None

    @classmethod
    def show(cls) -> DisplayDecision:
        return cls(kind="show")

    @classmethod
    def replace(cls, text: str) -> DisplayDecision:
        """Show ``text`` instead (``""`` shows nothing)."""
        if not isinstance(text, str):
            raise TypeError(f"DisplayDecision.replace: text must be a string, got {text!r}")
        return cls(kind="replace", text=text)


@final
@frozen
class Notice:
    """A user-facing message (logged as ``notice``); the model never sees it."""

    text: str
    source: str
    level: NoticeLevel = "info"
