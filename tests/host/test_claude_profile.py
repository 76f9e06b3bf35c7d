"""The Claude Code profile on a host: real settings files, real hook processes, real sessions."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dsh.hooks.claude import ClaudeCodeMount, ClaudeCodeProfile
from dsh.host import HostOptions, open_host
from dsh.models import ScriptedModel
from dsh.session import ContextMessageEvent
from tests.agent.support import replies, text

RECORD = (
    "import json, sys\n"
    "p = json.load(sys.stdin)\n"
    "open(sys.argv[1], 'a').write(p['hook_event_name'] + '\\n')\n"
)


def profile(tmp_path: Path, *, instructions: bool = True) -> ClaudeCodeProfile:
    """The profile over the project's own settings only (no user, managed or plugin hooks)."""
    return ClaudeCodeProfile(
        home=tmp_path / "home",
        managed_path=tmp_path / "no-managed.json",
        env={},
        discover_installed_plugins=False,
        transcript_dir=tmp_path / "transcripts",
        instructions_config_dir=tmp_path / "home" / ".claude",
        instructions=instructions,
        instructions_managed_dir=tmp_path / "no-managed",
        trust_dir=tmp_path / "trust",
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose settings hold a SessionEnd hook, and whose local settings a declaration
    the catalog refuses (a malformed file is skipped whole)."""
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    (tmp_path / "hook.py").write_text(RECORD)
    command = f"{sys.executable} {tmp_path / 'hook.py'} {tmp_path / 'fired.txt'}"
    hooks = {"SessionEnd": [{"hooks": [{"type": "command", "command": command}]}]}
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    bad = {"NoSuchEvent": [{"hooks": [{"type": "command", "command": "true"}]}]}
    (root / ".claude" / "settings.local.json").write_text(json.dumps({"hooks": bad}))
    (root / "CLAUDE.md").write_text("Always answer in haiku.\n")
    profile(tmp_path).trust(root)  # as a user who trusted the project once
    return root


def host_options(tmp_path: Path, project: Path, claude: ClaudeCodeProfile) -> HostOptions:
    return HostOptions(
        project=project,
        model=ScriptedModel(replies([text("done")])),
        session_dir=tmp_path / "sessions",
        profiles=(claude,),
    )


async def test_the_profile_mounts_the_bridge_and_claude_md_and_reports_diagnostics(
    tmp_path: Path, project: Path
) -> None:
    async with open_host(host_options(tmp_path, project, profile(tmp_path))) as host:
        diagnostic, *_ = host.diagnostics
        assert diagnostic.profile == "claude"
        assert "settings.local.json: NoSuchEvent" in diagnostic.text
        assert str(diagnostic) == f"claude hooks: {diagnostic.text}"
        host.agent.send("hi")
        await host.agent.run_turn()
        assert not (tmp_path / "fired.txt").exists()
    # SessionEnd ran once, as a real process, before the log closed.
    assert (tmp_path / "fired.txt").read_text() == "SessionEnd\n"
    assert host.session.closed
    assert host.ctx.disposed
    contexts = [e for e in host.session.events if isinstance(e, ContextMessageEvent)]
    assert [c.source for c in contexts] == ["claude-instructions"]
    assert "Always answer in haiku." in contexts[0].text


async def test_a_body_that_raises_still_runs_session_end_hooks(
    tmp_path: Path, project: Path
) -> None:
    with pytest.raises(KeyError):
        async with open_host(host_options(tmp_path, project, profile(tmp_path))):
            raise KeyError("body")
    assert (tmp_path / "fired.txt").read_text() == "SessionEnd\n"


def test_the_profile_loads_without_a_host(tmp_path: Path, project: Path) -> None:
    found = profile(tmp_path, instructions=False).load(project)
    assert isinstance(found, ClaudeCodeMount)
    assert [h.event for h in found.catalog.all_hooks()] == ["SessionEnd"]
    assert found.hooks is not None
    assert found.instructions is None
    errors = found.catalog.errors
    assert found.diagnostics == tuple(d.describe() for d in errors)
    assert found.diagnostics


def test_a_catalog_with_no_hooks_mounts_no_bridge(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    found = profile(tmp_path).load(empty)
    assert found.hooks is None
    assert found.instructions is not None
    assert found.diagnostics == ()
