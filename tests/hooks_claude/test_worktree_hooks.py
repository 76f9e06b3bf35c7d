"""WorktreeCreate for an ``isolation: worktree`` subagent, replayed against the claude-next
corpus's ``worktree-subagent`` (2.1.332): the hook fires after the Agent call's PreToolUse and
before SubagentStart with ``name: agent-<id>``, and replaces ``git worktree add``: the child's
hooks run in the folder it printed, the parent's stay in the project. Compared as strictly as
``test_conformance`` compares invocations (order, payloads, process cwd, environment)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hooks_claude import _conformance_replay as replay_module

from . import test_conformance as conformance
from .test_custom_agents import NEXT, _case, _mount


async def test_worktree_create_makes_the_subagents_worktree_as_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _case("worktree-subagent")
    rig, places, back, _asked = _mount(case, tmp_path, monkeypatch, trusted=True)
    # The recorded hook made `<run>/wt` (`mkdir -p ${RUN_DIR}/wt && record_hook.py`, which
    # the replay runs as record_hook.py alone) and printed it, its run folder as `__RUN__`.
    (places.run_dir / "wt").mkdir()
    respond = places.run_dir / "answers.json"
    respond.write_text(respond.read_text().replace("__RUN__", str(places.run_dir)))
    await replay_module.replay(case, rig, places)
    problems: list[str] = []
    conformance.compare_invocations(NEXT / "worktree-subagent", rig, places, back, problems)
    # As recorded, but for what the Agent tool's work of issue 28 (another branch) settles:
    # 2.1.332 offers SendMessage (`canContinueAgent: true`, the hand-back's "use SendMessage"
    # hint) and hands PostToolBatch the result as one text block.
    record, batch = problems
    theirs, ours = record.removeprefix("PostToolUse.tool_response: 2.1.332 ").split(", dsh ")
    assert theirs.endswith("'worktreePath': '${RUN_DIR}/wt', 'canContinueAgent': True}")
    assert ours.endswith("'worktreePath': '${RUN_DIR}/wt', 'canContinueAgent': False}")
    assert theirs.removesuffix("True}") == ours.removesuffix("False}")
    theirs, ours = batch.split(", dsh ")
    assert "\\nworktreePath: ${RUN_DIR}/wt\\n<usage>" in theirs
    assert "\\nagentId: <agent-id>\\nworktreePath: ${RUN_DIR}/wt\\n<usage>" in ours
    # The child's hooks ran in the hook's folder; the parent's stay in the project.
    cwds = {e["event"]: e["cwd"] for e in rig.entries()}
    assert cwds["SubagentStart"] == str(places.run_dir / "wt")
    assert cwds["Stop"] == str(places.project)
