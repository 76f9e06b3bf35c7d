"""What one event's hooks came to, in words a fixture can pin: ``HookEffect``.

``claude_effect`` and ``codex_effect`` read the trials of one payload (each
hook's run and decoded answer) with their bridge's own rules and say, for any
event, four things a test or ``dsh hooks test --fixtures`` compares: the
``decision`` (``deny``, ``ask``, ``allow`` for the permission events; ``block``,
``halt`` or ``none`` for any), the ``model_text`` (what the hooks hand the
model: a denial's tool error as the model reads it, a block reason the model
reads, each context), the ``exit_codes`` (each hook's, in order; ``None`` for
one that did not exit) and the ``notices`` (what the user is shown: a system
message, a halt's stop reason, a blocked prompt's reason, a hook's failure).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.hooks.claude import HookTrial, pre_tool_decision, shown_reason
from dsh.hooks.codex import CodexHookTrial, codex_pre_tool_decision
from dsh.tools import PreToolAllow, PreToolAsk, PreToolDecision, PreToolDeny

__all__ = ["EffectDecision", "HookEffect", "claude_effect", "codex_effect", "stronger"]

EffectDecision: TypeAlias = Literal["allow", "ask", "block", "deny", "halt", "none"]
"""The kinds of decision an event's hooks come to (the strongest wins)."""

_CLAUDE_MODEL_READS_BLOCK = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PostToolBatch"}
)
_CODEX_MODEL_READS_BLOCK = frozenset({"PostToolUse", "Stop", "SubagentStop"})
_PLAIN_IS_CONTEXT = frozenset({"SessionStart", "UserPromptSubmit"})


@final
@frozen(kw_only=True)
class HookEffect:
    """What one event's hooks came to: the ``decision``, what the model reads
    (``model_text``), each hook's exit code (``exit_codes``) and what the user is
    shown (``notices``)."""

    decision: EffectDecision
    model_text: tuple[str, ...] = ()
    exit_codes: tuple[int | None, ...] = ()
    notices: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The plain-JSON form a fixture's ``expect`` holds."""
        return {
            "decision": self.decision,
            "model_text": list(self.model_text),
            "exit_codes": list(self.exit_codes),
            "notices": list(self.notices),
        }


@final
@frozen(kw_only=True)
class _Said:
    """One hook's answer in the words both bridges share (their answer types differ)."""

    system_message: str | None
    halt: bool
    stop_reason: str | None
    behavior: Literal["allow", "ask", "deny"] | None
    message: str | None
    blocks: bool
    block_reason: str
    additional_context: str | None
    plain: str | None


def claude_effect(event: str, tool: str, trials: Sequence[HookTrial]) -> HookEffect:
    """What Claude Code's answers to one ``event`` payload come to (``tool``: its tool name)."""
    said = [_claude_said(t) for t in trials]
    decision, model, notices = _fold(event, said, _CLAUDE_MODEL_READS_BLOCK)
    if event == "PreToolUse":
        pre = pre_tool_decision(tool, trials)
        decision = stronger(decision, _pre_tool_kind(pre, trials))
        if isinstance(pre, PreToolDeny):
            model.insert(0, pre.reason)
        elif isinstance(pre, PreToolAsk):
            notices.append(pre.reason)
        model.extend(_contexts(pre))
    problems = [t.problem for t in trials if t.problem]
    return _effect(decision, model, problems + notices, [t.run.exit_code for t in trials])


def codex_effect(
    event: str, tool: str, tool_input: Mapping[str, Any], trials: Sequence[CodexHookTrial]
) -> HookEffect:
    """What Codex's answers to one ``event`` payload come to."""
    said = [_codex_said(t) for t in trials]
    decision, model, notices = _fold(event, said, _CODEX_MODEL_READS_BLOCK)
    if event == "PreToolUse":
        pre = codex_pre_tool_decision(tool, tool_input, trials)
        if isinstance(pre, PreToolDeny):
            decision = stronger(decision, "deny")
            model.insert(0, pre.reason)
        elif any(t.answer is not None and t.answer.permission == "allow" for t in trials):
            decision = stronger(decision, "allow")
        model.extend(_contexts(pre))
    problems = [t.problem for t in trials if t.problem]
    return _effect(decision, model, problems + notices, [t.run.exit_code for t in trials])


def _claude_said(trial: HookTrial) -> _Said | None:
    answer = trial.answer
    if answer is None:
        return None
    request = answer.permission_request
    return _Said(
        system_message=answer.system_message,
        halt=answer.halt,
        stop_reason=answer.stop_reason,
        behavior=request.behavior if request is not None else None,
        message=request.message if request is not None else None,
        blocks=answer.blocks,
        block_reason=shown_reason(trial.hook, answer) if answer.blocks else "",
        additional_context=answer.additional_context,
        plain=answer.plain,
    )


def _codex_said(trial: CodexHookTrial) -> _Said | None:
    answer = trial.answer
    if answer is None:
        return None
    return _Said(
        system_message=answer.system_message,
        halt=answer.halt,
        stop_reason=answer.stop_reason,
        behavior=answer.behavior,
        message=answer.message,
        blocks=answer.block,
        block_reason=answer.reason or "",
        additional_context=answer.additional_context,
        plain=answer.plain,
    )


def _fold(
    event: str, said: Sequence[_Said | None], model_reads_block: frozenset[str]
) -> tuple[EffectDecision, list[str], list[str]]:
    """The decision, model texts and notices of the answers, in order (PreToolUse's
    permission decision is the bridge's own, added after)."""
    model: list[str] = []
    notices: list[str] = []
    decision: EffectDecision = "none"
    for answer in said:
        if answer is None:
            continue
        if answer.system_message:
            notices.append(answer.system_message)
        if answer.halt:
            decision = "halt"
            notices.append(answer.stop_reason or "")
        if answer.behavior is not None and decision != "halt":
            decision = stronger(decision, answer.behavior)
            if answer.message:
                model.append(answer.message)
        if answer.blocks and event != "PreToolUse":
            decision = stronger(decision, "block")
            (model if event in model_reads_block else notices).append(answer.block_reason)
        if event != "PreToolUse" and answer.additional_context:
            model.append(answer.additional_context)
        if answer.plain and event in _PLAIN_IS_CONTEXT:
            model.append(answer.plain)
    return decision, model, notices


def _effect(
    decision: EffectDecision, model: list[str], notices: list[str], codes: list[int | None]
) -> HookEffect:
    return HookEffect(
        decision=decision,
        model_text=tuple(model),
        exit_codes=tuple(codes),
        notices=tuple(notices),
    )


_RANK: dict[EffectDecision, int] = {
    "none": 0,
    "allow": 1,
    "ask": 2,
    "block": 3,
    "deny": 3,
    "halt": 4,
}


def stronger(current: EffectDecision, new: EffectDecision) -> EffectDecision:
    """The stronger of two decisions (``halt`` over ``deny`` and ``block``, over ``ask`` ...)."""
    return new if _RANK[new] > _RANK[current] else current


def _contexts(pre: PreToolDecision) -> tuple[str, ...]:
    if isinstance(pre, PreToolAllow | PreToolAsk | PreToolDeny):
        return pre.additional_context
    return ()


def _pre_tool_kind(pre: PreToolDecision, trials: Sequence[HookTrial]) -> EffectDecision:
    if isinstance(pre, PreToolDeny):
        return "deny"
    if isinstance(pre, PreToolAsk):
        return "ask"
    if any(t.answer is not None and t.answer.permission_decision == "allow" for t in trials):
        return "allow"
    return "none"
