"""A session spend cap, as the Claude Agent SDK's ``maxBudgetUsd``: ``spend_cap(limit, pricer)``.

A plugin that prices each completed model call (``agent/model-response``'s
usage, through ``pricer``: the model's name and the call's ``Usage`` to US
dollars, ``None`` when it has no price) and, once the total reaches ``limit``,
ends the turn as Claude Code 2.1.332 ends it (its engine checks the spend after
each message of the turn and stops at the reply that reached the cap: that reply
stands, its tool calls do not run, nothing more is asked of the model, no Stop
hook fires): the reply's tool calls are denied by a terminal guard (deny-only: it
never allows what another policy refused; the history needs a result for each),
then the turn ends ``stopped``, from the outermost ``agent/post-tool-batch`` or
``agent/turn-continuation`` listener. The denial's ``info`` is typed: ``kind`` is
``"spend_cap"``, with ``limit_usd`` and ``spent_usd``; its reason is what the
model reads. The pricer is dsh's dated price table (``dsh.models._prices``) unless
the caller gives one; ``--max-budget-usd`` mounts it on a run. The call that reaches
the limit is named once in a warning notice (the terminal shows it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from dsh.agent._channels import POST_TOOL_BATCH, TURN_CONTINUATION
from dsh.agent._decisions import ContinuationDecision, ContinuationState, PostToolBatchDecision
from dsh.agent._model_calls import MODEL_RESPONSE, ModelCallEnd
from dsh.agent._turn import STOPPED, EndTurn
from dsh.context import Context, Plugin
from dsh.messages import Usage
from dsh.tools import TOOLS, GuardDenial, ToolCall

if TYPE_CHECKING:
    from dsh.agent._agent import Agent
    from dsh.context import Next
    from dsh.tools import ToolExecutionResult

__all__ = ["SPEND_CAP_KIND", "Pricer", "spend_cap"]

Pricer = Callable[[str, Usage], "float | None"]
"""A call's cost in US dollars from the model's name and its usage; ``None``: no price."""

SPEND_CAP_KIND: Final = "spend_cap"


def spend_cap(limit_usd: float, pricer: Pricer | None = None) -> Plugin:
    """The plugin that denies tool calls once the priced calls reach ``limit_usd``
    (priced by ``pricer``, else by dsh's price table)."""
    if not limit_usd > 0:
        raise ValueError(f"spend_cap: the limit must be a positive amount, not {limit_usd!r}")
    if pricer is None:
        from dsh.models._prices import table_cost

        pricer = table_cost
    price: Pricer = pricer
    spent = [0.0]
    unpriced: set[str] = set()

    def plugin(ctx: Context) -> None:
        @ctx.on(MODEL_RESPONSE)
        async def count(agent: Agent, end: ModelCallEnd) -> None:
            if end.usage is None:
                return
            cost = price(end.call.model, end.usage)
            if cost is None:
                if end.call.model not in unpriced:
                    unpriced.add(end.call.model)
                    agent.notice(
                        f"spend cap: no price for model {end.call.model}; its calls are"
                        " not counted",
                        source="spend-cap",
                        level="warning",
                    )
                return
            below = spent[0] < limit_usd
            spent[0] += max(0.0, cost)
            if below and spent[0] >= limit_usd:
                agent.notice(
                    f"spend cap reached: ${spent[0]:.4f} of ${limit_usd:.4f} spent; the turn"
                    " ends and tool calls are denied from now on",
                    source="spend-cap",
                    level="warning",
                )

        def guard(call: ToolCall) -> GuardDenial | None:
            if spent[0] < limit_usd:
                return None
            reason = (
                f"The session's spend cap is reached: ${spent[0]:.4f} of ${limit_usd:.4f} spent;"
                f" {call.name} was not run."
            )
            info = {"kind": SPEND_CAP_KIND, "limit_usd": limit_usd, "spent_usd": spent[0]}
            return GuardDenial(reason, info)

        ctx.require(TOOLS).guard(guard)

        @ctx.on(POST_TOOL_BATCH, prepend=True)
        async def after_tools(
            agent: Agent,
            results: tuple[ToolExecutionResult, ...],
            nxt: Next[PostToolBatchDecision],
        ) -> PostToolBatchDecision:
            if spent[0] >= limit_usd:
                raise EndTurn(STOPPED)  # the next model call is not made
            return await nxt()

        @ctx.on(TURN_CONTINUATION, prepend=True)
        async def at_the_end(
            agent: Agent, state: ContinuationState, nxt: Next[ContinuationDecision]
        ) -> ContinuationDecision:
            if spent[0] >= limit_usd:
                raise EndTurn(STOPPED)  # no Stop hook, no forced continuation
            return await nxt()

    plugin.__name__ = "spend_cap"
    return plugin
