"""``agent/model-switch``, ``agent/model-switched`` and ``agent/directory-added`` with native
plugins: a policy may keep the model; the next turn's requests go to the new one."""

from __future__ import annotations

from pathlib import Path

from dsh.agent import (
    DIRECTORY_ADDED,
    MODEL_SWITCH,
    MODEL_SWITCHED,
    Agent,
    DirectorySource,
    ModelSwitchAllow,
    ModelSwitchDecision,
    ModelSwitchDeny,
    ModelSwitchRequest,
)
from dsh.context import Next
from dsh.models import ScriptedModel
from tests.agent.support import make_harness, replies, text


async def test_a_switch_changes_the_model_of_the_next_turn(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("old")]))
    other_record = tmp_path / "other.jsonl"
    other = ScriptedModel(replies([text("new")]), record_to=other_record, source="other")
    seen: list[str] = []

    async def switched(agent: Agent, request: ModelSwitchRequest) -> None:
        seen.append(f"{request.from_model}->{request.to_model} ({request.source})")

    h.ctx.on(MODEL_SWITCHED, switched)
    agent = h.agent()
    agent.send("one")
    assert (await agent.run_turn()).final_text == "old"
    decision = await agent.switch_model(other, requested="other", source="command")
    assert isinstance(decision, ModelSwitchAllow)
    assert agent.model is other
    assert seen == []  # fired as the next turn begins
    agent.send("two")
    assert (await agent.run_turn()).final_text == "new"
    assert seen == [f"{h.model.name}->scripted:other (command)"]
    assert len(other_record.read_text().splitlines()) == 1
    await agent.close()


async def test_a_policy_keeps_the_model(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("old")]))
    other = ScriptedModel(replies([text("new")]), source="other")

    async def keep(
        agent: Agent, request: ModelSwitchRequest, nxt: Next[ModelSwitchDecision]
    ) -> ModelSwitchDecision:
        return ModelSwitchDecision.deny(f"no {request.requested}")

    h.ctx.on(MODEL_SWITCH, keep)
    agent = h.agent()
    decision = await agent.switch_model(other, requested="sonnet")
    assert isinstance(decision, ModelSwitchDeny)
    assert decision.reason == "no sonnet"
    assert agent.model is h.model
    await agent.close()


async def test_a_failing_policy_keeps_the_model(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("old")]))

    async def broken(
        agent: Agent, request: ModelSwitchRequest, nxt: Next[ModelSwitchDecision]
    ) -> ModelSwitchDecision:
        raise RuntimeError("boom")

    h.ctx.on(MODEL_SWITCH, broken)
    agent = h.agent()
    decision = await agent.switch_model(ScriptedModel(replies([text("x")])), requested="x")
    assert isinstance(decision, ModelSwitchDeny)
    assert "boom" in decision.reason
    assert agent.model is h.model
    await agent.close()


async def test_a_directory_is_added_once_and_absolute(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("ok")]))
    added: list[tuple[Path, DirectorySource]] = []

    async def joined(agent: Agent, directory: Path, source: DirectorySource) -> None:
        added.append((directory, source))

    h.ctx.on(DIRECTORY_ADDED, joined)
    agent = h.agent()
    first = await agent.add_directory(Path("sub/../extra"), source="register_repo_root")
    await agent.add_directory(first, source="register_repo_root")
    assert first == agent.workspace.cwd / "extra"
    assert agent.directories == (first,)
    assert added == [(first, "register_repo_root")]
    await agent.close()
