"""The decisions a tool call's policies return: input rewrite, pre-execute, guard, post-execute.

Each decision is a closed union of variants. The public name
(``PreToolDecision``) is an empty base that only carries the named
constructors (``PreToolDecision.deny(reason)``), each returning its precise
variant (``PreToolDeny``): a ``@final`` frozen class with exactly its own
fields, checked when it is built, so a listener that builds a bad decision
fails at the place it does so (the pipeline reports that as
``LISTENER_ERROR``). No class outside this module can join a union; the
``...Variant`` aliases name each union for ``match`` narrowing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Literal, TypeAlias, cast, final

from dsh._frozen import frozen
from dsh.base import FrozenDict, freeze_json
from dsh.base._union import ClosedUnion
from dsh.messages import Content, ImageBlock, TextBlock, ToolReferenceBlock

__all__ = [
    "GuardDenial",
    "InputKeep",
    "InputReplace",
    "InputRewrite",
    "InputRewriteVariant",
    "PostToolAccept",
    "PostToolBlock",
    "PostToolDecision",
    "PostToolVariant",
    "PreToolAllow",
    "PreToolAsk",
    "PreToolDecision",
    "PreToolDefer",
    "PreToolDeny",
    "PreToolVariant",
    "check_content",
]


def _reason(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    return value


def _contexts(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value else ()
    out = tuple(value)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise TypeError(f"additional_context[{i}] must be a str, not {type(text).__name__}")
    return tuple(t for t in out if t)


def check_content(value: object, what: str = "content") -> Content:
    """``value`` as model-visible content (a str, or a tuple of text, image and tool-reference
    blocks).

    A list of blocks is accepted and becomes a tuple; anything else is a
    ``TypeError`` naming the offending place.
    """
    if isinstance(value, str):
        return value
    if not isinstance(value, (tuple, list)):
        raise TypeError(
            f"{what} must be a str or a tuple of content blocks, not {type(value).__name__}"
        )
    for i, block in enumerate(value):
        if isinstance(block, TextBlock):
            if not isinstance(block.text, str):
                raise TypeError(f"{what}[{i}].text must be a str")
        elif isinstance(block, ImageBlock):
            if not isinstance(block.media_type, str) or not isinstance(block.data, str):
                raise TypeError(f"{what}[{i}] must have str media_type and data")
        elif isinstance(block, ToolReferenceBlock):
            if not isinstance(block.tool_name, str):
                raise TypeError(f"{what}[{i}].tool_name must be a str")
        else:
            raise TypeError(
                f"{what}[{i}] is {type(block).__name__},"
                " not a TextBlock, ImageBlock or ToolReferenceBlock"
            )
    return value if isinstance(value, tuple) else tuple(value)


class InputRewrite(ClosedUnion):
    """A ``tools/rewrite-input`` listener's answer: ``keep()`` the input, or ``replace`` all of it.

    ``replace`` carries the WHOLE new input (include the unchanged fields),
    frozen and checked to be a JSON object when the answer is built; the
    registry then validates it against the tool's schema. ``keep`` (or
    answering ``None``) never erases an earlier listener's rewrite.
    ``reason`` says why, for the logs.
    """

    __slots__ = ()
    kind: ClassVar[Literal["keep", "replace"]]

    @staticmethod
    def keep() -> InputKeep:
        return _KEEP

    @staticmethod
    def replace(arguments: Mapping[str, Any], *, reason: str | None = None) -> InputReplace:
        """Replace the whole input with ``arguments`` (a JSON object)."""
        # ``__post_init__`` checks and freezes it.
        return InputReplace(cast(FrozenDict, arguments), reason)


@final
@frozen
class InputKeep(InputRewrite):
    """Keep the input as the previous listener left it."""

    kind: ClassVar[Literal["keep"]] = "keep"


@final
@frozen
class InputReplace(InputRewrite):
    """Replace the whole input with ``arguments`` (frozen JSON, an object)."""

    kind: ClassVar[Literal["replace"]] = "replace"
    arguments: FrozenDict
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.reason is not None:
            _reason(self.reason, "an input rewrite's reason")
        value: object = self.arguments
        if not isinstance(value, Mapping):
            raise TypeError(
                "a replace rewrite's arguments must be a mapping (the whole new input),"
                f" not {type(value).__name__}"
            )
        object.__setattr__(self, "arguments", freeze_json(value, "$.arguments"))


_KEEP = InputKeep()

InputRewriteVariant: TypeAlias = InputKeep | InputReplace


class PreToolDecision(ClosedUnion):
    """``tools/pre-execute``'s answer: allow, deny (skips guards and dispatch), ask, or defer
    (the call neither runs nor fails: it waits, durably, for someone to settle it).

    ``additional_context`` becomes model-visible context after the step's
    tool results, whatever the call's outcome. Build one with ``allow()``,
    ``deny(reason, info)`` or ``ask(reason)``; every field is checked however
    it is built.
    """

    __slots__ = ()
    kind: ClassVar[Literal["allow", "deny", "ask", "defer"]]

    @staticmethod
    def allow(*, additional_context: str | Iterable[str] | None = None) -> PreToolAllow:
        if additional_context is None:
            return _ALLOW
        return PreToolAllow(_contexts(additional_context))

    @staticmethod
    def deny(
        reason: str,
        info: Any = None,
        *,
        additional_context: str | Iterable[str] | None = None,
    ) -> PreToolDeny:
        """Deny the call: ``reason`` is the model-visible content, ``info`` (JSON) the detail."""
        return PreToolDeny(reason, info, _contexts(additional_context))

    @staticmethod
    def ask(reason: str, *, additional_context: str | Iterable[str] | None = None) -> PreToolAsk:
        """Ask the approval service; only an allowed outcome lets the call go on."""
        return PreToolAsk(reason, _contexts(additional_context))

    @staticmethod
    def defer(reason: str | None = None, *, by: str | None = None) -> PreToolDefer:
        """Leave the call pending: the turn ends, the log keeps the call, and it runs (or is
        refused) when someone settles it (``Agent.settle_deferred``), with the same id.
        ``by`` names who deferred it (for the log)."""
        return PreToolDefer(reason, by)


@final
@frozen
class PreToolAllow(PreToolDecision):
    """Let the call go on to the guards and dispatch."""

    kind: ClassVar[Literal["allow"]] = "allow"
    additional_context: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.additional_context:
            object.__setattr__(self, "additional_context", _contexts(self.additional_context))


@final
@frozen
class PreToolDeny(PreToolDecision):
    """Refuse the call: ``reason`` is its model-visible content, ``info`` (JSON) the detail."""

    kind: ClassVar[Literal["deny"]] = "deny"
    reason: str
    info: Any = None
    additional_context: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _reason(self.reason, "a deny decision's reason")
        if self.info is not None:
            object.__setattr__(self, "info", freeze_json(self.info, "$.info"))
        if self.additional_context:
            object.__setattr__(self, "additional_context", _contexts(self.additional_context))


@final
@frozen
class PreToolAsk(PreToolDecision):
    """Ask the approval service, with ``reason`` as the question."""

    kind: ClassVar[Literal["ask"]] = "ask"
    reason: str
    additional_context: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _reason(self.reason, "an ask decision's reason")
        if self.additional_context:
            object.__setattr__(self, "additional_context", _contexts(self.additional_context))


@final
@frozen
class PreToolDefer(PreToolDecision):
    """Leave the call pending (``reason``, ``by``: why and who, for the log and the person
    who settles it); it carries no context (2.1.332 ignores a deferring hook's)."""

    kind: ClassVar[Literal["defer"]] = "defer"
    reason: str | None = None
    by: str | None = None
    additional_context: tuple[str, ...] = ()


_ALLOW = PreToolAllow()

PreToolVariant: TypeAlias = PreToolAllow | PreToolDeny | PreToolAsk | PreToolDefer


@final
@frozen
class GuardDenial:
    """A guard's veto. A guard returns this or ``None``; there is no way to allow."""

    reason: str
    info: Any = None

    def __post_init__(self) -> None:
        _reason(self.reason, "a guard denial's reason")
        if self.info is not None:
            object.__setattr__(self, "info", freeze_json(self.info, "$.info"))


class PostToolDecision(ClosedUnion):
    """``tools/post-execute``'s answer, applied to the registry's own snapshot of the result.

    ``accept`` keeps the result; ``output`` replaces a successful call's
    structured output (Claude Code's ``updatedToolOutput``): it must match the
    tool's ``output_model``, and the model-visible content becomes the tool's
    ``present(output)`` (a tool without ``present`` shows a string as is and
    other JSON as its text); ``content`` replaces the model-visible content
    (after any output replacement). ``block`` keeps the result too (a failure
    stays a failure and a success is not made one), and appends ``feedback``
    to the content as a final text block so the model reads it right after
    what the tool produced: the content becomes ``(*blocks of content,
    TextBlock(feedback))``, or just ``feedback`` when the content (after any
    replacement) is empty. ``is_error``, ``code`` and ``info`` are never
    changed by a decision. A replacement that does not fit (a failed call's
    output, or one its ``output_model`` rejects) fails the call closed, as
    ``LISTENER_ERROR``.
    """

    __slots__ = ()
    kind: ClassVar[Literal["accept", "block"]]

    @staticmethod
    def accept(
        additional_context: str | Iterable[str] | None = None,
        content: Content | None = None,
        *,
        output: Any = None,
    ) -> PostToolAccept:
        if additional_context is None and content is None and output is None:
            return _ACCEPT
        return PostToolAccept(_contexts(additional_context), content, output)

    @staticmethod
    def block(
        feedback: str,
        additional_context: str | Iterable[str] | None = None,
        content: Content | None = None,
        *,
        output: Any = None,
    ) -> PostToolBlock:
        return PostToolBlock(feedback, _contexts(additional_context), content, output)


@final
@frozen
class PostToolAccept(PostToolDecision):
    """Keep the result, with any ``content`` or ``output`` replacement applied."""

    kind: ClassVar[Literal["accept"]] = "accept"
    additional_context: tuple[str, ...] = ()
    content: Content | None = None
    output: Any = None

    def __post_init__(self) -> None:
        _check_post(self)


@final
@frozen
class PostToolBlock(PostToolDecision):
    """Keep the result and append ``feedback`` for the model to read next."""

    kind: ClassVar[Literal["block"]] = "block"
    feedback: str
    additional_context: tuple[str, ...] = ()
    content: Content | None = None
    output: Any = None

    def __post_init__(self) -> None:
        _reason(self.feedback, "a block's feedback")
        _check_post(self)


def _check_post(decision: PostToolAccept | PostToolBlock) -> None:
    if decision.additional_context:
        contexts = _contexts(decision.additional_context)
        object.__setattr__(decision, "additional_context", contexts)
    if decision.content is not None:
        object.__setattr__(decision, "content", check_content(decision.content))
    if decision.output is not None:
        object.__setattr__(decision, "output", freeze_json(decision.output, "$.output"))


_ACCEPT = PostToolAccept()

PostToolVariant: TypeAlias = PostToolAccept | PostToolBlock
