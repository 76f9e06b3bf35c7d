"""``open_host`` through real sessions in ``tmp_path``: what it builds, and that every way out
closes the agent (session-end exactly once), then the session log, then the context."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import SESSION_END, Agent, SessionEndReason
from dsh.approval import APPROVAL, ApprovalBroker
from dsh.context import Context, Plugin
from dsh.host import Host, HostOptions, ProfileDiagnostic, open_host
from dsh.models import ScriptedModel
from dsh.session import (
    JsonlSessionStore,
    NoticeEvent,
    SessionNotFoundError,
    TurnEndReason,
    UserMessageEvent,
)
from dsh.tools import TOOLS
from tests.agent.support import bash, replies, text


@dataclass
class Closing:
    """What a plugin saw of the host's shutdown: each session-end, and whether the log
    was still open and the context still live then."""

    ends: list[tuple[str, SessionEndReason, bool, bool]] = field(default_factory=list)
    disposed: int = 0

    def plugin(self, ctx: Context) -> None:
        @ctx.on(SESSION_END)
        async def ended(agent: Agent, reason: SessionEndReason) -> None:
            self.ends.append((agent.session_id, reason, not agent.session.closed, not ctx.disposed))

        def gone() -> None:
            self.disposed += 1

        ctx.add_disposer(gone)

    def assert_closed_once(self, host: Host) -> None:
        assert self.ends == [(host.session.id, "other", True, True)]
        assert self.disposed == 1
        assert host.agent.closed
        assert host.session.closed
        assert host.ctx.disposed


def options(tmp_path: Path, *plugins: Plugin, **more: Any) -> HostOptions:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    script = more.pop("script", replies([bash("echo hi")], [text("done")]))
    return HostOptions(
        project=project,
        model=ScriptedModel(script),
        session_dir=tmp_path / "sessions",
        plugins=plugins,
        **more,
    )


async def test_a_turn_runs_and_the_host_closes_in_order(tmp_path: Path) -> None:
    closing = Closing()
    async with open_host(options(tmp_path, closing.plugin)) as host:
        host.agent.send("say hi")
        result = await host.agent.run_turn()
        assert closing.ends == []
    assert result.end_reason == TurnEndReason("completed")
    assert result.final_text == "done"
    closing.assert_closed_once(host)
    assert JsonlSessionStore(tmp_path / "sessions").load(host.session.id) == host.session.events


async def test_the_host_holds_the_parts_it_built(tmp_path: Path) -> None:
    async with open_host(options(tmp_path)) as host:
        assert host.ctx.require(TOOLS) is host.registry
        assert {"Bash", "Read", "Write", "TaskCreate"} <= {
            d.name for d in host.registry.definitions()
        }
        assert isinstance(host.approval, ApprovalBroker)
        assert host.ctx.get(APPROVAL) is host.approval
        assert host.agent.session is host.session
        assert host.agent.model is host.model
        assert host.agent.store is host.store
        assert host.agent.workspace.cwd == (tmp_path / "project").resolve()
        assert host.diagnostics == ()
    async with open_host(options(tmp_path, builtin_tools=False, approval=None)) as bare:
        assert bare.registry.definitions() == ()
        assert bare.ctx.get(APPROVAL) is None


async def test_a_body_that_raises_still_closes_everything(tmp_path: Path) -> None:
    closing = Closing()
    opened: list[Host] = []

    async def body() -> None:
        async with open_host(options(tmp_path, closing.plugin)) as host:
            opened.append(host)
            host.agent.send("say hi")
            await host.agent.run_turn()
            raise RuntimeError("body failed")

    with pytest.raises(RuntimeError, match="body failed"):
        await body()
    closing.assert_closed_once(opened[0])


async def test_a_cancelled_body_still_closes_everything(tmp_path: Path) -> None:
    closing = Closing()
    opened: asyncio.Future[Host] = asyncio.get_running_loop().create_future()

    async def body() -> None:
        async with open_host(options(tmp_path, closing.plugin)) as host:
            opened.set_result(host)
            await asyncio.Event().wait()

    task = asyncio.create_task(body())
    host = await opened
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    closing.assert_closed_once(host)


async def test_a_cancellation_while_closing_waits_for_session_end(tmp_path: Path) -> None:
    """A second cancellation lands during the session-end listeners: they run to their end,
    before the log closes under them, and the cancellation is raised afterwards."""
    closing = Closing()
    ending = asyncio.Event()
    release = asyncio.Event()

    def slow_end(ctx: Context) -> None:
        @ctx.on(SESSION_END)
        async def wait(agent: Agent, reason: SessionEndReason) -> None:
            ending.set()
            await release.wait()
            agent.notice("session-end finished", source="test")

    task = asyncio.create_task(_hold(options(tmp_path, slow_end, closing.plugin)))
    await ending.wait()
    task.cancel()
    await asyncio.sleep(0)
    assert not task.done()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    (session_id, *_) = closing.ends[0]
    logged = JsonlSessionStore(tmp_path / "sessions").load(session_id)
    assert [e.text for e in logged if isinstance(e, NoticeEvent)] == ["session-end finished"]
    assert len(closing.ends) == 1
    assert closing.disposed == 1


async def _hold(opts: HostOptions) -> None:
    async with open_host(opts):
        pass


async def test_resume_continues_the_session_and_fires_session_end_again(tmp_path: Path) -> None:
    first = Closing()
    async with open_host(options(tmp_path, first.plugin)) as original:
        original.agent.send("say hi")
        await original.agent.run_turn()
    first.assert_closed_once(original)
    second = Closing()
    script = replies([text("again")])
    opts = options(tmp_path, second.plugin, resume=original.session.id, script=script)
    async with open_host(opts) as resumed:
        assert resumed.session.id == original.session.id
        assert resumed.agent.start_source == "resume"
        assert resumed.session.events[: len(original.session.events)] == original.session.events
        resumed.agent.send("once more")
        await resumed.agent.run_turn()
    second.assert_closed_once(resumed)
    prompts = [e.content for e in resumed.session.events if isinstance(e, UserMessageEvent)]
    assert prompts == ["say hi", "once more"]


async def test_fork_starts_a_new_session_from_a_copy(tmp_path: Path) -> None:
    async with open_host(options(tmp_path)) as original:
        original.agent.send("say hi")
        await original.agent.run_turn()
    closing = Closing()
    async with open_host(options(tmp_path, closing.plugin, fork=original.session.id)) as fork:
        assert fork.session.id != original.session.id
        assert fork.session.forked_from == original.session.id
        assert fork.agent.start_source == "startup"
        assert any(isinstance(e, UserMessageEvent) for e in fork.session.events)
    closing.assert_closed_once(fork)
    assert JsonlSessionStore(tmp_path / "sessions").load(original.session.id) == (
        original.session.events
    )


def test_resume_and_fork_exclude_each_other(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="exclude each other"):
        options(tmp_path, resume="a" * 32, fork="b" * 32)


async def test_an_unknown_session_disposes_what_was_mounted(tmp_path: Path) -> None:
    closing = Closing()
    with pytest.raises(SessionNotFoundError):
        async with open_host(options(tmp_path, closing.plugin, resume="0" * 32)):
            pytest.fail("the body never runs")
    assert closing.ends == []
    assert closing.disposed == 1


async def test_a_plugin_that_fails_to_mount_disposes_those_before_it(tmp_path: Path) -> None:
    closing = Closing()

    def broken(ctx: Context) -> None:
        raise RuntimeError("cannot mount")

    with pytest.raises(RuntimeError, match="cannot mount"):
        async with open_host(options(tmp_path, closing.plugin, broken)):
            pytest.fail("the body never runs")
    assert closing.disposed == 1
    assert not (tmp_path / "sessions").exists() or not list((tmp_path / "sessions").iterdir())


@dataclass(frozen=True)
class Found:
    hooks: Plugin | None
    instructions: Plugin | None
    diagnostics: Sequence[str]


@dataclass
class FakeProfile:
    """A bridge's profile in miniature: a hooks plugin, an instructions loader, two diagnostics."""

    loaded: list[Path] = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "fake"

    def load(self, project: Path, /) -> Found:
        self.loaded.append(project)
        return Found(self._record, self._record, ("bad hook in a.json", "bad hook in b.json"))

    def _record(self, ctx: Context) -> None:
        self.scopes.append(ctx.name)


async def test_a_profile_is_mounted_and_its_diagnostics_are_returned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = FakeProfile()
    closing = Closing()
    async with open_host(options(tmp_path, closing.plugin, profiles=(profile,))) as host:
        assert profile.loaded == [tmp_path / "project"]
        assert profile.scopes == ["fake-hooks", "fake-instructions"]
        assert host.diagnostics == (
            ProfileDiagnostic("fake", "bad hook in a.json"),
            ProfileDiagnostic("fake", "bad hook in b.json"),
        )
        assert str(host.diagnostics[0]) == "fake hooks: bad hook in a.json"
        host.agent.send("say hi")
        await host.agent.run_turn()
    closing.assert_closed_once(host)
    assert capsys.readouterr() == ("", "")  # the host prints nothing
