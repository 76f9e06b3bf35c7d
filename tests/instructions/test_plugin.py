"""``claude_instructions_plugin`` through the real loop: what the model reads, and when it fires.

The files' text is queued at the session's start, so the model reads it
before the first prompt; ``agent/instructions-loaded`` fires per file then,
before the first prompt's ``agent/prompt-submit`` (as Claude Code 2.1.332 fires
InstructionsLoaded before UserPromptSubmit, whether the prompt goes through or
not), again with ``compact`` after a compaction, never for a resumed session
(its history holds the text) nor for a subagent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dsh.agent import INSTRUCTIONS_LOADED, PROMPT_SUBMIT, Agent, InstructionsFile, PromptDecision
from dsh.context import Next
from dsh.instructions import claude_instructions_plugin
from dsh.messages import Content
from dsh.session import ContextMessageEvent, UserMessageEvent
from tests.agent.support import Harness, make_harness, of_type, replies, text


def harness(tmp_path: Path, *responses: Any) -> tuple[Harness, list[InstructionsFile]]:
    h = make_harness(tmp_path, replies(*[[text(r)] for r in responses]))
    (h.project / "CLAUDE.md").write_text("Project rule: @docs/more.md\n")
    (h.project / "docs").mkdir()
    (h.project / "docs" / "more.md").write_text("More rules.\n")
    h.ctx.plugin(
        claude_instructions_plugin(config_dir=tmp_path / "cfg", managed_dir=tmp_path / "no-managed")
    )
    seen: list[InstructionsFile] = []

    @h.ctx.on(INSTRUCTIONS_LOADED)
    async def record(agent: Agent, file: InstructionsFile) -> None:
        seen.append(file)

    return h, seen


async def test_the_model_reads_the_files_before_the_first_prompt(tmp_path: Path) -> None:
    h, seen = harness(tmp_path, "ok")
    agent = h.agent()
    agent.send("hello")
    await agent.run_turn()
    await agent.close("other")

    (context,) = of_type(agent.events, ContextMessageEvent)
    assert context.source == "claude-instructions"
    project = h.project.resolve()
    assert f"Contents of {project / 'CLAUDE.md'} (project instructions" in context.text
    assert context.text.index("Project rule") < context.text.index("More rules.")
    (user,) = of_type(agent.events, UserMessageEvent)
    assert agent.events.index(context) < agent.events.index(user)
    assert [(f.path, f.load_reason, f.parent_path) for f in seen] == [
        (project / "CLAUDE.md", "session_start", None),
        (project / "docs" / "more.md", "include", project / "CLAUDE.md"),
    ]


async def test_the_event_fires_before_the_first_prompt_even_a_blocked_one(tmp_path: Path) -> None:
    h, seen = harness(tmp_path, "ok")
    loaded_at_prompt: list[int] = []

    @h.ctx.on(PROMPT_SUBMIT, prepend=True)
    async def block_first(
        agent: Agent, content: Content, source: str, nxt: Next[PromptDecision]
    ) -> PromptDecision:
        loaded_at_prompt.append(len(seen))
        if len(loaded_at_prompt) == 1:
            return PromptDecision.block("not yet")
        return await nxt()

    agent = h.agent()
    agent.send("first")
    await agent.run_turn()
    agent.send("second")
    await agent.run_turn()
    await agent.close("other")
    assert loaded_at_prompt == [2, 2]
    assert [f.load_reason for f in seen] == ["session_start", "include"]


async def test_compaction_reloads_and_resume_does_not(tmp_path: Path) -> None:
    h, seen = harness(tmp_path, "ok", "summary of it", "again")
    agent = h.agent()
    agent.send("hello")
    await agent.run_turn()
    assert await agent.compact() is not None
    assert [f.load_reason for f in seen] == ["session_start", "include", "compact", "include"]
    await agent.close("other")
    session = agent.session
    session.close()

    seen.clear()
    resumed = h.agent(session=h.store.open(session.id))
    before = len(of_type(resumed.events, ContextMessageEvent))
    resumed.send("more")
    await resumed.run_turn()
    await resumed.close("other")
    assert seen == []
    assert len(of_type(resumed.events, ContextMessageEvent)) == before
