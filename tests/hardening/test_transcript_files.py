"""The Claude Code transcript a hook reads: 0600 in 0700 directories, never written through a link.

Through the real loop with a real hook process (the transcript is written before each hook runs).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dsh.hooks.claude.transcript._projection import TranscriptWriter
from dsh.session import TurnEndReason, UnsafeSessionPathError, UserMessageEvent
from tests.agent.support import bash, replies, text
from tests.hooks_claude.bridge_support import Rig, make_rig


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


async def run_under_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask: int, events: list[str]
) -> Rig:
    """A completed turn running a Bash call, with hooks at ``events``, under ``umask``."""
    rig = make_rig(
        tmp_path,
        monkeypatch,
        replies([text("Running."), bash("echo hi")], [text("Done.")]),
        events,
    )
    old = os.umask(umask)
    try:
        _, result = await rig.run("Please run echo hi")
    finally:
        os.umask(old)
    assert result.end_reason == TurnEndReason.COMPLETED
    return rig


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o277])
async def test_the_transcript_is_private_whatever_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask: int
) -> None:
    rig = await run_under_umask(tmp_path, monkeypatch, umask, ["PreToolUse", "Stop"])
    (transcript,) = rig.transcripts.rglob("*.jsonl")
    assert [e["event"] for e in rig.entries()] == ["PreToolUse", "Stop"]
    assert mode(transcript) == 0o600
    assert mode(rig.transcripts) == 0o700
    assert mode(transcript.parent) == 0o700
    assert "Done." in transcript.read_text()


def test_a_planted_link_is_replaced_or_refused_never_written_through(tmp_path: Path) -> None:
    path = tmp_path / "transcripts" / "p" / "s.jsonl"
    writer = TranscriptWriter(path, session_id="s", permission_mode="default")
    events = [UserMessageEvent(content="one"), UserMessageEvent(content="two")]
    writer.sync(events[:1], cwd=tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_bytes(path.read_bytes())
    before = victim.read_bytes()
    path.unlink()
    path.symlink_to(victim)
    # The file is not as the writer left it: rewritten whole, replacing the link itself.
    writer.sync(events, cwd=tmp_path)
    assert not path.is_symlink()
    assert victim.read_bytes() == before
    assert mode(path) == 0o600
    assert path.read_text().count("\n") == 2
    # A link planted at the temporary name is refused (when a new writer rewrites the file
    # whole: one holding this log's transcript would be taken up and appended to instead).
    path.write_text("not this history\n")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.symlink_to(victim)
    with pytest.raises(UnsafeSessionPathError):
        TranscriptWriter(path, session_id="s", permission_mode="default").sync(events, cwd=tmp_path)
    assert victim.read_bytes() == before


@pytest.mark.parametrize("umask", [0o000, 0o022])
async def test_the_env_file_folders_are_private_whatever_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask: int
) -> None:
    """A script planted in a ``CLAUDE_ENV_FILE`` folder would be sourced before every Bash
    command: the folders are 0700, as the transcripts' are."""
    rig = await run_under_umask(tmp_path, monkeypatch, umask, ["SessionStart", "Stop"])
    folders = [p for p in rig.transcripts.parent.rglob("*") if p.is_dir()]
    env_folders = [p for p in folders if "claude-session-env" in p.parts]
    assert env_folders, folders
    assert all(mode(p) == 0o700 for p in env_folders), [(p, oct(mode(p))) for p in env_folders]
