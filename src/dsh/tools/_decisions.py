"""The decisions a tool call's policies return: input rewrite, pre-execute, guard, post-execute.

Each is a frozen value built with a named constructor that checks its
arguments, so a listener that builds a bad decision fails at the place it
does so (the pipeline reports that as ``LISTENER_ERROR``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, cast, final

from dsh._frozen import frozen
from dsh.session import Content, FrozenDict, ImageBlock, TextBlock, freeze_json

__all__ = [
    "GuardDenial",
    "InputRewrite",
    "PostToolDecision",
    "PreToolDecision",
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
    """``value`` as model-visible content (a str, or a tuple of text and image blocks).

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
        else:
            raise TypeError(f"{what}[{i}] is {type(block).__name__}, not a TextBlock or ImageBlock")
    return value if isinstance(value, tuple) else tuple(value)


@final
@frozen
class InputRewrite:
    """A ``tools/rewrite-input`` listener's answer: keep the input, or replace all of it.

    ``replace`` carries the WHOLE new input (include the unchanged fields),
    frozen and checked to be a JSON object when the answer is built; the
    registry then validates it against the tool's schema. ``keep`` (or
    answering ``None``) never erases an earlier listener's rewrite.
    ``reason`` says why, for the logs.
    """

    kind: Literal["keep", "replace"]
    arguments: FrozenDict | None = None
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("keep", "replace"):
            raise ValueError(f"InputRewrite kind {self.kind!r} is not keep or replace")
        if self.reason is not None:
            _reason(self.reason, "an input rewrite's reason")
        if self.kind == "keep":
            if self.arguments is not None:
                raise ValueError("a keep rewrite carries no arguments; use InputRewrite.replace")
            return
        value = self.arguments
        if not isinstance(value, Mapping):
            raise TypeError(
                "a replace rewrite's arguments must be a mapping (the whole new input),"
                f" not {type(value).__name__}"
            )
        object.__setattr__(self, "arguments", freeze_json(value, "$.arguments"))

    @classmethod
    def keep(cls) -> InputRewrite:
        return _KEEP

    @classmethod
    def replace(cls, arguments: Mapping[str, Any], *, reason: str | None = None) -> InputRewrite:
        """Replace the whole input with ``arguments`` (a JSON object)."""
        # ``__post_init__`` checks and freezes it.
        return cls("replace", cast(FrozenDict, arguments), reason)


_KEEP = InputRewrite("keep")


@final
@frozen
class PreToolDecision:
    """``tools/pre-execute``'s answer: allow, deny (skips guards and dispatch) or ask.

    ``additional_context`` becomes model-visible context after the step's
    tool results, whatever the call's outcome. Build one with ``allow()``,
    ``deny(reason, info)`` or ``ask(reason)``; every field is checked however
    it is built.
    """

    kind: Literal["allow", "deny", "ask"]
    reason: str | None = None
    info: Any = None
    additional_context: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in ("allow", "deny", "ask"):
            raise ValueError(f"PreToolDecision kind {self.kind!r} is not allow, deny or ask")
        if self.kind != "allow" or self.reason is not None:
            _reason(self.reason, f"a {self.kind} decision's reason")
        if self.info is not None:
            object.__setattr__(self, "info", freeze_json(self.info, "$.info"))
        if self.additional_context:
            object.__setattr__(self, "additional_context", _contexts(self.additional_context))

    @classmethod
    def allow(cls, *, additional_context: str | Iterable[str] | None = None) -> PreToolDecision:
        if additional_context is None:
            return _ALLOW
        return cls("allow", additional_context=_contexts(additional_context))

    @classmethod
    def deny(
        cls,
        reason: str,
        info: Any = None,
        *,
        additional_context: str | Iterable[str] | None = None,
    ) -> PreToolDecision:
        """Deny the call: ``reason`` is the model-visible content, ``info`` (JSON) the detail."""
        return cls("deny", reason, info, _contexts(additional_context))

    @classmethod
    def ask(
        cls, reason: str, *, additional_context: str | Iterable[str] | None = None
    ) -> PreToolDecision:
        """Ask the approval service; only an allowed outcome lets the call go on."""
        return cls("ask", reason, None, _contexts(additional_context))


_ALLOW = PreToolDecision("allow")


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


@final
@frozen
class PostToolDecision:
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

    kind: Literal["accept", "block"]
    feedback: str | None = None
    additional_context: tuple[str, ...] = ()
    content: Content | None = None
    output: Any = None

    def __post_init__(self) -> None:
        if self.kind not in ("accept", "block"):
            raise ValueError(f"PostToolDecision kind {self.kind!r} is not accept or block")
        if self.kind == "block" or self.feedback is not None:
            _reason(self.feedback, "a block's feedback")
        if self.additional_context:
            object.__setattr__(self, "additional_context", _contexts(self.additional_context))
        if self.content is not None:
            object.__setattr__(self, "content", check_content(self.content))
        if self.output is not None:
            object.__setattr__(self, "output", freeze_json(self.output, "$.output"))

    @classmethod
    def accept(
        cls,
        additional_context: str | Iterable[str] | None = None,
        content: Content | None = None,
        *,
        output: Any = None,
    ) -> PostToolDecision:
        if additional_context is None and content is None and output is None:
            return _ACCEPT
        return cls("accept", None, _contexts(additional_context), content, output)

    @classmethod
    def block(
        cls,
        feedback: str,
        additional_context: str | Iterable[str] | None = None,
        content: Content | None = None,
        *,
        output: Any = None,
    ) -> PostToolDecision:
        return cls("block", feedback, _contexts(additional_context), content, output)


_ACCEPT = PostToolDecision("accept")
