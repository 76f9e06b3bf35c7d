"""The tools of a Codex session: none that Codex 0.171 lacks (``tests/fixtures/codex_tools.json``,
recorded by ``benchmarks/record_codex_tools.py``): SendMessage is not offered."""

from __future__ import annotations

import json
from pathlib import Path

from dsh.agent import subagent_plugin
from dsh.hooks.claude import ClaudeCodeProfile, load_catalog
from dsh.hooks.codex import CodexProfile
from tests.agent.support import Harness, make_harness, text

RECORDED = json.loads((Path(__file__).parents[1] / "fixtures" / "codex_tools.json").read_text())


def _names(tools: list[dict[str, object]]) -> set[str]:
    return {str(t["name"]) for t in tools} | {
        str(m)
        for t in tools
        for m in t.get("tools", ())  # type: ignore[attr-defined]
    }


def _harness(tmp_path: Path, *, codex: bool, claude: bool = False) -> Harness:
    tmp_path.mkdir()
    harness = make_harness(tmp_path, {"rules": [{"responses": [[text("done")]]}]})
    harness.ctx.plugin(subagent_plugin)
    if codex:
        harness.assembly.mount_profile(CodexProfile(home=tmp_path / "h", shell_tool=False))
    if claude:  # both bridges: Claude Code's offers it
        home = tmp_path / "claude-home"
        home.mkdir()
        catalog = load_catalog(
            harness.project,
            home=home,
            managed_path=tmp_path / "none.json",
            env={},
            discover_installed_plugins=False,
        )
        harness.assembly.mount_profile(ClaudeCodeProfile(catalog=catalog))
    return harness


async def _first_request(tmp_path: Path, *, codex: bool, claude: bool = False) -> str:
    harness = _harness(tmp_path, codex=codex, claude=claude)
    agent = harness.agent()
    agent.send("go")
    await agent.run_turn()
    await agent.close("other")
    return json.dumps(harness.requests()[0])


async def test_a_codex_session_offers_no_send_message(tmp_path: Path) -> None:
    assert RECORDED["cli_version"] == "codex-cli 0.171.0"
    assert "SendMessage" not in _names(RECORDED["tools"])
    assert "SendMessage" in await _first_request(tmp_path / "plain", codex=False)
    assert "SendMessage" not in await _first_request(tmp_path / "codex", codex=True)
    assert "SendMessage" in await _first_request(tmp_path / "both", codex=True, claude=True)
