"""A project with both `.claude/` and `.codex/` hooks: both suites run on one session.

Through ``dsh run``'s own host options (``--hooks`` left to its default: what
the project has), the real loop, the scripted model and real hook processes:
each suite gets its own payloads (Claude Code's ``prompt_id``/``effort``;
Codex's ``turn_id``/``model``, a ``{command}`` tool input and a plain-string
``tool_response``), in the documented order (Claude Code's first on each seam),
and Codex's hooks run without the bypass once ``trust`` recorded them.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.cli._run import RunOptions, host_options
from dsh.hooks import HookSelection, bridges_for
from dsh.hooks.codex import CodexProfile
from dsh.host import HostOptions, TrustingProfile, open_host
from dsh.models import ScriptedModel
from tests.hooks_codex.codex_support import SCRIPT

SCRIPT_REPLIES = {
    "rules": [],
    "responses": [
        [{"type": "tool_use", "name": "Bash", "input": {"command": "echo hi", "description": "d"}}],
        [{"type": "text", "text": "done"}],
    ],
}


def recorder(label: str) -> dict[str, Any]:
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(SCRIPT))} {label}"
    return {"type": "command", "command": command}


def write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The project and ``$CODEX_HOME``, with ``HOME``, the Claude config dir and dsh's data
    dir (Claude Code trust records) under ``tmp_path``."""
    project = (tmp_path / "project").absolute()
    home = tmp_path / "home"
    codex_home = home / ".codex"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("DSH_DATA_DIR", str(tmp_path / "data"))
    return project, codex_home


async def test_both_suites_run_on_one_session_each_with_its_own_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, codex_home = homes(tmp_path, monkeypatch)
    log = tmp_path / "hooks.jsonl"
    monkeypatch.setenv("CASE_HOOK_LOG", str(log))
    events = ("PreToolUse", "PostToolUse", "Stop")
    write(
        project / ".claude/settings.json",
        {"hooks": {e: [{"matcher": "*", "hooks": [recorder(f"claude:{e}")]}] for e in events}},
    )
    write(
        project / ".codex/hooks.json",
        {"hooks": {e: [{"matcher": "*", "hooks": [recorder(f"codex:{e}")]}] for e in events}},
    )
    write(codex_home / "config.toml", f'[projects."{project}"]\ntrust_level = "trusted"\n')
    assert bridges_for(project, None) == {"claude", "codex"}
    trusted = CodexProfile(system_dir=None).trust(project)
    # Three hook records in Codex's config.toml, and dsh's fingerprint of the layer's file.
    assert len(trusted) == 4
    assert trusted[-1] == "trusted: Codex project file .codex/hooks.json"

    model = ScriptedModel(SCRIPT_REPLIES)
    options = host_options(
        RunOptions(
            host=HostOptions(project=project, model=model, session_dir=tmp_path / "s"),
            prompts=("go",),
        )
    )
    for profile in options.profiles:  # as `dsh hooks trust` (Codex's was trusted above)
        if isinstance(profile, TrustingProfile) and profile.name == "claude":
            assert profile.trust(project)
    async with open_host(options) as host:
        assert not [d for d in host.diagnostics if d.profile == "codex"], host.diagnostics
        host.agent.send("go")
        await host.agent.run_turn()

    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["event"] for e in entries] == [
        "claude:PreToolUse",
        "codex:PreToolUse",
        "claude:PostToolUse",
        "codex:PostToolUse",
        "claude:Stop",
        "codex:Stop",
    ]
    by = {e["event"]: e for e in entries}
    claude_pre, codex_pre = by["claude:PreToolUse"]["payload"], by["codex:PreToolUse"]["payload"]
    assert "prompt_id" in claude_pre
    assert "turn_id" not in claude_pre
    assert {"turn_id", "model"} <= set(codex_pre)
    assert "prompt_id" not in codex_pre
    assert codex_pre["tool_input"] == {"command": "echo hi"}
    assert claude_pre["tool_input"]["description"] == "d"
    assert isinstance(by["claude:PostToolUse"]["payload"]["tool_response"], dict)
    assert by["codex:PostToolUse"]["payload"]["tool_response"].strip() == "hi"
    # Claude Code's stdin ends with a newline, Codex's does not.
    assert by["claude:Stop"]["stdin_style"]["trailing_newline"] is True
    assert by["codex:Stop"]["stdin_style"]["trailing_newline"] is False
    assert "CLAUDE_PROJECT_DIR" in by["claude:Stop"]["env"]
    assert "CLAUDE_PROJECT_DIR" not in by["codex:Stop"]["env"]
    assert by["codex:Stop"]["env"]["CODEX_HOME"] == str(codex_home.absolute())


def test_the_default_bridges_follow_the_project(tmp_path: Path) -> None:
    assert bridges_for(tmp_path, None) == {"claude"}
    (tmp_path / ".codex").mkdir()
    assert bridges_for(tmp_path, None) == {"codex"}
    (tmp_path / ".claude").mkdir()
    assert bridges_for(tmp_path, None) == {"claude", "codex"}
    assert bridges_for(tmp_path, "claude") == {"claude"}
    assert bridges_for(tmp_path, "both") == {"claude", "codex"}


def test_a_codex_profiles_hooks_add_the_codex_bridge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.delenv("DSH_CODEX_PROFILE", raising=False)
    (home / "p.config.toml").write_text('[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = "x"\n')
    project = tmp_path / "project"
    project.mkdir()
    assert bridges_for(project, None) == {"claude"}
    assert bridges_for(project, None, codex_profile="p") == {"claude", "codex"}
    assert bridges_for(project, None, codex_profile="q") == {"claude"}
    assert bridges_for(project, None, codex_profile="../p") == {"claude"}  # refused elsewhere
    monkeypatch.setenv("DSH_CODEX_PROFILE", "p")
    assert bridges_for(project, None) == {"claude", "codex"}


async def test_claude_codes_rules_see_codexs_exec_command_as_bash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`exec_command` declares the tools floor's `shell_command` trait, so Claude Code's
    permission rules judge it as `Bash` with `{command}`: `Bash(echo:*)` allows `echo hi`,
    and `touch made` is asked (nobody answers: declined) as a Bash call would be."""
    project, codex_home = homes(tmp_path, monkeypatch)
    write(project / ".claude/settings.json", {"permissions": {"allow": ["Bash(echo:*)"]}})
    write(project / ".codex/hooks.json", {"hooks": {}})
    write(codex_home / "config.toml", f'[projects."{project}"]\ntrust_level = "trusted"\n')
    exec_call = "exec_command"
    script = {
        "rules": [],
        "responses": [
            [{"type": "tool_use", "name": exec_call, "input": {"cmd": "echo CASE-RAN"}}],
            [{"type": "tool_use", "name": exec_call, "input": {"cmd": "touch made"}}],
            [{"type": "text", "text": "done"}],
        ],
    }
    model = ScriptedModel(script, record_to=tmp_path / "requests.jsonl")
    options = host_options(
        RunOptions(
            host=HostOptions(project=project, model=model, session_dir=tmp_path / "s"),
            hooks=HookSelection(hooks="both"),
            prompts=("go",),
        )
    )
    for profile in options.profiles:
        if isinstance(profile, TrustingProfile) and profile.name == "claude":
            profile.trust(project)
    async with open_host(options) as host:
        host.agent.send("go")
        await host.agent.run_turn()
    requests = (tmp_path / "requests.jsonl").read_text()
    assert "Process exited with code 0" in requests  # it ran: Bash(echo:*) allowed it
    assert not (project / "made").exists()
    last = json.loads(requests.splitlines()[-1])["messages"][-1]
    assert last["is_error"]
    assert "no one can be asked" in last["content"]


def test_every_shell_tool_declares_the_field_codex_hooks_read_as_command() -> None:
    """The trait Claude Code's rules read and the field Codex's hooks read agree."""
    from dsh.hooks.codex.runtime._tool_events import codex_tool_input, hook_tool_name
    from dsh.hooks.codex.shell._exec_tool import EXEC_COMMAND_TOOL
    from dsh.tools.builtin import builtin_tools

    shells = [t for t in (*builtin_tools(), EXEC_COMMAND_TOOL) if t.shell_command is not None]
    assert {t.name for t in shells} == {"Bash", "exec_command"}
    for tool in shells:
        assert tool.shell_command is not None
        assert hook_tool_name(tool.name) == "Bash"
        assert codex_tool_input(tool.name, {tool.shell_command: "ls"}) == {"command": "ls"}
