"""PreModelSwitch's one rule of its own: a hook that times out blocks the switch (the
reference: "a timeout blocks the switch"), with a real sleeping hook and a short timeout; a
hook that merely fails (exit 1) is reported and lets the switch go on. The wordings are the
real 2.1.332's, seen against a loopback Messages API (a stream-json ``set_model``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dsh.agent import ModelSwitchAllow, ModelSwitchDeny
from dsh.models import ScriptedModel
from dsh.session import NoticeEvent
from tests.agent.support import make_harness, replies, text
from tests.hooks_claude.bridge_support import mount_hooks


def _switch_hooks(command: str, timeout: float) -> dict[str, object]:
    handler = {"type": "command", "command": command, "timeout": timeout}
    return {"PreModelSwitch": [{"hooks": [handler]}]}


async def test_a_hook_that_times_out_keeps_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sleeper = tmp_path / "sleep.py"
    sleeper.write_text("import time\ntime.sleep(60)\n")
    command = f"{sys.executable} {sleeper}"
    harness = make_harness(tmp_path, replies([text("old")]))
    rig = mount_hooks(tmp_path, monkeypatch, harness, _switch_hooks(command, 0.3), None)
    agent = rig.harness.agent()
    other = ScriptedModel(replies([text("new")]), source="other")
    decision = await agent.switch_model(other, requested="sonnet", source="sdk")
    assert isinstance(decision, ModelSwitchDeny)
    # 2.1.332's words (seen against the real one), with dsh's model name.
    name = f"PreModelSwitch:{other.name}"
    assert decision.reason == f"PreModelSwitch hook {name} did not respond before its timeout"
    assert agent.model is harness.model
    await agent.close()


async def test_a_hook_that_fails_lets_the_switch_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = tmp_path / "fail.py"
    failing.write_text("import sys\nsys.stderr.write('nope\\n')\nsys.exit(1)\n")
    harness = make_harness(tmp_path, replies([text("old")]))
    hooks = _switch_hooks(f"{sys.executable} {failing}", 30)
    rig = mount_hooks(tmp_path, monkeypatch, harness, hooks, None)
    agent = rig.harness.agent()
    other = ScriptedModel(replies([text("new")]), source="other")
    decision = await agent.switch_model(other, requested="sonnet", source="sdk")
    assert isinstance(decision, ModelSwitchAllow)
    assert agent.model is other
    notices = [e.text for e in agent.session.events if isinstance(e, NoticeEvent)]
    assert notices == [
        f"PreModelSwitch hook PreModelSwitch:{other.name} failed:"
        " Failed with non-blocking status code: nope"
    ]
    await agent.close()
