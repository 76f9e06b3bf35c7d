"""Compaction: ``agent/pre-compact`` (vetoable: a veto is a warning notice in Claude Code
2.1.332's words, ``Compaction blocked by PreCompact hook: <reason>``), ``compaction/start``,
the summarization call (``agent/compaction-reply`` after each answer), ``compaction/end``, then
``agent/session-start`` (``compact``) and ``agent/post-compact``;
and what triggers it before a model call (``_loop.compact_if_over_budget``, which imports this
module only then): the projected history over ``compact_budget``
characters, or the usage the last reply reported at or over ``compact_tokens`` (Codex's
``model_auto_compact_token_limit``: Codex compacts before its next request once a reply's
usage reached the limit, and asks again from the summary: ``auto-compact``).

The summary is asked for as ``AgentOptions.summary_ask`` says (dsh's own prompt, or Claude
Code 2.1.332's forked request: ``dsh.agent._summary_ask``), inside ``<summary>`` tags; an
answer without them is asked for once more, as Claude Code 2.1.332 retries it (conformance
case ``compact-bad-summary``), and the second answer is the summary whatever it holds
(``AgentOptions.summary_attempts``: Codex 0.171 takes the first answer as it is). The summary
is the answer's text as it is, tags included (what Claude Code's PostCompact reports)."""

from __future__ import annotations

from dataclasses import replace

from dsh.agent._channels import COMPACTION_REPLY, POST_COMPACT, PRE_COMPACT, SESSION_START
from dsh.agent._core import AgentCore
from dsh.agent._decisions import CompactRequest, CompactTrigger, PreCompactVeto
from dsh.agent._model_calls import model_request, observed_call
from dsh.agent._turn import ERROR, EndTurn, error_text
from dsh.base import AbortSignal
from dsh.messages import AssistantMessage, ModelMessage, UserMessage
from dsh.models import ModelRequest
from dsh.session import CompactionEnd, CompactionStart

__all__ = ["SUMMARY_TAG", "compact"]

SUMMARY_TAG = "<summary>"


async def compact(core: AgentCore, trigger: CompactTrigger, instructions: str | None) -> str | None:
    """Compact the history; the summary, or ``None`` when vetoed or when the summary failed."""
    if core.compacting:
        raise RuntimeError(f"{core.agent!r}: a compaction is already running")
    core.compacting = True
    try:
        request = CompactRequest(trigger=trigger, instructions=instructions)
        decision = await core.guarded(
            PRE_COMPACT, core.ctx.waterfall(PRE_COMPACT, core.agent, request)
        )
        if isinstance(decision, PreCompactVeto):
            core.notice(
                f"Compaction blocked by PreCompact hook: {decision.reason}",
                source="agent/pre-compact",
                level="warning",
            )
            return None
        summary = await _summarize(core, trigger, instructions)
        if summary is None:
            return None
    finally:
        core.compacting = False
    # Claude Code's order: the re-seeding SessionStart (compact), then PostCompact.
    await core.guarded(SESSION_START, core.ctx.emit(SESSION_START, core.agent, "compact"))
    await core.guarded(POST_COMPACT, core.ctx.emit(POST_COMPACT, core.agent, summary))
    core.flush_context()
    return summary


async def _summarize(
    core: AgentCore, trigger: CompactTrigger, instructions: str | None
) -> str | None:
    """``compaction/start``, the summarization call, ``compaction/end``; ``None`` if it failed."""
    ask = core.agent.options.summary_ask
    history = core.projection()
    if ask.fork:
        base = model_request(core, _last_request(history))
    elif ask.system is None:
        base = replace(model_request(core, history), tools=())
    else:
        base = ModelRequest(messages=history, tools=(), system=ask.system)
    core.append(CompactionStart(trigger=trigger, instructions=instructions))
    signal = core.turn.signal if core.turn is not None else AbortSignal()
    text = ""

    for attempt in range(1, core.agent.options.summary_attempts + 1):
        prompt = UserMessage(content=ask.text(attempt, instructions))
        request = ModelRequest(
            messages=(*base.messages, prompt), tools=base.tools, system=base.system
        )
        try:
            reply = await observed_call(core, request, signal, kind="compaction", attempt=attempt)
        except EndTurn as end:
            if end.reason != ERROR and core.turn is not None:
                raise
            what = error_text(end.error) if end.error is not None else end.reason.value
            core.notice(f"compaction failed: {what}", source="agent", level="error")
            return None
        text = reply.text.strip()
        await core.guarded(COMPACTION_REPLY, core.ctx.emit(COMPACTION_REPLY, core.agent, text))
        if SUMMARY_TAG in text:
            break
    summary = text or "(the summary was empty)"
    core.append(CompactionEnd(summary=summary))
    return summary


def _last_request(history: tuple[ModelMessage, ...]) -> tuple[ModelMessage, ...]:
    """The messages the last model request carried: the history without the replies at its
    end (what Claude Code 2.1.332's forked compaction sends, its prompt cache's prefix)."""
    end = len(history)
    while end > 0 and isinstance(history[end - 1], AssistantMessage):
        end -= 1
    return history[:end]
