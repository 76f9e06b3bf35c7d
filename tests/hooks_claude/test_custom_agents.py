"""Custom subagents and frontmatter hooks, replayed against the claude-next corpus.

``custom-agent-hooks``: a project agent (``.claude/agents/sample-helper.md``: ``tools: Bash``,
``model: haiku``, hooks on PreToolUse and Stop) started by ``Agent {"subagent_type":
"sample-helper"}``. 2.1.332 started it with only Bash and on Haiku, and did not run its
hooks: the project was not trusted. Replayed as recorded (untrusted: the profile leaves the
hooks out), then trusted, where they run for the subagent only (``Stop`` as SubagentStop).
``skill-frontmatter-hooks``: a skill's PreToolUse (``once: true``) and PostToolUse hooks run
from the call after the Skill call on, next to the settings hooks.

Each replay is as strict as ``test_conformance``'s (its comparison functions), with the
frontmatter handlers' invocations compared too, under their labels.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import SUBAGENT_MODELS
from dsh.hooks.claude import claude_hooks_plugin
from dsh.hooks.claude.settings._agents import AgentSet, load_agents
from dsh.models import Model
from tests.hooks_claude import _conformance_replay as replay_module
from tests.hooks_claude.bridge_support import SCRIPT, Rig
from tests.hooks_claude.recorded_server import recorded_model
from tests.shared_paths import CONFORMANCE, on_ci

from . import test_conformance as conformance

NEXT = CONFORMANCE / "claude-next"
LABELS = {"AgentPreToolUse", "AgentStop", "SkillPreToolUse", "SkillPostToolUse"}
# The settings handler and a frontmatter handler of one event run in parallel: either order.
PARALLEL = {("SkillPreToolUse", "PreToolUse"), ("SkillPostToolUse", "PostToolUse")}


def _case(name: str) -> dict[str, Any]:
    conformance.require_corpus(NEXT, ci=on_ci())
    case: dict[str, Any] = json.loads((NEXT / name / "case.json").read_text())
    return case


def _mount(
    case: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    trusted: bool,
) -> tuple[Rig, replay_module.Places, dict[str, str], list[str]]:
    """The case mounted as ``test_conformance`` mounts one, the agents loaded beside the
    commands (their hooks only when ``trusted``), and the models a type's name selects."""
    places = replay_module.Places(tmp_path)
    monkeypatch.setattr(replay_module, "CASES_DIR", NEXT)
    plain = claude_hooks_plugin

    def with_agents(*args: Any, **kwargs: Any) -> Any:
        agents: AgentSet = load_agents(places.project, home=places.home)
        kwargs["agents"] = agents if trusted else agents.without_project_hooks()
        if not trusted:
            kwargs["commands"] = kwargs["commands"].without_project_hooks()
        return plain(*args, **kwargs)

    monkeypatch.setattr(replay_module, "claude_hooks_plugin", with_agents)
    rig, back = replay_module.mount(case, places, monkeypatch)
    # The frontmatter's `python3 record_hook.py <Label>` runs from the project, as recorded.
    shutil.copy(SCRIPT, places.project / "record_hook.py")
    asked: list[str] = []
    script = replay_module.adapted_script(case)

    def resolve(name: str) -> Model:
        asked.append(name)
        record = rig.harness.record
        return recorded_model(script, requested=name, record_to=record, substitutions=places.theirs)

    rig.harness.ctx.provide(SUBAGENT_MODELS, resolve)
    return rig, places, back, asked


class _SettingsHooks(Rig):
    """The rig's invocations without the frontmatter handlers' (compared on their own, as
    ``test_conformance`` leaves out what is not a settings handler's event)."""

    def entries(self) -> list[dict[str, Any]]:
        return [e for e in super().entries() if e["event"] not in LABELS]


def _settings_recording(case_dir: Path, into: Path) -> Path:
    """A copy of the recording whose order holds the settings handlers' invocations only (the
    frontmatter handlers' are compared on their own), under the case's own name."""
    out = into / case_dir.name
    shutil.copytree(case_dir, out, dirs_exist_ok=True)
    case = json.loads((out / "case.json").read_text())
    case["hook_order"] = [e for e in case["hook_order"] if e not in LABELS]
    (out / "case.json").write_text(json.dumps(case))
    return out


def _compare(
    case: dict[str, Any], rig: Rig, places: replay_module.Places, back: dict[str, str]
) -> list[str]:
    problems: list[str] = []
    settings_only = _SettingsHooks(**{f.name: getattr(rig, f.name) for f in fields(rig)})
    recording = _settings_recording(NEXT / case["case"], places.run_dir / "settings-only")
    conformance.compare_invocations(recording, settings_only, places, back, problems)
    conformance.compare_requests(case, rig, places, back, problems)
    return problems


def _canonical(order: list[str]) -> list[str]:
    out = list(order)
    changed = True
    while changed:
        changed = False
        for i in range(len(out) - 1):
            if (out[i], out[i + 1]) in PARALLEL:
                out[i], out[i + 1] = out[i + 1], out[i]
                changed = True
    return out


def _labelled(rig: Rig) -> list[dict[str, Any]]:
    return [e for e in rig.entries() if e["event"] in LABELS]


def _subagent_requests(rig: Rig) -> list[dict[str, Any]]:
    return [r for r in rig.requests() if "SUBTASK-MARKER" in json.dumps(r["messages"][:1])]


async def test_custom_agent_untrusted_replays_as_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _case("custom-agent-hooks")
    rig, places, back, asked = _mount(case, tmp_path, monkeypatch, trusted=False)
    await replay_module.replay(case, rig, places)
    assert _compare(case, rig, places, back) == []
    # No frontmatter hook ran (the project is not trusted), as recorded.
    assert _labelled(rig) == []
    # The subagent ran on its type's model and was offered only its tools.
    assert asked == ["haiku"]
    sub = _subagent_requests(rig)
    assert sub
    assert all([t["name"] for t in r["tools"]] == ["Bash"] for r in sub)
    parent = [r for r in rig.requests() if r not in sub]
    assert all("Agent" in [t["name"] for t in r["tools"]] for r in parent)
    # The type list 2.1.332 gives the model, with the session's first prompt.
    first = json.dumps(rig.requests()[0])
    assert "- sample-helper: Sample helper agent used by hook tests (Tools: Bash)" in first


async def test_custom_agent_hooks_run_for_that_agent_when_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _case("custom-agent-hooks")
    rig, places, _back, _asked = _mount(case, tmp_path, monkeypatch, trusted=True)
    await replay_module.replay(case, rig, places)
    entries = rig.entries()
    order = [e["event"] for e in entries]
    # The agent's PreToolUse for its own Bash call only (not the parent's `echo parent`);
    # its `Stop` as SubagentStop, beside the settings' SubagentStop.
    assert order.count("AgentPreToolUse") == 1
    assert order.count("AgentStop") == 1
    pre = next(e for e in entries if e["event"] == "AgentPreToolUse")["payload"]
    assert pre["hook_event_name"] == "PreToolUse"
    assert pre["agent_type"] == "sample-helper"
    assert pre["tool_input"]["command"] == "echo from-sub"
    stop = next(e for e in entries if e["event"] == "AgentStop")["payload"]
    assert stop["hook_event_name"] == "SubagentStop"
    assert stop["agent_type"] == "sample-helper"
    assert order.index("AgentStop") < order.index("SubagentStop") + 2
    # Its additionalContext reaches the subagent's next request, not the parent's.
    context = "PreToolUse:Bash hook additional context: CASE-AGENT-FM-CONTEXT"
    sub = _subagent_requests(rig)
    assert context in json.dumps(sub[-1])
    assert all(context not in json.dumps(r) for r in rig.requests() if r not in sub)


async def test_skill_frontmatter_hooks_replay_as_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _case("skill-frontmatter-hooks")
    rig, places, back, _asked = _mount(case, tmp_path, monkeypatch, trusted=True)
    await replay_module.replay(case, rig, places)
    assert _compare(case, rig, places, back) == []
    # The skill's own invocations: where they ran (the order, either way round with the
    # settings handler of the same event) and what they got.
    ours = [e["event"] for e in rig.entries()]
    assert _canonical(ours) == _canonical(case["hook_order"])
    recorded = [e for e in replay_module.recorded(NEXT / case["case"]) if e["event"] in LABELS]
    mine = _labelled(rig)
    assert [e["event"] for e in mine] == [e["event"] for e in recorded]
    problems: list[str] = []
    for got, want in zip(mine, recorded, strict=True):
        payload = json.loads(conformance.with_recorded_commands(json.dumps(got["payload"]), back))
        label = got["event"]
        conformance.compare_payload(label, places.placeholders(payload), want["payload"], problems)
        conformance.compare_env(label, got["env"], want["env"], problems)
        if places.placeholders(got["cwd"]) != want["cwd"]:
            problems.append(f"{label} cwd: {got['cwd']}")
        root = got["env"].get("CLAUDE_PLUGIN_ROOT")
        if places.placeholders(root) != want["env"]["CLAUDE_PLUGIN_ROOT"]:
            problems.append(f"{label} CLAUDE_PLUGIN_ROOT: {root}")
    assert problems == []


async def test_untrusted_skill_hooks_do_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _case("skill-frontmatter-hooks")
    rig, places, _back, _asked = _mount(case, tmp_path, monkeypatch, trusted=False)
    await replay_module.replay(case, rig, places)
    assert _labelled(rig) == []
    assert [e["event"] for e in rig.entries()] == [e for e in case["hook_order"] if e not in LABELS]
