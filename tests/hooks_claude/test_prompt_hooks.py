"""``type: "prompt"`` handlers: the claude-next recording replayed strictly (the request the
model gets, the verdict applied), then what it does not show, through the real loop."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh.hook_protocol import Answered, HookCommand, HookOrigin
from dsh.hook_protocol._executor import run_hook
from dsh.hooks.claude.runtime._agent_hooks import ENFORCE
from dsh.hooks.claude.runtime._judged import PROMPT_SYSTEM, STOP_SYSTEM, VERDICT_SCHEMA
from dsh.messages import ToolResultMessage, content_text
from tests.agent.support import make_harness
from tests.hooks_claude.bridge_support import mount_hooks
from tests.hooks_claude.http_server import HookServer, serve
from tests.hooks_claude.next_replay import replay_next


@pytest.fixture(scope="module")
def server() -> Iterator[HookServer]:
    yield from serve()


async def test_recorded_prompt_hook_pretool(
    tmp_path: Path, server: HookServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig, problems = await replay_next("prompt-hook-pretool", tmp_path, server, monkeypatch)
    assert not problems, "\n".join(problems)
    # The evaluation request, as the README describes 2.1.332's (model_view has its text).
    request = rig.requests()[1]
    assert request["system"] == PROMPT_SYSTEM
    assert request["system"].startswith(
        "You are evaluating a hook in Claude Code. The user's text says what to check."
    )
    assert request["tools"] == []
    assert request["output_schema"] == VERDICT_SCHEMA
    assert [m["role"] for m in request["messages"]] == ["user"]
    # The call's result, where 2.1.332 shows it (stream-json, transcript): the configured
    # prompt, `$ARGUMENTS` not expanded, in brackets. The turn ended there.
    results = transcript_results(rig.transcripts)
    assert results == [
        (
            "PreToolUse:Bash hook error: [CASE-PROMPT-HOOK-PRE: judge this tool call:"
            " $ARGUMENTS]: CASE-PROMPT-NOTOK",
            True,
        )
    ]


def transcript_results(folder: Path) -> list[tuple[object, object]]:
    """Every tool result of the transcripts under ``folder``: ``(content, is_error)``."""
    out: list[tuple[object, object]] = []
    for path in sorted(folder.rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            content = (entry.get("message") or {}).get("content")
            if entry.get("type") != "user" or not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append((block.get("content"), block.get("is_error")))
    return out


BASH_SCRIPT = [
    [
        {"type": "text", "text": "I'll run it."},
        {"type": "tool_use", "name": "Bash", "input": {"command": "echo hi"}},
    ],
    [{"type": "text", "text": "Done."}],
]


def judged(
    verdicts: list[str], main: list[list[dict[str, Any]]] | None = None
) -> dict[str, object]:
    """A script whose tool-less requests (the judge's) answer ``verdicts`` in turn."""
    return {
        "rules": [
            {"no_tools": True, "responses": [[{"type": "text", "text": v}] for v in verdicts]},
            {"has_tool": "Bash", "responses": main or BASH_SCRIPT},
        ],
        "default": {"type": "text", "text": "side-answer"},
    }


def prompt_hooks(
    event: str, handler: dict[str, object], matcher: str | None = None
) -> dict[str, object]:
    group: dict[str, object] = {"hooks": [{"type": "prompt", **handler}]}
    if matcher is not None:
        group["matcher"] = matcher
    return {event: [group]}


async def rig_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    script: dict[str, Any],
    hooks: dict[str, Any],
) -> tuple[list[tuple[str, bool]], list[dict[str, Any]]]:
    """The session's tool results (content, error) and the model's requests."""
    harness = make_harness(tmp_path, script)
    rig = mount_hooks(tmp_path, monkeypatch, harness, hooks, None)
    agent, _result = await rig.run("Please run echo hi")
    results = [
        (content_text(m.content), m.is_error)
        for m in agent.messages()
        if isinstance(m, ToolResultMessage)
    ]
    return results, rig.requests()


@pytest.mark.parametrize(
    "verdict",
    [
        '{"ok": true, "reason": "fine"}',
        '```json\n{"ok": true, "reason": "fenced"}\n```',
        "not json at all",
        '{"ok": "yes"}',
    ],
)
async def test_a_pass_or_an_unreadable_verdict_lets_the_call_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, verdict: str
) -> None:
    hooks = prompt_hooks("PreToolUse", {"prompt": "judge $ARGUMENTS"}, "Bash")
    results, requests = await rig_run(tmp_path, monkeypatch, judged([verdict]), hooks)
    assert results == [("hi", False)]
    assert len(requests) == 3  # the call, the judge, the answer after the tool


async def test_continue_on_block_denies_and_the_turn_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handler = {"prompt": "judge", "continueOnBlock": True}
    hooks = prompt_hooks("PreToolUse", handler, "Bash")
    verdict = '{"ok": false, "reason": "NO"}'
    results, requests = await rig_run(tmp_path, monkeypatch, judged([verdict]), hooks)
    # No `$ARGUMENTS`: the input follows the prompt, as for a command's arguments.
    assert requests[1]["messages"][0]["content"].startswith("judge\n\nARGUMENTS: {")
    assert results == [("PreToolUse:Bash hook error: [judge]: NO", True)]
    assert len(requests) == 3


async def test_a_stop_prompt_hook_judges_the_conversation_and_sends_the_model_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A script answers by the count of assistant messages in the request: the judge sees
    # the conversation, one answer in, then two.
    verdicts = ["unused", '{"ok": false, "reason": "NOT-YET"}', '{"ok": true, "reason": "ok"}']
    main = [[{"type": "text", "text": "first"}], [{"type": "text", "text": "second"}]]
    script = judged(verdicts, main)
    hooks = prompt_hooks("Stop", {"prompt": "tests pass"})
    _rig, requests = await rig_run(tmp_path, monkeypatch, script, hooks)
    judge = requests[1]
    assert judge["system"] == STOP_SYSTEM
    last = judge["messages"][-1]["content"]
    assert last.startswith(
        "Based on the conversation transcript above, has the following stopping condition"
        " been satisfied? Answer based on transcript evidence only.\n\nCondition: tests pass"
    )
    assert next(m["role"] for m in judge["messages"]) == "user"  # the conversation first
    feedback = "\n".join(str(m) for m in requests[2]["messages"])
    assert "Stop hook feedback:" in feedback
    assert "[tests pass]: NOT-YET" in feedback
    assert len(requests) == 4  # turn, judge (block), continued turn, judge (pass)


async def test_a_model_failure_is_a_non_blocking_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = judged([])
    script["rules"][0]["responses"] = [[{"type": "http_error", "status": 400}]]  # type: ignore[index]
    hooks = prompt_hooks("PreToolUse", {"prompt": "judge"}, "Bash")
    results, _requests = await rig_run(tmp_path, monkeypatch, script, hooks)
    assert results == [("hi", False)]


async def test_the_timeout_ends_a_judge_that_never_answers() -> None:
    class Never:
        def describe(self) -> str:
            return "never"

        async def __call__(self, payload: bytes) -> Answered:
            await asyncio.sleep(60)
            raise AssertionError("not reached")

    cmd = HookCommand(
        argv=("p",), timeout=0.2, origin=HookOrigin(source="t", event="PreToolUse"), call=Never()
    )
    run = await run_hook(cmd, b"{}")
    assert run.timed_out
    assert run.exit_code is None


async def test_recorded_agent_hook_stop(
    tmp_path: Path, server: HookServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig, problems = await replay_next("agent-hook-stop", tmp_path, server, monkeypatch)
    assert not problems, "\n".join(problems)
    # The hook agent's requests: its system prompt, the session's tools 2.1.332 gives it
    # (of Bash, Edit, ListAgents, Read, ReportFindings, Skill, ToolSearch, Write) and then
    # StructuredOutput; the prompt with `$ARGUMENTS` filled in.
    agent = rig.requests()[2]
    transcript = rig.entries()[0]["payload"]["transcript_path"]
    assert agent["system"].startswith(
        "You are verifying a stop condition in Claude Code. Your task is to verify that the"
        f" agent completed the given plan. The conversation transcript is available at:"
        f" {transcript}\n"
    )
    assert (
        "return your result using the StructuredOutput tool, always with a reason"
        in (agent["system"])
    )
    assert [t["name"] for t in agent["tools"]] == [
        "Bash",
        "Edit",
        "Read",
        "Write",
        "StructuredOutput",
    ]
    assert agent["tools"][-1]["input_schema"]["required"] == ["ok"]
    (message,) = agent["messages"]
    assert message["content"].startswith("CASE-AGENT-HOOK-STOP: verify the work. Input: {")
    # Its StructuredOutput call fired the settings' tool hooks as recorded.
    posts = [e["payload"] for e in rig.entries() if e["event"] == "PostToolUse"]
    hooked = [p for p in posts if p["tool_name"] == "StructuredOutput"]
    assert [p["tool_response"] for p in hooked] == ["Structured output provided successfully"] * 2
    assert all(p["agent_id"].startswith("hook-agent-") and "agent_type" not in p for p in hooked)
    assert {p["permission_mode"] for p in hooked} == {"dontAsk"}


async def test_an_agent_hook_that_answers_in_text_is_told_to_call_structured_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    verdict = {"ok": False, "reason": "UNSAFE"}
    agent_rule = {
        "has_tool": "StructuredOutput",
        "responses": [
            [{"type": "text", "text": "It looks fine to me."}],
            [{"type": "tool_use", "name": "StructuredOutput", "input": verdict}],
        ],
    }
    script = judged(["unused"])
    script["rules"] = [agent_rule, *script["rules"]]  # type: ignore[misc]
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "agent", "prompt": "check"}]}]}
    results, requests = await rig_run(tmp_path, monkeypatch, script, hooks)
    first, second = requests[1], requests[2]
    assert first["system"].startswith(
        "You are evaluating a PreToolUse hook in Claude Code. Your task is to evaluate the"
        " condition described in the user message."
    )
    assert second["messages"][-1]["content"] == ENFORCE
    assert results == [
        ("PreToolUse:Bash hook error: Agent hook condition was not met: UNSAFE", True)
    ]


def test_prompt_and_agent_handlers_are_admitted_but_not_agent_on_permission_request(
    tmp_path: Path,
) -> None:
    from dsh.hooks.claude import load_catalog

    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    hooks = {
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "a"}, {"type": "agent", "prompt": "b"}]}],
        "PermissionRequest": [{"hooks": [{"type": "agent", "prompt": "c"}]}],
    }
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    catalog = load_catalog(
        project,
        home=tmp_path,
        managed_path=tmp_path / "none.json",
        env={},
        discover_installed_plugins=False,
    )
    assert [(h.kind, h.timeout) for h in catalog.for_event("Stop")] == [
        ("prompt", 30),
        ("agent", 60),
    ]
    assert catalog.for_event("PermissionRequest") == ()
    (diag,) = catalog.warnings
    assert "not supported for PermissionRequest" in diag.reason
    assert "not supported by this host" not in catalog.render_report()


MODELS = json.loads((Path(__file__).parents[1] / "fixtures" / "claude_worktree.json").read_text())


@pytest.mark.parametrize("named", [None, "haiku"])
async def test_a_prompt_hooks_model_names_the_model_that_judges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str | None
) -> None:
    # 2.1.332: no `model`, the session's (not a small/fast one); `model: haiku`, that one
    # (prompt-hook-models: the judge's requests named "claude-rec", then "haiku").
    recorded = [m["model"] for m in MODELS["prompt-hook-models"]["models"] if not m["tools"]]
    assert recorded[:2] == ["claude-rec", "haiku"]
    from dsh.agent import SUBAGENT_MODELS
    from dsh.models import ScriptedModel

    harness = make_harness(tmp_path, judged(['{"ok": true}']))
    handler: dict[str, object] = {"prompt": "judge $ARGUMENTS"}
    if named is not None:
        handler["model"] = named
    rig = mount_hooks(tmp_path, monkeypatch, harness, prompt_hooks("PreToolUse", handler), None)
    asked: list[str] = []
    judge = ScriptedModel(judged(['{"ok": false, "reason": "FROM-THE-NAMED-MODEL"}']))

    def resolve(name: str) -> ScriptedModel:
        asked.append(name)
        return judge

    rig.harness.ctx.provide(SUBAGENT_MODELS, resolve)
    agent, _result = await rig.run("Please run echo hi")
    results = [
        content_text(m.content) for m in agent.messages() if isinstance(m, ToolResultMessage)
    ]
    assert asked == ([] if named is None else ["haiku"])
    assert ("FROM-THE-NAMED-MODEL" in results[0]) is (named is not None)


@pytest.mark.parametrize("named", [None, "haiku"])
async def test_an_agent_hooks_model_names_the_model_its_subagent_runs_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str | None
) -> None:
    # 2.1.332: no `model`, the session's; `model: haiku`, that one (agent-hook-models).
    recorded = [m["model"] for m in MODELS["agent-hook-models"]["models"]]
    assert recorded[1:] == ["claude-rec", "claude-haiku-5-5"]
    from dsh.agent import SUBAGENT_MODELS
    from dsh.models import ScriptedModel

    def verdict(reason: str) -> dict[str, Any]:
        call = {"ok": False, "reason": reason}
        rule = {"has_tool": "StructuredOutput", "responses": [[tool("StructuredOutput", call)]]}
        script = judged(["unused"])
        script["rules"] = [rule, *script["rules"]]  # type: ignore[misc]
        return script

    harness = make_harness(tmp_path, verdict("FROM-THE-SESSION-MODEL"))
    handler: dict[str, Any] = {"type": "agent", "prompt": "check"}
    if named is not None:
        handler["model"] = named
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}
    rig = mount_hooks(tmp_path, monkeypatch, harness, hooks, None)
    asked: list[str] = []

    def resolve(name: str) -> ScriptedModel:
        asked.append(name)
        return ScriptedModel(verdict("FROM-THE-NAMED-MODEL"))

    rig.harness.ctx.provide(SUBAGENT_MODELS, resolve)
    agent, _result = await rig.run("Please run echo hi")
    results = [
        content_text(m.content) for m in agent.messages() if isinstance(m, ToolResultMessage)
    ]
    assert asked == ([] if named is None else ["haiku"])
    expected = "FROM-THE-SESSION-MODEL" if named is None else "FROM-THE-NAMED-MODEL"
    assert results[0].endswith(f"Agent hook condition was not met: {expected}")


def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": arguments}
