"""One firing's answers, read as Claude Code reads them, in its wording.

``Merged`` (every decided answer of one event firing, in declaration order) and what the
handler groups take from it: what blocks (``blocking``, ``shown_reason``,
``blocked_prompt_message``), what halts (``halting``) and what reaches the model as context
(``additional_contexts``, ``prompt_context_lines``, ``event_context``, how 2.1.332 joins
hook texts in one message: ``ONE_PREFIX_EVENTS``, ``BETWEEN``); and ``PreToolOutcome``,
PreToolUse's merged answer for one call. The firing itself is ``_machinery``'s.
"""

from __future__ import annotations

from typing import Final, TypeAlias

from dsh._frozen import frozen
from dsh.hook_protocol import HookOutcome, MergedAnswers
from dsh.hook_protocol._context_total import within_total
from dsh.hooks.claude.answers._answer import HookAnswer
from dsh.hooks.claude.settings._types import HookDeclaration

__all__ = [
    "BETWEEN",
    "ONE_PREFIX_EVENTS",
    "Merged",
    "PreToolOutcome",
    "additional_contexts",
    "blocked_prompt_message",
    "blocking",
    "event_context",
    "fail_closed_reason",
    "halting",
    "prompt_context_lines",
    "shown_reason",
]

Merged: TypeAlias = MergedAnswers[HookDeclaration, HookAnswer]
"""Every decided answer of one event firing, in declaration order."""


@frozen
class PreToolOutcome:
    """PreToolUse's merged answer for one call (deny > defer > ask > allow; contexts in
    order); ``deferred_by`` names the hooks that deferred it."""

    denials: tuple[str, ...]
    asks: tuple[str, ...]
    contexts: tuple[str, ...]
    allowed: bool = False
    deferred_by: str | None = None


def additional_contexts(merged: Merged) -> list[str]:
    """Each answer's ``additionalContext``, in declaration order, within the event's total."""
    texts = [(d.declared_command, a.additional_context) for d, a in merged if a.additional_context]
    return within_total(_event_of(merged), texts) if texts else []


def _event_of(merged: Merged) -> str:
    return next((d.event for d, _ in merged), "")


def blocking(merged: Merged) -> tuple[tuple[HookDeclaration, HookAnswer], ...]:
    """The answers that block (exit 2, ``decision: "block"``), with their declarations."""
    return merged.where(lambda a: a.blocks)


_FAILED_CLOSED: Final = 'blocking because onFailure is "block"'


def fail_closed_reason(outcome: HookOutcome[HookAnswer]) -> str:
    """A handler's reason when it failed under ``onFailure: "block"``, in 2.1.332's words
    (what follows ``[<command>]: ``): ``failed; blocking because onFailure is "block"`` and
    the stderr (``No stderr output`` when none) on the next line, or ``timed out; ...``
    alone (tests/fixtures/claude_fail_wordings.json); an ``mcp_tool`` handler's are
    ``_mcp_tool_hook``'s. A failure 2.1.332 has no output for (an answer that does not
    decode, or is for another event) gives dsh's reason on that line."""
    from dsh.hooks.claude.answers._caps import cap_text
    from dsh.hooks.claude.runtime._mcp_tool_hook import McpToolHook, fail_closed_text

    hook = outcome.run.command.call
    if isinstance(hook, McpToolHook):
        if outcome.no_decision in ("timed_out", "killed"):
            return fail_closed_text(hook.target.server, "call", timed_out=True)
        return outcome.run.stderr.strip() or outcome.reason or "hook failed"
    if outcome.no_decision == "timed_out":
        return f"timed out; {_FAILED_CLOSED}"
    if outcome.no_decision in ("nonzero_exit", "killed"):
        detail = outcome.run.stderr.strip() or "No stderr output"
    else:
        detail = outcome.reason or "hook failed"
    return f"failed; {_FAILED_CLOSED}\n{cap_text(detail)}"


def shown_reason(decl: HookDeclaration, answer: HookAnswer) -> str:
    """A blocking answer's reason as Claude Code shows it: a JSON ``reason`` as it is, exit 2's
    stderr after ``[<command>]: `` (how 2.1.332 names the hook that printed it)."""
    if answer.decision == "block" and answer.reason:
        return answer.reason
    if answer.blocking_error is not None:
        stderr = answer.blocking_error.strip() or "No stderr output"
        return f"[{decl.declared_command}]: {stderr}"
    return answer.reason or "blocked by hook"


def blocked_prompt_message(event: str, merged: Merged, prompt: str) -> str | None:
    """A prompt event's block as Claude Code shows it (``<Event> operation blocked by
    hook:``, the reasons, the original prompt unless suppressed), or ``None``. An exit 2's
    stderr is quoted as the hook wrote it, its last newline too (2.1.332's ``prompt-exit2``,
    tests/fixtures/claude_fail_wordings.json), where the other events' feedback trims it."""
    blocks = blocking(merged)
    if not blocks:
        return None
    reasons = "\n".join(_prompt_reason(d, a) for d, a in blocks)
    message = f"{event} operation blocked by hook:\n{reasons}"
    if not any(a.suppress_original_prompt for _, a in merged.answers):
        message += f"\n\nOriginal prompt: {prompt}"
    return message


def _prompt_reason(decl: HookDeclaration, answer: HookAnswer) -> str:
    stderr = answer.blocking_error
    if answer.exit_code == 2 and stderr and answer.decision != "block":
        return f"[{decl.declared_command}]: {stderr}"
    return shown_reason(decl, answer)


def prompt_context_lines(event: str, merged: Merged) -> list[str]:
    """Each answer's ``additionalContext`` (else its plain stdout), in Claude Code's wording."""
    lines: list[tuple[str, str]] = []
    for decl, answer in merged.answers:
        if answer.additional_context:
            text = f"{event} hook additional context: {answer.additional_context}"
            lines.append((decl.declared_command, text))
        elif answer.plain:
            lines.append((decl.declared_command, f"{event} hook success: {answer.plain}"))
    return within_total(event, lines)


# The events whose hooks' contexts 2.1.332 gives under one prefix, joined by newlines
# (`PreToolUse:Bash hook additional context: C1\nC2`); the others give each hook its own
# prefixed text, the texts joined by a blank line (recorded: `context-joined` in
# tests/fixtures/claude_strict.json).
ONE_PREFIX_EVENTS: Final = frozenset({"SessionStart", "PreToolUse"})
BETWEEN: Final = "\n\n"
"""How 2.1.332 joins the hook texts one model request carries, in one message."""


def event_context(event: str, merged: Merged, *, plain_as: str | None, name: str = "") -> str:
    """What one event's hooks add for the model, as 2.1.332 writes it in one message: the
    contexts under one prefix (``ONE_PREFIX_EVENTS``) or each under its own, then each plain
    stdout (named ``plain_as``), all within the event's total; ``""`` when none.
    ``name``: the tool's, for a tool event's prefix (``PreToolUse:Bash``)."""
    label = f"{event}:{name}" if name else event
    contexts = additional_contexts(merged)
    plain = [
        (d.declared_command, f"{plain_as} hook success: {a.plain}")
        for d, a in merged
        if a.plain and not a.additional_context and plain_as is not None
    ]
    texts = [f"{label} hook additional context: {c}" for c in contexts]
    if contexts and event in ONE_PREFIX_EVENTS:
        texts = [f"{label} hook additional context: " + "\n".join(contexts)]
    return BETWEEN.join([*texts, *within_total(event, plain)])


def halting(merged: Merged) -> HookAnswer | None:
    """The first ``continue: false`` answer."""
    return merged.first(lambda a: a.halt)
