"""Token figures from the usage the API reported, compared strictly with the recordings.

The recordings' server reported 100 input and 20 output tokens for every reply; 2.1.332's
SessionStart ``resume`` (``resume``) and PreModelSwitch/PostModelSwitch (``model-switch-sdk``)
payloads carry ``context_tokens`` (the last response's input, cache and output tokens: 120) and
``estimated_cache_write_usd`` (those tokens at the cache-write price of the session's model,
``claude-opus-5-5``, or of the model switched to, ``claude-sonnet-5-5``). The replay's
scripted model reports the same usage under the same model ids, and the fields must be equal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.models._prices import cost_usd, price_of
from tests.agent.support import replies, text
from tests.hooks_claude.bridge_support import Rig, make_rig
from tests.hooks_claude.recorded_server import recorded_model
from tests.shared_paths import CONFORMANCE, on_ci

FIGURES = ("context_tokens", "estimated_cache_write_usd")


def recorded(case: str, name: str) -> dict[str, Any]:
    path = CONFORMANCE / "claude" / case / name
    if not path.is_file():
        assert not on_ci(), f"the corpus is missing: {path}"
        pytest.skip("no corpus")
    payload: dict[str, Any] = json.loads(path.read_text())["payload"]
    return payload


def rig_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, events: list[str]) -> Rig:
    script = replies([text("first answer")], [text("second answer")])
    rig = make_rig(tmp_path, monkeypatch, script, events)
    rig.harness.model = recorded_model(script, record_to=rig.harness.record)
    return rig


async def test_session_start_resume_figures_are_the_reported_usage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    want = recorded("resume", "SessionStart-2.json")
    rig = rig_on(tmp_path, monkeypatch, ["SessionStart"])
    agent, _ = await rig.run("hello")
    agent.session.close()
    resumed = rig.harness.agent(session=rig.harness.store.open(agent.session_id))
    resumed.send("again")
    await resumed.run_turn()
    await resumed.close("other")
    _, resume = rig.payloads("SessionStart")
    assert {k: resume[k] for k in FIGURES} == {k: want[k] for k in FIGURES}


@pytest.mark.parametrize("event", ["PreModelSwitch", "PostModelSwitch"])
async def test_model_switch_figures_and_ids_are_as_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, event: str
) -> None:
    want = recorded("model-switch-sdk", f"{event}.json")
    rig = rig_on(tmp_path, monkeypatch, [event])
    agent = rig.harness.agent()
    agent.send("hello")
    await agent.run_turn()
    sonnet = recorded_model({"responses": [[text("on sonnet")]]}, requested="sonnet")
    await agent.switch_model(sonnet, requested="sonnet", source="sdk")
    agent.send("again")
    await agent.run_turn()
    await agent.close("other")
    (got,) = rig.payloads(event)
    keys = ("from_model", "to_model", "requested_model", *FIGURES, "pricing")
    assert {k: got[k] for k in keys} == {k: want[k] for k in keys}


def test_the_price_table_gives_the_recorded_costs() -> None:
    """``claude-stream-json/resume``: two replies of 100 input and 20 output tokens cost
    0.0016 USD on ``claude-opus-5-5``; three, 0.0024."""
    from dsh.messages import Usage

    opus = price_of("claude-opus-5-5")
    assert opus is not None
    assert cost_usd(Usage(200, 40), opus) == pytest.approx(0.0016)
    assert cost_usd(Usage(300, 60), opus) == pytest.approx(0.0024)
    assert price_of("claude-sonnet-4-5-20250929") == price_of("claude-sonnet-4-5")
    assert price_of("scripted:x") is None
    assert price_of("my-local-model") is None
