"""The tool and approval decisions are closed unions that mypy narrows; the caller is typed."""

from __future__ import annotations

from typing import assert_never

from dsh.agent import Agent, calling_agent
from dsh.approval import (
    ApprovalAbstain,
    ApprovalAllow,
    ApprovalDecision,
    ApprovalDeny,
    ApprovalRequest,
    ApprovalVariant,
)
from dsh.context import Context, Next
from dsh.tools import (
    APPROVAL_REQUEST,
    POST_EXECUTE,
    PRE_EXECUTE,
    TASK_CREATED,
    TOOLS,
    InputKeep,
    InputReplace,
    InputRewrite,
    InputRewriteVariant,
    PostToolAccept,
    PostToolBlock,
    PostToolDecision,
    PreToolAllow,
    PreToolAsk,
    PreToolDecision,
    PreToolDefer,
    PreToolDeny,
    PreToolVariant,
    Task,
    TaskBlock,
    TaskDecision,
    ToolCall,
    ToolCaller,
    ToolRegistry,
    ToolResult,
    Workspace,
)

ctx = Context()

# -- the named constructors give the precise variant --------------------------------

deny: PreToolDeny = PreToolDecision.deny("no", {"rule": 1})
ask: PreToolAsk = PreToolDecision.ask("sure?")
defer: PreToolDefer = PreToolDecision.defer("later", by="a policy")
deferred_why: str | None = defer.reason
allow: PreToolAllow = PreToolDecision.allow(additional_context="note")
reason: str = deny.reason  # a deny always has its reason: no cast
asked: str = ask.reason
keep: InputKeep = InputRewrite.keep()
replace: InputReplace = InputRewrite.replace({"text": "x"}, reason="why")
block: PostToolBlock = PostToolDecision.block("read this")
accept: PostToolAccept = PostToolDecision.accept(content="shown")
feedback: str = block.feedback
task_block: TaskBlock = TaskDecision.block("not now")
approval_deny: ApprovalDeny = ApprovalDecision.deny("no", interrupt=True)
approval_allow: ApprovalAllow = ApprovalDecision.allow(always=True)
abstain: ApprovalAbstain = ApprovalDecision.abstain()


def pre_text(decision: PreToolVariant) -> str:
    match decision:
        case PreToolAllow():
            return "allowed"
        case PreToolDeny(reason=why):
            return why
        case PreToolAsk():
            return decision.reason
        case PreToolDefer():
            return "deferred"
        case _:
            assert_never(decision)


def approval_text(decision: ApprovalVariant) -> str:
    if isinstance(decision, ApprovalDeny):
        return decision.reason
    if isinstance(decision, ApprovalAllow):
        return decision.reason or "allowed"
    return "abstained"


def rewritten(answer: InputRewriteVariant) -> object:
    return answer.arguments if isinstance(answer, InputReplace) else None


# -- listeners: a listener narrows what ``next`` decided -----------------------------


@ctx.on(PRE_EXECUTE)
async def pre_ok(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
    decision = await next()
    if isinstance(decision, PreToolDeny):
        return PreToolDecision.deny(f"also: {decision.reason}", decision.info)
    return decision


@ctx.on(APPROVAL_REQUEST)
async def approval_ok(
    call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
) -> ApprovalDecision:
    return ApprovalDecision.abstain()


@ctx.on(TASK_CREATED)
async def task_ok(agent: ToolCaller | None, task: Task, next: Next[TaskDecision]) -> TaskDecision:
    return await next()


# -- the caller is typed: an Agent is a ToolCaller -----------------------------------


def as_caller(agent: Agent) -> ToolCaller:
    return agent


def read(caller: ToolCaller) -> tuple[str, Workspace]:
    caller.cancel("stop", when="after_step")
    return caller.session_id, caller.workspace


def bridge_view(caller: ToolCaller | None) -> Agent | None:
    return calling_agent(caller)


registry = ToolRegistry(ctx)
ctx.provide(TOOLS, registry)
caller: ToolCaller = as_caller(Agent.__new__(Agent))


# -- rejected -----------------------------------------------------------------------

allow_reason = allow.reason  # type: ignore[attr-defined]
PreToolDecision.deny()  # type: ignore[call-arg]
deny.reason = "changed"  # type: ignore[misc]
accept_feedback = accept.feedback  # type: ignore[attr-defined]
abstain_reason = abstain.reason  # type: ignore[attr-defined]
PreToolDeny(reason=3)  # type: ignore[arg-type]
PostToolDecision("accept", None, (), None, None)  # type: ignore[call-arg]
caller.cancel("stop", when="later")  # type: ignore[arg-type]
not_a_caller: ToolCaller = object()  # type: ignore[assignment]


@ctx.on(PRE_EXECUTE)  # type: ignore[arg-type]
async def pre_wrong(call: ToolCall, next: Next[PreToolDecision]) -> PostToolDecision:
    return PostToolDecision.accept()


@ctx.on(POST_EXECUTE)  # type: ignore[arg-type]
async def post_wrong(
    call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
) -> PreToolDecision:
    return PreToolDecision.allow()


def unnarrowed(decision: PreToolDecision) -> object:
    return decision.reason  # type: ignore[attr-defined]
