"""The loop's vocabularies and decisions: what its seams receive and what listeners return.

Each decision is a closed union: a field-less base (``PromptDecision``) that
carries the named constructors, and ``@final`` frozen variants with exactly
their own fields (``PromptAllow | PromptBlock``, named ``PromptVariant``), so
mypy narrows a decision with ``match``/``isinstance`` and a block always has
its reason. No other module can add a variant. Listeners build decisions with
the named constructors (``PromptDecision.block(reason)``).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base._union import ClosedUnion
from dsh.messages import Content

__all__ = [
    "CompactRequest",
    "CompactTrigger",
    "ContinuationContinue",
    "ContinuationDecision",
    "ContinuationState",
    "ContinuationStop",
    "ContinuationVariant",
    "DisplayDecision",
    "DisplayReplace",
    "DisplayRequest",
    "DisplayShow",
    "DisplayVariant",
    "InstructionsFile",
    "InstructionsLoadReason",
    "InstructionsScope",
    "Notice",
    "NoticeLevel",
    "PostToolBatchDecision",
    "PostToolBatchProceed",
    "PostToolBatchStop",
    "PostToolBatchVariant",
    "PreCompactDecision",
    "PreCompactProceed",
    "PreCompactVariant",
    "PreCompactVeto",
    "PromptAllow",
    "PromptBlock",
    "PromptDecision",
    "PromptSource",
    "PromptVariant",
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


class PromptDecision(ClosedUnion):
    """``agent/prompt-submit``'s answer: allow (maybe rewritten, maybe with context) or block."""

    __slots__ = ()
    kind: ClassVar[Literal["allow", "block"]]

    @staticmethod
    def allow(
        content: Content | None = None,
        additional_context: str | None = None,
        *,
        source: str | None = None,
    ) -> PromptAllow:
        """Let the prompt through; ``content`` replaces it, ``additional_context`` follows it.

        ``source`` names who added the context (``plugin:<name>``); the loop
        uses ``agent/prompt-submit`` when it is not given.
        """
        if content is not None and not isinstance(content, str | tuple):
            raise TypeError(f"PromptDecision.allow: content must be str or blocks, got {content!r}")
        return PromptAllow(
            content=content,
            additional_context=_optional_text(additional_context, "additional_context"),
            source=source,
        )

    @staticmethod
    def block(reason: str, *, source: str | None = None) -> PromptBlock:
        """Drop the prompt; ``reason`` is logged with it and shown to the user.

        ``source`` names who blocked it (``plugin:<name>``), logged as the
        ``prompt/blocked`` event's ``by``.
        """
        return PromptBlock(reason, source)

    @property
    def blocked(self) -> bool:
        """Whether this is a ``PromptBlock`` (a test that does not narrow; ``isinstance`` does)."""
        return isinstance(self, PromptBlock)


@final
@frozen(kw_only=True)
class PromptAllow(PromptDecision):
    """The prompt goes on; ``content`` (when given) replaces it, ``additional_context`` follows."""

    kind: ClassVar[Literal["allow"]] = "allow"
    content: Content | None = None
    additional_context: str | None = None
    source: str | None = None


@final
@frozen
class PromptBlock(PromptDecision):
    """The prompt is dropped (logged as ``prompt/blocked``); ``reason`` is shown to the user."""

    kind: ClassVar[Literal["block"]] = "block"
    reason: str
    source: str | None = None

    def __post_init__(self) -> None:
        _require_text(self.reason, "PromptDecision.block reason")
        _optional_text(self.source, "PromptDecision.block source")


PromptVariant: TypeAlias = PromptAllow | PromptBlock


class PostToolBatchDecision(ClosedUnion):
    """``agent/post-tool-batch``'s answer: proceed to the next model call, or stop the turn."""

    __slots__ = ()
    kind: ClassVar[Literal["proceed", "stop"]]

    @staticmethod
    def proceed(
        additional_context: str | None = None, *, source: str | None = None
    ) -> PostToolBatchProceed:
        return PostToolBatchProceed(
            additional_context=_optional_text(additional_context, "additional_context"),
            source=source,
        )

    @staticmethod
    def stop(reason: str) -> PostToolBatchStop:
        return PostToolBatchStop(reason)


@final
@frozen(kw_only=True)
class PostToolBatchProceed(PostToolBatchDecision):
    """The turn goes on to the next model call, ``additional_context`` (when given) before it."""

    kind: ClassVar[Literal["proceed"]] = "proceed"
    additional_context: str | None = None
    source: str | None = None


@final
@frozen
class PostToolBatchStop(PostToolBatchDecision):
    """The turn ends as ``stopped``; ``reason`` is shown to the user."""

    kind: ClassVar[Literal["stop"]] = "stop"
    reason: str

    def __post_init__(self) -> None:
        _require_text(self.reason, "PostToolBatchDecision.stop reason")


PostToolBatchVariant: TypeAlias = PostToolBatchProceed | PostToolBatchStop


class ContinuationDecision(ClosedUnion):
    """``agent/turn-continuation``'s answer: end the turn (``ContinuationStop``) or keep it going.

    A ``continue_`` reason reaches the model as steering at the top of the next step.
    """

    __slots__ = ()
    kind: ClassVar[Literal["stop", "continue"]]

    @staticmethod
    def stop() -> ContinuationStop:
        return ContinuationStop()

    @staticmethod
    def continue_(reason: str | None = None) -> ContinuationContinue:
        return ContinuationContinue(reason=_optional_text(reason, "continue_ reason"))

    @property
    def continues(self) -> bool:
        """Whether this is a ``ContinuationContinue`` (a test that does not narrow)."""
        return isinstance(self, ContinuationContinue)


@final
@frozen
class ContinuationStop(ContinuationDecision):
    """The turn ends (``completed``)."""

    kind: ClassVar[Literal["stop"]] = "stop"


@final
@frozen(kw_only=True)
class ContinuationContinue(ContinuationDecision):
    """The turn takes another step; ``reason`` (when given) steers it."""

    kind: ClassVar[Literal["continue"]] = "continue"
    reason: str | None = None


ContinuationVariant: TypeAlias = ContinuationStop | ContinuationContinue


@final
@frozen
class ContinuationState:
    """What ``agent/turn-continuation`` receives besides the agent.

    ``decision`` is the loop's own answer (continue when steering is already
    queued, else stop) and the chain's default. ``streak`` counts the forced
    continuations in a row (reset by a step that ran a tool), so a bridge's
    ``stop_hook_active`` is ``streak > 0``.
    """

    decision: ContinuationVariant
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


class PreCompactDecision(ClosedUnion):
    """``agent/pre-compact``'s answer: let compaction run (``PreCompactProceed``), or veto it."""

    __slots__ = ()
    kind: ClassVar[Literal["proceed", "veto"]]

    @staticmethod
    def proceed() -> PreCompactProceed:
        return PreCompactProceed()

    @staticmethod
    def veto(reason: str) -> PreCompactVeto:
        return PreCompactVeto(reason)


@final
@frozen
class PreCompactProceed(PreCompactDecision):
    """Compaction runs."""

    kind: ClassVar[Literal["proceed"]] = "proceed"


@final
@frozen
class PreCompactVeto(PreCompactDecision):
    """Compaction does not run; ``reason`` is shown to the user."""

    kind: ClassVar[Literal["veto"]] = "veto"
    reason: str

    def __post_init__(self) -> None:
        _require_text(self.reason, "PreCompactDecision.veto reason")


PreCompactVariant: TypeAlias = PreCompactProceed | PreCompactVeto


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


class DisplayDecision(ClosedUnion):
    """``agent/message-display``'s answer: show the text as it is, or show another text.

    A replacement changes what the user sees only (logged as ``assistant/display``);
    the model and the history keep the original.
    """

    __slots__ = ()
    kind: ClassVar[Literal["show", "replace"]]

    @staticmethod
    def show() -> DisplayShow:
        return DisplayShow()

    @staticmethod
    def replace(text: str) -> DisplayReplace:
        """Show ``text`` instead (``""`` shows nothing)."""
        return DisplayReplace(text)


@final
@frozen
class DisplayShow(DisplayDecision):
    """The message's text is shown as it is."""

    kind: ClassVar[Literal["show"]] = "show"


@final
@frozen
class DisplayReplace(DisplayDecision):
    """``text`` is shown instead of the message's (``""`` shows nothing)."""

    kind: ClassVar[Literal["replace"]] = "replace"
    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"DisplayDecision.replace: text must be a string, got {self.text!r}")


DisplayVariant: TypeAlias = DisplayShow | DisplayReplace


@final
@frozen
class Notice:
    """A user-facing message (logged as ``notice``); the model never sees it."""

    text: str
    source: str
    level: NoticeLevel = "info"
