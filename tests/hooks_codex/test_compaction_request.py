"""The Codex bridge asks for a compaction's summary as Codex 0.171 does
(``tests/fixtures/codex_compaction.json``, recorded by ``benchmarks/record_codex_compaction.py``):
the history under the session's own instructions, no tools offered, then Codex's prompt as a
user message, word for word; its first answer is the summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dsh.agent import AgentOptions
from dsh.hooks.codex import CodexMount
from dsh.hooks.codex._compact_prompt import PROMPT, SUMMARY_ASK
from dsh.models import ModelRequest, ScriptedModel
from dsh.models._anthropic_body import ThinkingStore
from dsh.models._responses import responses_body
from tests.agent.support import bash, make_harness, text
from tests.hooks_codex.test_auto_compact import catalog

RECORDED = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "codex_compaction.json").read_text()
)["auto-compact"]


def test_the_codex_mount_gives_every_agent_codexs_ask(tmp_path: Path) -> None:
    mount = CodexMount(catalog(tmp_path, ""), None, None, ())
    options = mount.agent_options(AgentOptions())
    assert (options.summary_ask, options.summary_attempts) == (SUMMARY_ASK, 1)


async def test_the_summary_is_asked_for_as_codex_asks_it(tmp_path: Path) -> None:
    main, ask, after = RECORDED["requests"]
    assert (main["tools"] > 0, ask["tools"], after["tools"] > 0) == (True, 0, True)
    assert ask["input"][-1] == {"type": "message", "role": "user", "texts": [PROMPT]}
    script = {
        "rules": [{"no_tools": True, "responses": [[text("CASE-SUMMARY: ran echo hi.")]]}],
        "responses": [[bash("echo hi")], [text("Done: printed hi.")]],
    }
    h = make_harness(tmp_path, script)
    sent: list[ModelRequest] = []
    assert isinstance(h.model, ScriptedModel)
    original = h.model._record

    def keep(request: ModelRequest) -> None:
        sent.append(request)
        original(request)

    h.model._record = keep  # type: ignore[method-assign]
    agent = h.agent(summary_ask=SUMMARY_ASK, summary_attempts=1)
    agent.send("Please run echo hi")
    await agent.run_turn()
    assert await agent.compact() == "CASE-SUMMARY: ran echo hi."
    *turn, asked = sent
    bodies: list[dict[str, Any]] = [
        responses_body("m", r, ThinkingStore()) for r in (turn[-1], asked)
    ]
    assert bodies[1]["tools"] == []
    assert bodies[1]["instructions"] == bodies[0]["instructions"]
    last = bodies[1]["input"][-1]
    assert (last["role"], [p["text"] for p in last["content"]]) == ("user", [PROMPT])
    # The whole history (the last request's, then the reply that answered it), then the prompt.
    before = turn[-1].messages
    assert asked.messages[: len(before)] == before
    assert [m.role for m in asked.messages[len(before) :]] == ["assistant", "user"]
