"""Custom commands and skills: discovery, expansion, and the real loop with recording hooks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.hooks.claude.settings._commands import (
    MAX_COMMAND_BYTES,
    MAX_SHELL_COMMANDS,
    expand_arguments,
    load_commands,
    parse_invocation,
    shell_spans,
)
from dsh.messages import content_text
from dsh.session import (
    ContextMessageEvent,
    PromptBlockedEvent,
    SteeringMessageEvent,
    UserMessageEvent,
)
from tests.agent.support import make_harness, replies, text, tool
from tests.hooks_claude.bridge_support import Rig, hook_command, mount_hooks


def write(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return path


def test_commands_are_found_in_project_user_and_plugin_scope(tmp_path: Path) -> None:
    project, home, plugin = tmp_path / "p", tmp_path / "h", tmp_path / "plug"
    write(project / ".claude/commands/greet.md", "Hello $ARGUMENTS\n")
    write(project / ".claude/commands/ops/deploy.md", "Deploy\n")
    write(home / ".claude/commands/greet.md", "user copy\n")
    write(home / ".claude/commands/mine.md", "---\ndescription: My own\n---\nBody\n")
    write(plugin / "commands/plug.md", "From a plugin\n")
    write(project / ".claude/skills/dir-name/SKILL.md", "---\nname: oracle\n---\nAsk.\n")
    found = load_commands(project, home=home, plugin_roots=[plugin])
    by_name = {c.name: c for c in found.commands}
    assert set(by_name) == {"greet", "ops:deploy", "mine", "plug", "oracle"}
    assert by_name["greet"].source == "projectSettings"  # the project's wins
    assert by_name["greet"].body == "Hello $ARGUMENTS\n"
    assert by_name["mine"].source == "userSettings"
    assert by_name["mine"].description == "My own"
    assert by_name["mine"].body == "Body\n"
    assert by_name["plug"].source == "plugin"
    assert by_name["oracle"].kind == "skill"
    assert by_name["oracle"].base_dir == project / ".claude/skills/dir-name"
    assert found.diagnostics == ()


def test_the_user_scope_is_the_config_directory_when_given(tmp_path: Path) -> None:
    write(tmp_path / "cfg/commands/mine.md", "Mine\n")
    write(tmp_path / "h/.claude/commands/other.md", "Not read\n")
    found = load_commands(tmp_path / "p", home=tmp_path / "h", config_dir=tmp_path / "cfg")
    assert [(c.name, c.source) for c in found.commands] == [("mine", "userSettings")]


def test_bad_command_files_are_skipped_with_a_line_each(tmp_path: Path) -> None:
    project = tmp_path / "p"
    write(project / ".claude/commands/ok.md", "fine\n")
    write(project / ".claude/commands/big.md", "x" * (MAX_COMMAND_BYTES + 1))
    (project / ".claude/commands/bad.md").write_bytes(b"\xff\xfe\x00")
    write(project / ".claude/commands/-dash.md", "bad name\n")
    found = load_commands(project, home=tmp_path / "h")
    assert [c.name for c in found.commands] == ["ok"]
    notes = "\n".join(found.diagnostics)
    assert "big.md: skipped: larger than" in notes
    assert "bad.md: skipped: cannot be read" in notes
    assert "-dash.md: skipped: '-dash' is not a command name" in notes


def test_arguments_are_filled_in_as_claude_code_fills_them() -> None:
    assert expand_arguments("Say hello to $ARGUMENTS\n", "argA argB") == "Say hello to argA argB\n"
    assert expand_arguments("$0 then $ARGUMENTS[1] then $5.", "a b") == "a then b then ."
    assert expand_arguments("No placeholder.\n", "x y") == "No placeholder.\n\nARGUMENTS: x y"
    assert expand_arguments("No placeholder.\n", "") == "No placeholder.\n"


def test_invocations_and_shell_spans_are_parsed() -> None:
    assert parse_invocation("/sample-cmd argA argB") == ("sample-cmd", "argA argB")
    assert parse_invocation("/ops:deploy") == ("ops:deploy", "")
    assert parse_invocation("/x\nmore lines") == ("x", "more lines")
    assert parse_invocation("not a command") is None
    assert parse_invocation("/ leading space") is None
    (span,) = shell_spans("Context: !`echo hi` and `not this`")
    assert span.command == "echo hi"
    assert "Context: !`echo hi`"[span.start : span.end] == "!`echo hi`"


@given(st.text(max_size=200))
def test_parsing_any_prompt_never_fails(prompt: str) -> None:
    parsed = parse_invocation(prompt)
    if parsed is not None:
        assert prompt.startswith("/" + parsed[0])
    for span in shell_spans(prompt):
        assert prompt[span.start : span.end].startswith("!`")


@given(st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True), st.text(max_size=50))
def test_a_named_invocation_round_trips(name: str, args: str) -> None:
    assert parse_invocation(f"/{name} {args}") == (name, args.strip())


def command_rig(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    script: dict[str, Any],
    events: list[str],
    answers: dict[str, Any] | None = None,
    *,
    files: dict[str, str],
) -> Rig:
    """The recording hook on ``events``, and ``files`` in the project before it is mounted."""
    harness = make_harness(tmp_path, script)
    for name, body in files.items():
        write(harness.project / name, body)
    hooks = {e: [{"hooks": [{"type": "command", "command": hook_command(e)}]}] for e in events}
    return mount_hooks(tmp_path, monkeypatch, harness, hooks, answers)


def user_texts(events: Any) -> list[str]:
    return [content_text(e.content) for e in events if isinstance(e, UserMessageEvent)]


def answer(event: str, **fields: Any) -> dict[str, Any]:
    return {event: {"stdout": {"hookSpecificOutput": {"hookEventName": event, **fields}}}}


async def test_a_command_expands_after_user_prompt_submit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = command_rig(
        tmp_path,
        monkeypatch,
        replies([text("done")]),
        ["UserPromptSubmit", "UserPromptExpansion", "PreSkillShellCommand"],
        answer("UserPromptExpansion", additionalContext="EXP-CTX"),
        files={".claude/commands/greet.md": "Greet $ARGUMENTS: !`echo SHELL-$((40+2))`\n"},
    )
    agent, _ = await rig.run("/greet world")
    assert rig.order() == ["UserPromptSubmit", "UserPromptExpansion", "PreSkillShellCommand"]
    (submit,) = rig.payloads("UserPromptSubmit")
    assert submit["prompt"] == "/greet world"
    (expansion,) = rig.payloads("UserPromptExpansion")
    assert expansion["command_name"] == "greet"
    assert expansion["command_args"] == "world"
    assert expansion["command_source"] == "projectSettings"
    (shell,) = rig.payloads("PreSkillShellCommand")
    assert shell["tool_input"] == {"command": "echo SHELL-$((40+2))"}
    assert shell["invoked_by"] == "user"
    (prompt,) = user_texts(agent.events)
    assert prompt.endswith("Greet world: SHELL-42\n")
    assert "<command-name>/greet</command-name>" in prompt
    request = json.dumps(rig.requests()[0])
    assert "UserPromptExpansion hook additional context: EXP-CTX" in request
    assert request.count("- greet: Greet $ARGUMENTS") == 1  # the skill list


async def test_an_expansion_block_drops_the_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = command_rig(
        tmp_path,
        monkeypatch,
        replies([text("never")]),
        ["UserPromptExpansion"],
        {"UserPromptExpansion": {"exit": 2, "stderr": "NOPE"}},
        files={".claude/commands/greet.md": "Hi\n"},
    )
    agent, _ = await rig.run("/greet x")
    assert rig.requests() == []
    (blocked,) = [e for e in agent.events if isinstance(e, PromptBlockedEvent)]
    assert blocked.reason == (
        "UserPromptExpansion operation blocked by hook:\n"
        f"[{hook_command('UserPromptExpansion')}]: NOPE\n\nOriginal prompt: /greet x"
    )


async def test_an_unknown_command_passes_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = command_rig(
        tmp_path,
        monkeypatch,
        replies([text("ok")]),
        ["UserPromptExpansion"],
        files={".claude/commands/greet.md": "Hi\n"},
    )
    agent, _ = await rig.run("/other thing")
    assert rig.order() == []
    assert user_texts(agent.events) == ["/other thing"]


async def test_a_denied_shell_command_leaves_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran"
    rig = command_rig(
        tmp_path,
        monkeypatch,
        replies([text("ok")]),
        ["PreSkillShellCommand"],
        answer(
            "PreSkillShellCommand",
            permissionDecision="deny",
            permissionDecisionReason="NO-SHELL",
        ),
        files={".claude/commands/c.md": f"A !`touch {marker}` B\n"},
    )
    agent, _ = await rig.run("/c")
    (prompt,) = user_texts(agent.events)
    assert prompt.endswith("A [not run: blocked by hook: NO-SHELL] B\n")
    assert not marker.exists()


async def test_an_expansion_runs_a_bounded_number_of_shell_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    many = " ".join(f"!`echo {n}`" for n in range(MAX_SHELL_COMMANDS + 2))
    rig = command_rig(
        tmp_path,
        monkeypatch,
        replies([text("ok")]),
        ["PreSkillShellCommand"],
        files={".claude/commands/many.md": f"---\ndescription: {'d' * 400}\n---\n{many}\n"},
    )
    agent, _ = await rig.run("/many")
    assert len(rig.payloads("PreSkillShellCommand")) == MAX_SHELL_COMMANDS
    (prompt,) = user_texts(agent.events)
    assert prompt.count(f"[not run: more than {MAX_SHELL_COMMANDS} shell commands]") == 2
    assert f" {MAX_SHELL_COMMANDS - 1} [not run" in prompt
    (listing,) = [line for line in json.dumps(rig.requests()).split("\\n") if "- many:" in line]
    assert len(listing) < 300


async def test_the_skill_tool_loads_a_skill_for_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = replies(
        [tool("Skill", skill="oracle")], [tool("Skill", skill="nothing")], [text("used")]
    )
    rig = command_rig(
        tmp_path,
        monkeypatch,
        script,
        ["PreToolUse", "PreSkillShellCommand"],
        files={
            ".claude/skills/oracle/SKILL.md": (
                "---\nname: oracle\ndescription: Asks\n---\nSay !`echo 7`.\n"
            )
        },
    )
    agent, _ = await rig.run("use it")
    assert rig.order() == ["PreToolUse", "PreSkillShellCommand", "PreToolUse"]
    (shell,) = rig.payloads("PreSkillShellCommand")
    assert shell["invoked_by"] == "claude"
    assert shell["command_name"] == "oracle"
    skill_dir = rig.harness.project / ".claude/skills/oracle"
    steering = [e.text for e in agent.events if isinstance(e, SteeringMessageEvent)]
    assert steering == [f"Base directory for this skill: {skill_dir}\n\nSay 7.\n"]
    results = [m for m in rig.requests()[2]["messages"] if m["role"] == "tool"]
    assert [(r["content"], r["is_error"]) for r in results] == [
        ("Launching skill: oracle", False),
        ("Unknown skill: nothing", True),
    ]


async def test_the_skill_list_reaches_the_model_once_a_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = command_rig(
        tmp_path,
        monkeypatch,
        replies([text("one")], [text("two")]),
        ["UserPromptSubmit"],
        files={".claude/commands/greet.md": "---\ndescription: Says hi\n---\nHi\n"},
    )
    agent = rig.harness.agent()
    for prompt in ("hello", "/greet x"):
        agent.send(prompt)
        await agent.run_turn()
    await agent.close("other")
    contexts = [e for e in agent.events if isinstance(e, ContextMessageEvent)]
    listed = [e for e in contexts if "- greet: Says hi" in e.text]
    assert len(listed) == 1
    assert listed[0].text.startswith("The following skills are available")
