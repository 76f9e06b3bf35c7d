"""The Codex bridge through the real loop, beyond the recorded cases.

Real hook processes (the recording hook), the scripted model, real tools in a
temp dir: Interrupt on ``agent.cancel``, PermissionRequest on an approval ask,
subagents, rejected answers shown to the user, the seams registered, the
coverage page, and ``AGENTS.md``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import Agent, calling_agent, subagent_plugin
from dsh.context import Next
from dsh.hooks.codex import (
    CODEX_EVENT_SUPPORT,
    CODEX_HOOK_EVENTS,
    CodexHooksPlugin,
    load_codex_catalog,
    render_codex_coverage,
)
from dsh.instructions import find_agents_files, render_agents
from dsh.session import NoticeEvent, TurnEndReason
from dsh.tools import PRE_EXECUTE, PreToolDecision, ToolCall
from tests.agent.support import bash, make_harness, text, tool
from tests.hooks_codex.codex_support import (
    hook_command,
    make_codex_rig,
    mount_codex,
    recording_hooks,
)
from tests.shared_paths import ROOT

ECHO = {"rules": [], "responses": [[bash("echo hi")], [text("done")]]}


def notices(agent: Agent) -> list[str]:
    return [e.text for e in agent.events if isinstance(e, NoticeEvent)]


async def test_interrupt_fires_when_the_running_turn_is_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = {"Interrupt": {"stdout": {"systemMessage": "CASE-INTERRUPTED"}}}
    rig = make_codex_rig(tmp_path, monkeypatch, ECHO, ["UserPromptSubmit", "Interrupt"], answers)

    async def cancel_first_call(call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        agent = calling_agent(call.agent)
        assert agent is not None
        agent.cancel("user pressed Ctrl-C")
        return await nxt()

    rig.harness.ctx.on(PRE_EXECUTE, cancel_first_call)
    agent, result = await rig.run("go")
    assert result.end_reason == TurnEndReason.ABORTED
    assert rig.order() == ["UserPromptSubmit", "Interrupt"]
    (payload,) = rig.payloads("Interrupt")
    assert payload["turn_id"] == rig.payloads("UserPromptSubmit")[0]["turn_id"]
    assert set(payload) == {
        "session_id",
        "turn_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "model",
        "permission_mode",
    }
    assert "CASE-INTERRUPTED" in notices(agent)


async def test_permission_request_answers_an_approval_ask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    allow = {
        "PermissionRequest": {
            "stdout": {
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {"behavior": "deny", "message": "CASE-NO"},
                }
            }
        }
    }
    rig = make_codex_rig(
        tmp_path,
        monkeypatch,
        ECHO,
        ["PermissionRequest", "PostToolUse"],
        allow,
        permission_mode="default",
    )

    async def ask(call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.ask("a policy asks")

    rig.harness.ctx.on(PRE_EXECUTE, ask)
    await rig.run("go")
    (payload,) = rig.payloads("PermissionRequest")
    assert payload["tool_input"] == {"command": "echo hi"}
    assert "tool_use_id" not in payload
    assert payload["permission_mode"] == "default"
    # Denied: the call never ran, so no PostToolUse; the model reads the hook's message.
    assert rig.order() == ["PermissionRequest"]
    tool_results = [m for m in rig.requests()[1]["messages"] if m["role"] == "tool"]
    assert "CASE-NO" in str(tool_results[0]["content"])


async def test_a_rejected_answer_is_shown_and_the_call_proceeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ask = {
        "PreToolUse": {
            "stdout": {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "ask",
                    "permissionDecisionReason": "why",
                }
            }
        }
    }
    rig = make_codex_rig(tmp_path, monkeypatch, ECHO, ["PreToolUse", "PostToolUse"], ask)
    agent, _ = await rig.run("go")
    assert rig.order() == ["PreToolUse", "PostToolUse"]
    (line,) = [n for n in notices(agent) if "PreToolUse hook failed" in n]
    assert 'permissionDecision "ask" is not supported' in line


async def test_subagent_start_context_and_payloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script: dict[str, Any] = {
        "rules": [
            {"first_user_contains": "SUBTASK", "responses": [[text("sub done")]]},
            {
                "has_tool": "Agent",
                "responses": [
                    [
                        tool(
                            "Agent",
                            description="d",
                            prompt="SUBTASK: x",
                            subagent_type="helper",
                            run_in_background=False,
                        )
                    ],
                    [text("parent done")],
                ],
            },
        ]
    }
    answers = {
        "SubagentStart": {
            "stdout": {
                "hookSpecificOutput": {
                    "hookEventName": "SubagentStart",
                    "additionalContext": "C-SUB",
                }
            }
        }
    }
    rig = make_codex_rig(
        tmp_path, monkeypatch, script, ["SubagentStart", "SubagentStop", "Stop"], answers
    )
    rig.harness.ctx.plugin(subagent_plugin)
    agent, _ = await rig.run("delegate")
    assert rig.order() == ["SubagentStart", "SubagentStop", "Stop"]
    (start,) = rig.payloads("SubagentStart")
    (stop,) = rig.payloads("SubagentStop")
    assert start["agent_type"] == stop["agent_type"] == "helper"
    assert start["session_id"] == agent.session_id
    assert stop["last_assistant_message"] == "sub done"
    assert {"agent_transcript_path", "stop_hook_active", "turn_id"} <= set(stop)
    child = [r for r in rig.requests() if "SUBTASK" in str(r["messages"])]
    assert child
    assert any(m.get("text") == "C-SUB" for m in child[0]["messages"])


def test_the_listeners_are_the_supported_rows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    every = recording_hooks(list(CODEX_HOOK_EVENTS))
    (home / "hooks.json").write_text(json.dumps({"hooks": every}))
    catalog = load_codex_catalog(tmp_path, home=home, system_dir=None, bypass_trust=True)
    plugin = CodexHooksPlugin(catalog)
    assert plugin.seams() == {
        e: row.seam for e, row in CODEX_EVENT_SUPPORT.items() if row.status != "not-supported"
    }


def test_docs_hooks_codex_is_generated_from_the_table() -> None:
    committed = (ROOT / "docs" / "hooks-codex.md").read_text(encoding="utf-8")
    assert committed == render_codex_coverage(), (
        "docs/hooks-codex.md is stale: run"
        " `.venv/bin/python -m dsh.hooks.codex coverage --write docs/hooks-codex.md`"
    )


def test_agents_md_global_then_root_down_with_overrides_and_a_budget(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    (home / "AGENTS.md").write_text("GLOBAL")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("ROOT")
    sub = repo / "a" / "b"
    sub.mkdir(parents=True)
    (repo / "a" / "AGENTS.md").write_text("A")
    (repo / "a" / "AGENTS.override.md").write_text("A-OVERRIDE")
    (sub / "AGENTS.md").write_text("B" * 100)
    files = find_agents_files(sub, codex_home=home, max_bytes=110)
    assert [f.text[:10] for f in files] == ["GLOBAL", "ROOT", "A-OVERRIDE", "B" * 10]
    assert files[-1].truncated
    assert len(files[-1].text) == 110 - len("ROOT") - len("A-OVERRIDE")
    rendered = render_agents(files, sub)
    assert rendered.startswith(f"# AGENTS.md instructions for {sub}\n\n<INSTRUCTIONS>\nGLOBAL")
    # Outside a repository: only the working directory's own file.
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "AGENTS.md").write_text("PLAIN")
    assert [f.text for f in find_agents_files(tmp_path / "plain", codex_home=None)] == ["PLAIN"]


async def test_the_projects_agents_md_loads_only_when_the_project_is_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for trusted in (False, True):
        run = tmp_path / f"run-{trusted}"
        run.mkdir()
        harness = make_harness(run, ECHO)
        (harness.project / "AGENTS.md").write_text("CASE-AGENTS-MD")
        home = run / "home" / ".codex"
        home.mkdir(parents=True)
        (home / "AGENTS.md").write_text("CASE-GLOBAL")
        mount_codex(
            run, monkeypatch, harness, recording_hooks(["Stop"]), profile={"trust_project": trusted}
        )
        agent = harness.agent()
        agent.send("go")
        await agent.run_turn()
        await agent.close("other")
        first = harness.requests()[0]
        assert ("CASE-AGENTS-MD" in str(first["messages"])) is trusted
        assert "CASE-GLOBAL" in str(first["messages"])  # the global file needs no project trust


async def test_long_hook_context_is_spilled_to_a_file_with_its_start_and_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the real Codex 0.171 cuts it (tests/fixtures/codex_hook_spill.json): the hook's
    10,000 bytes hold the first and last bytes and the saved-to line."""
    long = "x" * 20_000 + "-END"
    answers = {
        "PostToolUse": {
            "stdout": {
                "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": long}
            }
        }
    }
    rig = make_codex_rig(tmp_path, monkeypatch, ECHO, ["PostToolUse"], answers)
    await rig.run("go")
    (context,) = [m["text"] for m in rig.requests()[1]["messages"] if m["role"] == "context"]
    header = "Warning: truncated output (original token count: 5001)\nTotal output lines: 1\n\n"
    assert context.startswith(header + "x" * 4000)
    body, path = context[len(header) :].split("\n\nFull hook output saved to: ")
    head, cut, tail = body.split("…")
    assert tail.endswith("x-END")
    assert len(head) + len(tail) + len(f"\n\nFull hook output saved to: {path}") == 10_000
    assert cut == f"{-(-(len(long) - len(head) - len(tail)) // 4)} tokens truncated"
    assert spilled_text(path) == long


def spilled_text(path: str) -> str:
    return Path(path).read_text()


def test_the_codex_profile_is_a_host_profile_with_trust() -> None:
    from dsh.hooks.codex import CodexProfile
    from dsh.host import Profile

    profile: Profile = CodexProfile()
    assert profile.name == "codex"
    assert callable(getattr(profile, "trust", None))
    assert callable(getattr(profile, "untrusted", None))


async def test_an_enabled_plugins_hooks_run_with_its_root_and_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.hooks_codex.codex_support import SCRIPT

    harness = make_harness(tmp_path, ECHO)
    home = tmp_path / "home" / ".codex"
    root = home / "plugins" / "cache" / "market" / "guard" / "1.10.0"
    (home / "plugins" / "cache" / "market" / "guard" / "1.9.0").mkdir(parents=True)
    (root / "hooks").mkdir(parents=True)
    command = f"{sys.executable} {SCRIPT} PreToolUse ${{PLUGIN_ROOT}} ${{CLAUDE_PLUGIN_DATA}}"
    hooks = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}}
    (root / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    config = '[plugins."guard@market"]\nenabled = true\n[plugins."gone@market"]\nenabled = true\n'
    rig = mount_codex(tmp_path, monkeypatch, harness, None, config_toml=config, bypass_trust=False)
    assert any("'gone@market' is enabled but not installed" in d for d in rig.diagnostics)
    assert any("(plugin guard@market)" in d and "not trusted yet" in d for d in rig.diagnostics)
    await rig.run("go")
    assert rig.order() == []  # untrusted: it does not run
    again = tmp_path / "again"
    again.mkdir()
    rig = mount_codex(tmp_path, monkeypatch, make_harness(again, ECHO), None, config_toml=config)
    await rig.run("go")
    (entry,) = rig.entries()
    # Where the real Codex 0.171 points a plugin's data (the id with `-` for `@`), and, as
    # Codex, dsh does not make the folder: the plugin does (codexreal's check of the binary).
    data = home / "plugins" / "data" / "guard-market"
    assert entry["argv"][2:] == [str(root), str(data)]
    assert entry["env"]["CLAUDE_PLUGIN_ROOT"] == str(root)
    seen = entry["env_paths"]["CLAUDE_PLUGIN_DATA"]
    assert seen == {"path": str(data), "exists": False, "is_dir": False}
    assert not exists(data)


def exists(path: Path) -> bool:
    return path.is_dir()


async def test_a_plugin_from_a_marketplace_with_a_dot_is_not_loaded_and_dsh_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the 0.171 binary: `x@mk.t` is skipped (silently there); `My.Plug@mkt` loads."""
    home = tmp_path / "home" / ".codex"
    config = ""
    for name, market in (("My.Plug", "mkt"), ("guard", "mk.t")):
        root = home / "plugins" / "cache" / market / name / "1.0.0"
        (root / "hooks").mkdir(parents=True)
        command = f"{hook_command('PreToolUse')} {name}"
        hooks = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}}
        (root / "hooks" / "hooks.json").write_text(json.dumps(hooks))
        config += f'[plugins."{name}@{market}"]\nenabled = true\n'
    harness = make_harness(tmp_path, ECHO)
    rig = mount_codex(tmp_path, monkeypatch, harness, None, config_toml=config)
    (skipped,) = [d for d in rig.diagnostics if "guard@mk.t" in d]
    assert "marketplace name 'mk.t' has a `.`" in skipped
    assert "hooks do not run" in skipped
    assert not [d for d in rig.diagnostics if "My.Plug" in d]
    await rig.run("go")
    assert [e["argv"][2:] for e in rig.entries()] == [["My.Plug"]]


async def test_a_stop_halt_ends_the_turn_and_shows_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = {
        "Stop": {
            "stdout": {
                "continue": False,
                "stopReason": "CASE-HALT",
                "decision": "block",
                "reason": "CASE-BLOCK",
            }
        }
    }
    rig = make_codex_rig(tmp_path, monkeypatch, ECHO, ["Stop"], answers)
    agent, result = await rig.run("go")
    assert result.end_reason == TurnEndReason.COMPLETED
    assert rig.order() == ["Stop"]  # continue: false wins over the block: no second Stop
    assert len(rig.requests()) == 2
    assert "Stop hook stopped: CASE-HALT" in notices(agent)


async def test_an_interrupts_untrusted_handler_beside_a_trusted_one_is_a_hook_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Interrupt fires detached (the aborted turn's signal does not end it), and still logs
    the handler it runs without, as every other event does: the trusted one runs, the one
    added after `trust` is a ``hook/skipped`` (untrusted), once, in the session's log."""
    from dsh.hook_protocol import HookSkippedEvent
    from dsh.hooks.codex import CodexProfile

    harness = make_harness(tmp_path, ECHO)
    home = tmp_path / "home" / ".codex"
    home.mkdir(parents=True)
    trusted = {"hooks": [{"type": "command", "command": hook_command("Interrupt")}]}
    (home / "hooks.json").write_text(json.dumps({"hooks": {"Interrupt": [trusted]}}))
    profile = CodexProfile(home=home, system_dir=None, trust_dir=tmp_path / "dsh-trust")
    assert list(profile.trust(tmp_path / "project"))
    added = {"hooks": [{"type": "command", "command": "echo added"}]}
    (home / "hooks.json").write_text(json.dumps({"hooks": {"Interrupt": [trusted, added]}}))
    rig = mount_codex(tmp_path, monkeypatch, harness, None, bypass_trust=False)

    async def cancel_first_call(call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        agent = calling_agent(call.agent)
        assert agent is not None
        agent.cancel("user pressed Ctrl-C")
        return await nxt()

    rig.harness.ctx.on(PRE_EXECUTE, cancel_first_call)
    agent, result = await rig.run("go")
    assert result.end_reason == TurnEndReason.ABORTED
    assert rig.order() == ["Interrupt"]  # the trusted one ran, a real process
    (skipped,) = [e for e in agent.events if isinstance(e, HookSkippedEvent)]
    assert skipped.hook_event == "Interrupt"
    (selection,) = skipped.skipped
    assert (selection["command"], selection["code"]) == ("echo added", "untrusted")
    assert selection["where"].endswith("hooks.json: Interrupt[1][0]")
