"""The native-plugin proof: every seam composed by plain plugins, no hook protocol involved.

One session through the real loop, the scripted model, the real built-in tools
and a JSONL store. Each plugin is an ordinary function of a ``Context``; the
test asserts the exact session log (types and key fields, in order) as it was
written to disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dsh.agent import (
    PROMPT_SUBMIT,
    SESSION_START,
    TURN_CONTINUATION,
    Agent,
    ContinuationDecision,
    ContinuationState,
    PromptDecision,
    PromptSource,
    SessionStartSource,
)
from dsh.approval import APPROVAL, ApprovalBroker, ScriptedChannel
from dsh.base import AbortSignal
from dsh.context import Context, Next
from dsh.messages import Content, TextBlock, content_text
from dsh.session import (
    AssistantMessageEvent,
    ContextMessageEvent,
    NoticeEvent,
    PromptBlockedEvent,
    SessionEvent,
    SteeringMessageEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEnd,
    TurnEndReason,
    TurnStart,
    UserMessageEvent,
)
from dsh.tools import (
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    TOOLS,
    ExecuteNext,
    GuardDenial,
    PostToolDecision,
    PreToolDecision,
    ToolCall,
    ToolExecution,
    ToolResult,
)
from tests.agent.support import bash, make_harness, text, tool

# -- the plugins: each one seam, written as a user would ---------------------------------


def session_context(ctx: Context) -> None:
    @ctx.on(SESSION_START)
    async def seed(agent: Agent, source: SessionStartSource) -> None:
        agent.inject(f"SESSION-CONTEXT ({source})", "plugin:session_context")


def prompt_policy(ctx: Context) -> None:
    @ctx.on(PROMPT_SUBMIT)
    async def policy(
        agent: Agent, content: Content, source: PromptSource, next: Next[PromptDecision]
    ) -> PromptDecision:
        if "password" in content_text(content):
            return PromptDecision.block("PROMPT-BLOCKED: no passwords")
        return PromptDecision.allow(
            content=f"{content_text(content)} [REWRITTEN]",
            additional_context="PROMPT-CONTEXT",
            source="plugin:prompt_policy",
        )


def pre_tool_policy(ctx: Context) -> None:
    @ctx.on(PRE_EXECUTE)
    async def policy(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        if call.name == "Bash" and "rm -rf" in call.arguments["command"]:
            return PreToolDecision.deny("DENY-RM", info={"rule": "no-rm"})
        if call.name == "Write":
            return PreToolDecision.ask("ASK-WRITE")
        return await next()


def read_only_echo_guard(ctx: Context) -> None:
    def guard(call: ToolCall) -> GuardDenial | None:
        if call.name == "Bash" and "GUARDED" in call.arguments["command"]:
            return GuardDenial("GUARD-DENIED")
        return None

    ctx.require(TOOLS).guard(guard)


def bash_timeout(ctx: Context) -> None:
    @ctx.on(EXECUTE)
    async def timeout(exec: ToolExecution, next: ExecuteNext) -> ToolResult:
        if exec.call.name != "Bash":
            return await next()
        limit = AbortSignal.timeout(0.5, "TIMEOUT-0.5s")
        return await next(signal=AbortSignal.any([exec.signal, limit]))


def post_tool_transform(ctx: Context) -> None:
    @ctx.on(POST_EXECUTE)
    async def transform(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        if call.name == "Bash" and "POST-BLOCK" in call.arguments["command"]:
            return PostToolDecision.block("POST-FEEDBACK", additional_context="POST-CONTEXT")
        if call.name == "Read":
            return PostToolDecision.accept(content="REPLACED-CONTENT")
        return await next()


def result_observer(seen: list[tuple[str, bool, str | None]]) -> Any:
    def apply(ctx: Context) -> None:
        def observe(call: ToolCall, result: ToolResult) -> None:
            seen.append((call.name, result.is_error, result.code))

        ctx.on(RESULT, observe)

    return apply


def keep_going_once(ctx: Context) -> None:
    @ctx.on(TURN_CONTINUATION)
    async def once(
        agent: Agent, state: ContinuationState, next: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        if not state.stop_hook_active:
            return ContinuationDecision.continue_("CONTINUE-REASON: check your work")
        return await next()


# -- the session -----------------------------------------------------------------------


def _row(e: SessionEvent) -> tuple[Any, ...]:
    """The key fields of an event, for an exact comparison."""
    match e:
        case TurnStart():
            return ("turn/start",)
        case TurnEnd(reason=reason, cause=cause):
            return ("turn/end", reason, cause)
        case PromptBlockedEvent(prompt=prompt, reason=reason, source=source):
            return ("prompt/blocked", prompt, reason, source)
        case NoticeEvent(text=t, source=source):
            return ("notice", t, source)
        case UserMessageEvent(content=content, source=source):
            return ("user/message", content, source)
        case ContextMessageEvent(source=source, text=t):
            return ("context/message", source, t)
        case SteeringMessageEvent(text=t, source=source):
            return ("steering/message", t, source)
        case AssistantMessageEvent(text=t, tool_calls=calls):
            return ("assistant/message", t, tuple(c.name for c in calls))
        case ToolCallEvent(tool_name=name, arguments=arguments):
            key = arguments.get("command", arguments.get("file_path"))
            return ("tool/call", name, key)
        case ToolResultEvent(content=content, is_error=is_error, code=code, dispatched=dispatched):
            body: Any = content
            if isinstance(content, tuple):
                body = tuple(b.text if isinstance(b, TextBlock) else b for b in content)
            elif code is None and not is_error:
                body = content.strip()
            return ("tool/result", body, is_error, code, dispatched)
    return (e.type,)


async def test_every_seam_composed_by_native_plugins(tmp_path: Path) -> None:
    script = {
        "responses": [
            [
                text("Working."),
                bash("rm -rf build"),
                tool("Write", file_path="asked.txt", content="written after approval\n"),
                bash("echo GUARDED"),
                bash("sleep 30"),
                bash("echo POST-BLOCK"),
                tool("Read", file_path="asked.txt"),
            ],
            [text("All done.")],
            [text("Checked: all done.")],
        ]
    }
    h = make_harness(tmp_path, script)
    approvals = ScriptedChannel(["allowed-once"])
    h.ctx.provide(APPROVAL, ApprovalBroker(approvals))
    observed: list[tuple[str, bool, str | None]] = []
    for plugin in (
        session_context,
        prompt_policy,
        pre_tool_policy,
        read_only_echo_guard,
        bash_timeout,
        post_tool_transform,
        result_observer(observed),
        keep_going_once,
    ):
        h.ctx.plugin(plugin)

    agent = h.agent()
    agent.send("my password is hunter2")
    agent.send("tidy the project")
    result = await agent.run_turn()
    await agent.close("other")

    assert result.end_reason == TurnEndReason("completed")
    assert (result.steps, result.final_text) == (3, "Checked: all done.")
    assert [n.text for n in result.notices] == ["PROMPT-BLOCKED: no passwords"]
    assert [r.tool_name for r in approvals.requests] == ["Write"]
    assert (h.project / "asked.txt").read_text() == "written after approval\n"
    assert observed == [
        ("Bash", True, "DENIED"),
        ("Write", False, None),
        ("Bash", True, "DENIED"),
        ("Bash", True, "ABORTED"),
        ("Bash", False, None),
        ("Read", False, None),
    ]

    logged = h.store.load(agent.session_id)
    rows = [_row(e) for e in logged]
    assert rows == [
        ("context/message", "plugin:session_context", "SESSION-CONTEXT (startup)"),
        ("turn/start",),
        ("prompt/blocked", "my password is hunter2", "PROMPT-BLOCKED: no passwords", "user"),
        ("notice", "PROMPT-BLOCKED: no passwords", "agent/prompt-submit"),
        ("user/message", "tidy the project [REWRITTEN]", "user"),
        ("context/message", "plugin:prompt_policy", "PROMPT-CONTEXT"),
        ("assistant/message", "Working.", ("Bash", "Write", "Bash", "Bash", "Bash", "Read")),
        ("tool/call", "Bash", "rm -rf build"),
        ("tool/result", "DENY-RM", True, "DENIED", False),
        ("tool/call", "Write", "asked.txt"),
        (
            "tool/result",
            "File created successfully at: asked.txt"  # as the call wrote it
            " (file state is current in your context — no need to Read it back)",
            False,
            None,
            True,
        ),
        ("tool/call", "Bash", "echo GUARDED"),
        ("tool/result", "GUARD-DENIED", True, "DENIED", False),
        ("tool/call", "Bash", "sleep 30"),
        ("tool/result", "TIMEOUT-0.5s", True, "ABORTED", True),
        ("tool/call", "Bash", "echo POST-BLOCK"),
        ("tool/result", ("POST-BLOCK", "POST-FEEDBACK"), False, None, True),
        ("tool/call", "Read", "asked.txt"),
        ("tool/result", "REPLACED-CONTENT", False, None, True),
        ("context/message", "tools/post-execute", "POST-CONTEXT"),
        ("assistant/message", "All done.", ()),
        ("steering/message", "CONTINUE-REASON: check your work", "continuation"),
        ("assistant/message", "Checked: all done.", ()),
        ("turn/end", TurnEndReason("completed"), None),
    ]
    # The denial's detail stays out of the model's view; the model saw the reasons verbatim.
    denied = [e for e in logged if isinstance(e, ToolResultEvent) and e.code == "DENIED"]
    assert denied[0].info is not None
    last_request = h.requests()[-1]["messages"]
    assert [m["role"] for m in last_request] == [
        "context",
        "user",
        "context",
        "assistant",
        *["tool"] * 6,
        "context",
        "assistant",
        "steering",
    ]
