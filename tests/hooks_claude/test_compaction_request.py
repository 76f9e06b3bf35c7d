"""The Claude Code bridge asks for a compaction's summary with 2.1.332's requests
(``tests/fixtures/claude_compaction.json``, recorded by ``benchmarks/record_claude_compaction.py``).

2.1.332 forks its compaction from the main loop's last request: the same system prompt and
tools, the messages that request carried (not the reply that answered it), then its prompt;
an answer without ``<summary>`` is asked for once more with a paragraph added. Compared on the
Anthropic wire as dsh lays it out, from the first assistant turn on (what comes before is the
vendor's context), ids and cache breakpoints aside.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dsh.hooks.claude._compact_prompt import SUMMARY_ASK
from dsh.models import ModelRequest, ScriptedModel
from dsh.models._anthropic_body import ThinkingStore, messages_body
from tests.agent.support import make_harness, text, tool

RECORDED = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "claude_compaction.json").read_text()
)["compact-bad-summary"]


def _comparable(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages from the first assistant turn on, without ids or cache breakpoints."""
    messages = body["messages"]
    start = next(i for i, m in enumerate(messages) if m["role"] == "assistant")
    drop = {"id", "tool_use_id", "cache_control"}
    return [
        {
            "role": m["role"],
            "content": [{k: v for k, v in b.items() if k not in drop} for b in m["content"]],
        }
        for m in messages[start:]
        if m["role"] != "system"
    ]


async def test_the_summary_is_asked_for_as_2_1_332_asks_it(tmp_path: Path) -> None:
    script = {
        "rules": [
            {
                "has_tool": "Bash",
                "responses": [
                    [text("I'll run it."), tool("Bash", command="echo hi", description="Print hi")],
                    [text("Done: printed hi.")],
                    [text("Done again.")],
                ],
            }
        ],
        "responses": [[text("<summary>S</summary>")]],
    }
    h = make_harness(tmp_path, script)
    sent: list[ModelRequest] = []
    assert isinstance(h.model, ScriptedModel)
    original = h.model._record

    def keep(request: ModelRequest) -> None:
        sent.append(request)
        original(request)

    h.model._record = keep  # type: ignore[method-assign]
    agent = h.agent(summary_ask=SUMMARY_ASK)
    agent.send("Please run echo hi")
    await agent.run_turn()
    summary = await agent.compact()

    # The forked request answers as 2.1.332's did: no <summary>, so asked twice, kept.
    assert summary == "Done: printed hi."
    main, asks = sent[:2], sent[2:]
    assert len(asks) == 2
    bodies = [messages_body("m", r, max_tokens=1, thinking=ThinkingStore()) for r in sent]
    recorded = [_comparable(r) for r in RECORDED["requests"][2:]]
    assert [_comparable(b) for b in bodies[2:]] == recorded
    # The last main request's system prompt and tools, its messages, then the prompt.
    for ask in asks:
        assert (ask.system, ask.tools) == (main[-1].system, main[-1].tools)
        assert ask.messages[:-1] == main[-1].messages
