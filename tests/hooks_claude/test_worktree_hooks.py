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
    assert problems == []
    # The child's hooks ran in the hook's folder; the parent's stay in the project.
    cwds = {e["event"]: e["cwd"] for e in rig.entries()}
    assert cwds["SubagentStart"] == str(places.run_dir / "wt")
    assert cwds["Stop"] == str(places.project)
