"""Custom agent files as Claude Code reads them: where, in which precedence, their fields, the
list the model is given (against a recording of 2.1.332), and a subagent's permission mode."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from dsh.agent import AgentType, AgentTypes
from dsh.hooks.claude import permission_state
from dsh.hooks.claude.rules._values import PermissionSettings
from dsh.hooks.claude.settings._agents import load_agents

FIXTURE = Path(__file__).parents[1] / "fixtures" / "claude_agent_listing.json"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_listing_has_2_1_332s_lines_for_each_custom_agent(tmp_path: Path) -> None:
    recorded = json.loads(FIXTURE.read_text())
    _write(tmp_path, recorded["files"])
    agents = load_agents(tmp_path / "project", home=tmp_path / "home")
    assert agents.diagnostics == ()
    ours = agents.types().listing().split("\n")
    theirs = recorded["listing"].split("\n")
    # 2.1.332 has built-in types dsh does not (Explore, Plan, claude, statusline-setup):
    # every line of ours is theirs, in their order, and so are the head and the tail.
    assert [line for line in theirs if line in ours] == ours
    custom = {"sample-helper", "two-tools", "no-bash", "user-one", "general-purpose"}
    assert {line[2:].split(":")[0] for line in ours if line.startswith("- ")} == custom


def test_project_agents_win_over_user_and_plugin_ones(tmp_path: Path) -> None:
    one = "---\nname: same\ndescription: {}\n---\n"
    _write(
        tmp_path,
        {
            "project/.claude/agents/a.md": one.format("from the project"),
            "home/.claude/agents/a.md": one.format("from the user"),
            "plugin/agents/a.md": one.format("from the plugin"),
            "plugin/agents/b.md": (
                "---\nname: only-plugin\ndescription: p\ntools: [Read, Grep]\n---\n"
            ),
        },
    )
    agents = load_agents(
        tmp_path / "project", home=tmp_path / "home", plugin_roots=[tmp_path / "plugin"]
    )
    same = agents.get("same")
    assert same is not None
    assert same.type.description == "from the project"
    plugin = agents.get("only-plugin")
    assert plugin is not None
    assert plugin.source == "plugin"
    assert plugin.type.tools == ("Read", "Grep")


def test_a_file_without_a_name_or_description_is_skipped_with_where(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {"p/.claude/agents/x.md": "---\ndescription: d\n---\n", "p/.claude/agents/y.md": "plain"},
    )
    agents = load_agents(tmp_path / "p", home=tmp_path / "h")
    assert agents.agents == ()
    described = [d.describe() for d in agents.diagnostics]
    assert described == [
        f"error: {tmp_path}/p/.claude/agents/x.md: line 2, column 1: agent file skipped: its"
        " frontmatter has no `name`",
        f"error: {tmp_path}/p/.claude/agents/y.md: line 2, column 1: agent file skipped: its"
        " frontmatter has no `name`",
    ]


def test_offered_tools_follow_tools_and_disallowed_tools() -> None:
    names = ["Bash", "Read", "Write", "Agent"]
    assert AgentType(name="a", description="d").offered(names) is None
    only = AgentType(name="a", description="d", tools=("Read", "Bash")).offered(names)
    assert only == frozenset({"Read", "Bash"})
    kind = AgentType(name="a", description="d", disallowed_tools=("Bash",))
    assert kind.offered(names) == frozenset({"Read", "Write", "Agent"})
    assert AgentTypes().get("general-purpose") is not None
    assert AgentTypes().get("nope") is None


def test_a_subagents_permission_mode_applies_unless_the_sessions_stands(tmp_path: Path) -> None:
    state = permission_state(PermissionSettings(), tmp_path, mode="default", home=tmp_path)
    state.agent_modes.update({"planner": "plan", "wild": "bypassPermissions"})
    parent = SimpleNamespace(parent=None, agent_type=None)
    assert state.mode_for(SimpleNamespace(parent=parent, agent_type="planner")) == "plan"
    # Never bypass unless the session is in it; the parent's own calls keep the session's.
    assert state.mode_for(SimpleNamespace(parent=parent, agent_type="wild")) == "default"
    assert state.mode_for(parent) == "default"
    state.mode = "acceptEdits"  # the session's acceptEdits, bypass and auto stand
    assert state.mode_for(SimpleNamespace(parent=parent, agent_type="planner")) == "acceptEdits"
