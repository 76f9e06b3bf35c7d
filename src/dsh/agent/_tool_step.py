"""A step's tool calls: through the registry in groups, each call and result logged in call
order, ``agent/cwd-changed`` after a group that moved the workspace, then the step's context.

Consecutive read-only, concurrency-safe calls run together (unless the agent
runs tools one at a time); every other call runs alone. A group's results are
logged in call order once the whole group is done, so results and context
never interleave.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from dsh.agent._channels import CWD_CHANGED
from dsh.agent._core import AgentCore
from dsh.base import AbortSignal, FrozenDict
from dsh.messages import ToolUse
from dsh.session import ContextMessageEvent, ToolCallEvent, ToolDeferredEvent, ToolResultEvent
from dsh.tools import ToolCall, ToolExecutionResult
from dsh.tools._failures import DEFERRED
from dsh.tools._seal import SealFailure

__all__ = ["run_settled_call", "run_tool_calls"]


async def run_tool_calls(
    core: AgentCore, uses: Sequence[ToolUse], signal: AbortSignal
) -> list[ToolExecutionResult]:
    """Run a step's calls; results in call order, then the step's context. Never interleaved."""
    agent = core.agent
    results: list[ToolExecutionResult] = []
    for group in _groups(core, uses):
        before = agent.workspace.cwd
        if len(group) == 1:
            results.append(await _execute(core, group[0], signal, log_result=True))
        else:
            async with asyncio.TaskGroup() as tg:
                tasks = [tg.create_task(_execute(core, u, signal, log_result=False)) for u in group]
            for task in tasks:
                res = task.result()
                _log_result(core, res)
                results.append(res)
        after = agent.workspace.cwd
        if after != before:
            await core.guarded(CWD_CHANGED, core.ctx.emit(CWD_CHANGED, agent, before, after))
    for res in results:
        for text in res.additional_context:
            core.append(ContextMessageEvent(source="tools/post-execute", text=text))
    core.flush_context()
    return results


def _groups(core: AgentCore, uses: Sequence[ToolUse]) -> list[list[ToolUse]]:
    """Runs of consecutive read-only, concurrency-safe calls; every other call alone."""
    if not core.agent.options.parallel_tools:
        return [[u] for u in uses]
    definitions = core.agent.registry.definitions()
    safe = {d.name for d in definitions if d.read_only and d.concurrency_safe}
    groups: list[list[ToolUse]] = []
    for use in uses:
        if use.name in safe and groups and groups[-1][0].name in safe:
            groups[-1].append(use)
        else:
            groups.append([use])
    return groups


async def _execute(
    core: AgentCore,
    use: ToolUse,
    signal: AbortSignal,
    *,
    log_result: bool,
    approval: FrozenDict | None = None,
) -> ToolExecutionResult:
    agent = core.agent
    # The model's arguments, frozen JSON already, are sealed as they are.
    sealed = await agent.registry.seal(use, agent=agent, parent=agent.parent_token, signal=signal)
    _log_call(core, sealed.call if isinstance(sealed, SealFailure) else sealed)
    res = await agent.registry.run(sealed, signal=signal)
    if log_result:
        _log_result(core, res, approval)
    return res


async def run_settled_call(
    core: AgentCore, use: ToolUse, signal: AbortSignal, approval: FrozenDict
) -> ToolExecutionResult:
    """An approved deferred call, through the whole pipeline again (same ``tool_use_id``);
    its result records how it was settled. Its context follows it, as a step's does."""
    res = await _execute(core, use, signal, log_result=True, approval=approval)
    for text in res.additional_context:
        core.append(ContextMessageEvent(source="tools/post-execute", text=text))
    core.flush_context()
    return res


def _log_call(core: AgentCore, call: ToolCall) -> None:
    core.append(
        ToolCallEvent(
            token=str(call.token),
            parent_token=str(call.parent) if call.parent is not None else None,
            tool_use_id=call.tool_use_id,
            tool_name=call.name,
            arguments=call.arguments,
            original_arguments=call.original_arguments,
            rewritten_by=call.rewritten_by,
        )
    )


def _log_result(
    core: AgentCore, res: ToolExecutionResult, approval: FrozenDict | None = None
) -> None:
    # A record of what happened: durable with the next write-ahead record (a tool call,
    # a hook's invocation) or the turn's end, whichever comes first.
    r = res.result
    if r.code == DEFERRED:
        # Pending, not answered: durable now, since the turn ends on it (_deferral).
        info = r.info if isinstance(r.info, Mapping) else {}
        core.append(
            ToolDeferredEvent(
                token=str(res.call.token),
                tool_use_id=res.call.tool_use_id,
                tool_name=res.call.name,
                arguments=res.call.arguments,
                reason=info.get("reason"),
                by=info.get("by"),
            )
        )
        return
    core.append(
        ToolResultEvent(
            token=str(res.call.token),
            tool_use_id=res.call.tool_use_id,
            content=r.content,
            output=r.output,
            is_error=r.is_error,
            code=r.code,
            info=r.info,
            dispatched=res.dispatched,
            approval=approval if approval is not None else res.approval,
        ),
        durable=False,
    )
