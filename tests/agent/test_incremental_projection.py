"""Every request the loop sends holds what a full re-projection of its log gives.

The agent keeps its model view up to date as it logs events; a model that
re-projects the whole log at each call (the agent's ``events`` then) checks
every request of real turns with Bash calls, injected context, steering,
manual and budget compactions, a resumed session and a fork.
"""

from __future__ import annotations

from pathlib import Path

from dsh.agent import Agent
from dsh.messages import AssistantMessage
from dsh.models import ModelRequest, ScriptedModel, TextCallback
from dsh.session import CompactionStart, ContextMessageEvent, project
from tests.agent.support import Harness, bash, make_harness, replies, text


class Reprojecting:
    """The harness's scripted model, checking each request against ``project(agent.events)``."""

    def __init__(self, inner: ScriptedModel) -> None:
        self.inner = inner
        self.agent: Agent | None = None
        self.checked = 0

    @property
    def name(self) -> str:
        return self.inner.name

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        assert self.agent is not None
        events = self.agent.events
        if events and isinstance(events[-1], CompactionStart):
            # The summarization call: the history before compaction/start, then its prompt.
            assert request.messages[:-1] == tuple(project(events[:-1]))
        else:
            assert request.messages == tuple(project(events))
        self.checked += 1
        return await self.inner.complete(request, on_text=on_text)


def _agent(h: Harness, model: Reprojecting, session: object = None, **options: object) -> Agent:
    agent = h.agent(session, model=model, **options)  # type: ignore[arg-type]
    model.agent = agent
    return agent


async def _turns(agent: Agent, *prompts: str) -> None:
    for n, prompt in enumerate(prompts):
        agent.inject(f"context {n}", "plugin:test")
        agent.send(prompt)
        agent.steer(f"steer {n}")
        await agent.run_turn()


async def test_requests_equal_a_full_reprojection_through_compaction_resume_and_fork(
    tmp_path: Path,
) -> None:
    steps = [[bash("echo one"), bash("echo two")], [text("done")]] * 6
    h = make_harness(
        tmp_path,
        replies(*steps, rules=[{"no_tools": True, "responses": [[text("<summary>S</summary>")]]}]),
    )
    model = Reprojecting(h.model)
    first = _agent(h, model, compact_budget=400)
    await _turns(first, "hello", "x" * 300)
    first.append_events([ContextMessageEvent(source="plugin:test", text="logged by a plugin")])
    await _turns(first, "again")
    assert await first.compact("short") is not None
    await _turns(first, "after the compaction")
    await first.close("other")
    first.session.close()

    resumed = _agent(h, model, h.store.open(first.session_id))
    # The view the scan built, handed to the agent: what projecting the reloaded log gives.
    assert resumed.messages() == tuple(project(h.store.load(first.session_id)))
    await _turns(resumed, "resumed")
    assert resumed.messages() == tuple(project(resumed.events))
    await resumed.close("other")
    resumed.session.close()

    fork = _agent(h, model, h.store.fork(first.session_id))
    await _turns(fork, "forked")
    await fork.close("other")
    assert model.checked >= 12
    assert [e.type for e in first.events].count("compaction/end") >= 2  # budget and manual
