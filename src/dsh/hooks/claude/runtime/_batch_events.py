"""The bridge's PostToolBatch: once after a step's tool results, before the next model call.

``tool_calls`` as 2.1.332 sends them (the model's own input; each result's text, its blocks,
or an MCP tool's content array); a block, exit 2 or ``continue: false`` stops the loop with
the reason; the contexts reach the model with the step's other hook texts (``_answers``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dsh.agent import Agent, PostToolBatchDecision, PostToolBatchProceed
from dsh.base import thaw_json
from dsh.context import Next
from dsh.hooks.claude.runtime._answers import blocking, event_context, halting, shown_reason
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.hooks.claude.runtime._machinery import SOURCE
from dsh.hooks.claude.transcript._content import batch_content
from dsh.tools import ToolExecutionResult

if TYPE_CHECKING:  # annotations only: a payload is built as a dict
    from dsh.hooks.claude.payloads import PostToolBatchHookInput

__all__ = ["BatchEvents"]


class BatchEvents(Handlers):
    """The PostToolBatch listener (``ClaudeHooksPlugin.apply`` mounts it)."""

    async def _post_tool_batch(
        self,
        agent: Agent,
        results: tuple[ToolExecutionResult, ...],
        nxt: Next[PostToolBatchDecision],
    ) -> PostToolBatchDecision:
        hooks = self.catalog.matching("PostToolBatch", None)
        if not hooks:
            return await nxt()
        payload: PostToolBatchHookInput = self._base(agent, "PostToolBatch")
        # `tool_input` is the model's own, as 2.1.332 sends it: not a PreToolUse `updatedInput`.
        payload["tool_calls"] = [
            {
                "tool_name": r.call.name,
                "tool_input": thaw_json(
                    r.call.original_arguments
                    if r.call.original_arguments is not None
                    else r.call.arguments
                ),
                "tool_use_id": r.call.tool_use_id,
                "tool_response": _batch_response(r),
            }
            for r in results
        ]
        merged = await self._fire(agent, "PostToolBatch", hooks, payload)
        for _, answer in merged.answers:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{SOURCE}:PostToolBatch")
        halt = halting(merged)
        blocks = blocking(merged)
        if halt is not None or blocks:
            reasons = [shown_reason(d, a) for d, a in blocks]
            if halt is not None:
                reasons.insert(0, halt.stop_reason or "PostToolBatch hook stopped the turn")
            return PostToolBatchDecision.stop("\n".join(reasons))
        decision = await nxt()
        text = event_context("PostToolBatch", merged, plain_as=None)
        if not isinstance(decision, PostToolBatchProceed) or not text:
            return decision
        if decision.additional_context:
            text = f"{decision.additional_context}\n{text}"
        return PostToolBatchDecision.proceed(
            text, source=decision.source or f"{SOURCE}:PostToolBatch"
        )


def _batch_response(done: ToolExecutionResult) -> Any:
    """A call's ``tool_response`` in PostToolBatch: an MCP tool's content array as such (the
    ``mcp-project-basic`` recording), any other tool's result as its transcript shows it."""
    tool = done.call.tool
    output = done.result.output
    mcp = tool is not None and tool.mcp_server is not None
    if mcp and not done.result.is_error and isinstance(output, tuple | list):
        return thaw_json(output)
    return batch_content(done.result.content)
