"""PreToolUse ``updatedInput`` on ``tools/rewrite-input``: real hook processes, the real loop.

PreToolUse hooks run once per call, before the call's identity; the merged
decision is applied when the call reaches ``tools/pre-execute``. A rewrite is
applied with ``allow``, ``ask`` or no decision, ignored with ``deny`` and
``defer``, replaces the whole input, and the last valid one in declaration
order wins.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.approval import APPROVAL, ApprovalRequest, ChannelAnswer
from dsh.context._chain import describe
from dsh.session import NoticeEvent, ToolCallEvent
from dsh.tools import REWRITE_INPUT, InputRewrite, ProposedCall, ToolRequest
from tests.agent.support import bash, make_harness, of_type, replies, text
from tests.hooks_claude.bridge_support import Rig, hook_command, mount_hooks

MODEL_INPUT = {"command": "echo CASE-MODEL", "description": "run it"}


def answer(
    *,
    decision: str | None = None,
    updated: dict[str, Any] | None = None,
    sleep: float | None = None,
    **more: Any,
) -> dict[str, Any]:
    specific: dict[str, Any] = {"hookEventName": "PreToolUse"}
    if decision is not None:
        specific["permissionDecision"] = decision
        specific["permissionDecisionReason"] = f"CASE-{decision.upper()}-REASON"
    if updated is not None:
        specific["updatedInput"] = updated
    out: dict[str, Any] = {"stdout": {"hookSpecificOutput": specific, **more}}
    if sleep is not None:
        out["sleep"] = sleep
    return out


def rewrite_to(word: str) -> dict[str, Any]:
    return {"command": f"echo {word}", "description": "rewritten"}


def rig(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answers: dict[str, Any],
    *,
    labels: tuple[str, ...] = ("PreA",),
    script: dict[str, Any] | None = None,
    post: bool = True,
    attended: bool = False,
) -> Rig:
    """PreToolUse hooks labelled ``labels`` (in that declaration order), and PostToolUse;
    ``attended``: a person can answer an ask (headless, a hook's ask is refused)."""
    harness = make_harness(tmp_path, script or replies([bash("echo CASE-MODEL")], [text("done")]))
    hooks: dict[str, Any] = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": hook_command(label)}]}
            for label in labels
        ]
    }
    if post:
        hooks["PostToolUse"] = [
            {"hooks": [{"type": "command", "command": hook_command("PostToolUse")}]}
        ]
    return mount_hooks(
        tmp_path, monkeypatch, harness, hooks, answers, profile={"attended": attended}
    )


def tool_results(r: Rig) -> list[tuple[str, bool]]:
    messages = r.requests()[-1]["messages"]
    out = []
    for m in messages:
        if m["role"] == "tool":
            content = m["content"]
            if isinstance(content, list):
                content = "".join(b["text"] for b in content)
            out.append((content.strip(), m["is_error"]))
    return out


def logged_call(agent: Any) -> ToolCallEvent:
    events: list[ToolCallEvent] = of_type(agent.events, ToolCallEvent)
    (event,) = events
    return event


def assistant_calls(r: Rig) -> list[Any]:
    messages = r.requests()[-1]["messages"]
    return [m for m in messages if m["role"] == "assistant" and "CASE-MODEL" in json.dumps(m)]


async def test_allow_with_updated_input_runs_the_rewritten_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"PreA": answer(decision="allow", updated=rewrite_to("NEW"))})
    agent, _ = await r.run("run it")

    assert r.order() == ["PreA", "PostToolUse"]  # PreToolUse ran once
    (pre,) = r.payloads("PreA")
    assert pre["tool_input"] == MODEL_INPUT
    (post,) = r.payloads("PostToolUse")
    assert post["tool_input"] == rewrite_to("NEW")
    assert post["tool_use_id"] == pre["tool_use_id"]
    assert tool_results(r) == [("NEW", False)]
    call = logged_call(agent)
    assert call.arguments == rewrite_to("NEW")
    assert call.original_arguments == MODEL_INPUT
    assert len(call.rewritten_by) == 1
    assert "ClaudeHooksPlugin" in call.rewritten_by[0]
    # The model's history keeps the call it made.
    assert assistant_calls(r)


async def test_post_tool_batch_gets_the_models_input_and_the_rewritten_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2.1.332 (`pretool-updated-input`): the batch lists the call as the model made it.
    harness = make_harness(tmp_path, replies([bash("echo CASE-MODEL")], [text("done")]))
    hooks = {
        event: [{"hooks": [{"type": "command", "command": hook_command(event)}]}]
        for event in ("PreToolUse", "PostToolUse", "PostToolBatch")
    }
    answers = {"PreToolUse": answer(decision="allow", updated=rewrite_to("NEW"))}
    r = mount_hooks(tmp_path, monkeypatch, harness, hooks, answers)
    await r.run("run it")
    (post,) = r.payloads("PostToolUse")
    assert post["tool_input"] == rewrite_to("NEW")
    ((call,),) = [p["tool_calls"] for p in r.payloads("PostToolBatch")]
    assert call["tool_input"] == MODEL_INPUT
    assert call["tool_response"] == "NEW"


async def test_no_decision_with_updated_input_is_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"PreA": answer(updated=rewrite_to("QUIET"))})
    agent, _ = await r.run("run it")
    assert tool_results(r) == [("QUIET", False)]
    assert logged_call(agent).arguments == rewrite_to("QUIET")


@pytest.mark.parametrize("decision", ["deny", "defer"])
async def test_updated_input_is_ignored_with_deny_and_defer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, decision: str
) -> None:
    r = rig(tmp_path, monkeypatch, {"PreA": answer(decision=decision, updated=rewrite_to("NO"))})
    agent, _ = await r.run("run it")
    call = logged_call(agent)
    assert call.arguments == MODEL_INPUT
    assert call.original_arguments is None
    if decision == "deny":
        assert tool_results(r) == [("PreToolUse:Bash hook error: CASE-DENY-REASON", True)]
        assert r.order() == ["PreA"]
    else:
        # Deferred (issue 31): the call waits, unrun, with the model's own input.
        assert r.payloads("PostToolUse") == []
        (pending,) = agent.pending_calls
        assert pending.arguments == MODEL_INPUT


async def test_a_sibling_denial_cancels_every_rewrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(
        tmp_path,
        monkeypatch,
        {
            "PreA": answer(decision="allow", updated=rewrite_to("NO")),
            "PreB": {"exit": 2, "stderr": "CASE-BLOCKED"},
        },
        labels=("PreA", "PreB"),
    )
    agent, _ = await r.run("run it")
    assert logged_call(agent).arguments == MODEL_INPUT
    ((content, is_error),) = tool_results(r)
    assert is_error
    assert "CASE-BLOCKED" in content


async def test_the_last_rewrite_in_declaration_order_wins_not_the_last_to_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(
        tmp_path,
        monkeypatch,
        {
            # PreA finishes last (Claude Code would take it); PreB is declared later.
            "PreA": answer(decision="allow", updated=rewrite_to("FIRST"), sleep=0.3),
            "PreB": answer(updated=rewrite_to("SECOND")),
            # PreC answers nothing: it never erases a rewrite.
        },
        labels=("PreA", "PreB", "PreC"),
    )
    agent, _ = await r.run("run it")
    assert sorted(r.order()) == ["PostToolUse", "PreA", "PreB", "PreC"]
    assert tool_results(r) == [("SECOND", False)]
    call = logged_call(agent)
    assert call.arguments == rewrite_to("SECOND")
    assert len(call.rewritten_by) == 1  # the bridge is one rewriter


async def test_an_invalid_rewrite_is_not_applied_and_the_user_is_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    invalid = {"command": 42, "description": "a number is not a command"}
    r = rig(
        tmp_path,
        monkeypatch,
        {
            "PreA": answer(updated=rewrite_to("VALID")),
            "PreB": answer(decision="allow", updated=invalid),
        },
        labels=("PreA", "PreB"),
    )
    agent, _ = await r.run("run it")
    # PreB's rewrite is refused, so the last valid one (PreA's) applies.
    assert tool_results(r) == [("VALID", False)]
    notices = [n for n in of_type(agent.events, NoticeEvent) if n.level == "warning"]
    (notice,) = notices
    assert notice.text.startswith(f"PreToolUse hook error ({hook_command('PreB')}):")
    assert "updatedInput for Bash does not match the tool's input schema" in notice.text
    assert "$.command" in notice.text
    assert notice.source == "claude-hooks:PreToolUse"
    assert "not match" not in json.dumps(r.requests())  # shown to the user, not the model


async def test_only_an_invalid_rewrite_leaves_the_call_as_the_model_made_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"PreA": answer(decision="allow", updated={"nope": True})})
    agent, _ = await r.run("run it")
    assert tool_results(r) == [("CASE-MODEL", False)]
    assert logged_call(agent).original_arguments is None


async def test_ask_shows_the_rewritten_input_to_the_approval_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[ApprovalRequest] = []

    class Recorder:
        async def request(self, req: ApprovalRequest, /) -> ChannelAnswer:
            seen.append(req)
            return "allowed-once"

    asked = answer(decision="ask", updated=rewrite_to("ASKED"))
    r = rig(tmp_path, monkeypatch, {"PreA": asked}, attended=True)
    r.harness.ctx.provide(APPROVAL, Recorder())
    await r.run("run it")
    (req,) = seen
    assert req.arguments == rewrite_to("ASKED")
    assert req.reason == "CASE-ASK-REASON"
    assert tool_results(r) == [("ASKED", False)]


async def test_hooks_see_the_input_as_it_reaches_the_bridge_and_native_rewriters_compose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"PreA": answer(decision="allow", updated=rewrite_to("HOOK"))})

    async def before(call: ProposedCall) -> InputRewrite:
        return InputRewrite.replace({**call.arguments, "command": "echo NATIVE"})

    async def after(call: ProposedCall) -> InputRewrite:
        assert call.arguments == rewrite_to("HOOK")
        return InputRewrite.replace({**call.arguments, "command": "echo LAST"})

    r.harness.ctx.on(REWRITE_INPUT, before, prepend=True)
    r.harness.ctx.on(REWRITE_INPUT, after)
    agent, _ = await r.run("run it")
    (pre,) = r.payloads("PreA")
    assert pre["tool_input"] == {**MODEL_INPUT, "command": "echo NATIVE"}
    (post,) = r.payloads("PostToolUse")
    assert post["tool_input"] == {**rewrite_to("HOOK"), "command": "echo LAST"}
    call = logged_call(agent)
    assert call.original_arguments == MODEL_INPUT
    assert call.rewritten_by[0] == describe(before)
    assert call.rewritten_by[2] == describe(after)
    assert "ClaudeHooksPlugin" in call.rewritten_by[1]


async def test_each_call_of_a_step_runs_its_hooks_once_with_its_own_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = replies([bash("echo ONE"), bash("echo TWO")], [text("done")])
    respond = answer(decision="allow", updated=rewrite_to("SAME"))
    r = rig(tmp_path, monkeypatch, {"PreA": {**respond, "times": 1}}, script=script)
    agent, _ = await r.run("run it")
    assert r.order() == ["PreA", "PostToolUse", "PreA", "PostToolUse"]
    # Only the first invocation rewrote: the second call runs as the model made it.
    assert tool_results(r) == [("SAME", False), ("TWO", False)]
    calls = of_type(agent.events, ToolCallEvent)
    assert [c.original_arguments is not None for c in calls] == [True, False]


async def test_system_message_and_context_are_applied_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    respond = answer(decision="allow", updated=rewrite_to("CTX"), systemMessage="CASE-NOTE")
    respond["stdout"]["hookSpecificOutput"]["additionalContext"] = "CASE-CONTEXT"
    r = rig(tmp_path, monkeypatch, {"PreA": respond})
    agent, _ = await r.run("run it")
    notes = [n.text for n in of_type(agent.events, NoticeEvent)]
    assert notes.count("CASE-NOTE") == 1
    assert json.dumps(r.requests()[-1]).count("CASE-CONTEXT") == 1


async def test_a_call_that_skipped_rewriting_runs_the_hooks_on_pre_execute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(
        tmp_path,
        monkeypatch,
        {"PreA": answer(decision="deny", updated=rewrite_to("NO"))},
        post=False,
    )
    agent = r.harness.agent()
    # No tool_use_id: the hooks still run once (on rewriting; the call's slot carries
    # their outcome), and the denial applies when the sealed call reaches pre-execute.
    res = await r.harness.registry.execute(ToolRequest("Bash", MODEL_INPUT), agent=agent)
    assert r.order() == ["PreA"]
    assert res.call.original_arguments is None
    assert res.result.code == "DENIED"
    assert res.result.content == "PreToolUse:Bash hook error: CASE-DENY-REASON"
    await agent.close("other")
