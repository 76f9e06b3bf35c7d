"""The transcript is kept current by appending: the file always equals a full re-projection."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.agent import subagent_plugin
from dsh.hooks.claude import claude_hooks_plugin, load_catalog
from dsh.hooks.claude.transcript._projection import TranscriptWriter, transcript_lines
from dsh.messages import ToolUse
from dsh.session import (
    AssistantMessageEvent,
    ContextMessageEvent,
    SessionEvent,
    ToolResultEvent,
    UserMessageEvent,
)
from tests.agent.support import bash, make_harness, text

# Records, for each invocation, what the hook found at transcript_path.
PROBE = """
import json, os, sys
p = json.load(sys.stdin)
path = p["transcript_path"]
lines = [json.loads(l) for l in open(path)]
texts = [b["text"] for l in lines if l["type"] == "assistant"
         for b in l["message"]["content"] if b["type"] == "text"]
with open(sys.argv[1], "a") as f:
    f.write(json.dumps({"event": p["hook_event_name"], "ino": os.stat(path).st_ino,
                        "lines": len(lines), "last": texts[-1] if texts else None}) + "\\n")
"""

EVENTS = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]


def _encoded(lines: list[dict[str, Any]]) -> str:
    # Claude Code's layout: compact JSON, UTF-8 raw, one object per line.
    return "".join(
        json.dumps(line, separators=(",", ":"), ensure_ascii=False, default=str) + "\n"
        for line in lines
    )


async def test_a_multi_turn_session_appends_and_ends_equal_to_a_full_projection(
    tmp_path: Path,
) -> None:
    script = {
        "responses": [
            [text("Turn one."), bash("echo one")],
            [text("One done.")],
            [bash("echo two"), bash("echo three")],
            [text("Two done.")],
            [text("Three: nothing to run.")],
        ]
    }
    harness = make_harness(tmp_path, script)
    log = tmp_path / "probe.jsonl"
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    handler = {"type": "command", "command": f"{sys.executable} {probe} {log}"}
    settings_file = harness.project / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text(json.dumps({"hooks": {e: [{"hooks": [handler]}] for e in EVENTS}}))
    (tmp_path / "home").mkdir()
    catalog = load_catalog(
        harness.project,
        home=tmp_path / "home",
        managed_path=tmp_path / "none.json",
        env={},
        discover_installed_plugins=False,
    )
    assert catalog.ok, catalog.diagnostics
    plugin = claude_hooks_plugin(catalog, transcript_dir=tmp_path / "transcripts")
    harness.ctx.plugin(plugin)
    harness.ctx.plugin(subagent_plugin)
    agent = harness.agent()
    for prompt in ("first", "second", "third"):
        agent.send(prompt)
        await agent.run_turn()
    await agent.close("other")

    path = plugin.transcript_path(agent)
    full = transcript_lines(
        agent.events,
        session_id=agent.session_id,
        cwd=agent.workspace.cwd,
        permission_mode=plugin.permission_mode,
    )
    assert path.read_text(encoding="utf-8") == _encoded(full)
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert [s["event"] for s in seen].count("Stop") == 3
    # One file all along (appended to, never replaced), growing, and current for each hook.
    assert {s["ino"] for s in seen} == {os.stat(path).st_ino}
    counts = [s["lines"] for s in seen]
    assert counts == sorted(counts)
    assert counts[0] == 0  # UserPromptSubmit runs before its prompt is logged
    assert counts[-1] == len(full)
    stops = [s["last"] for s in seen if s["event"] == "Stop"]
    assert stops == ["One done.", "Two done.", "Three: nothing to run."]


def _event(kind: int, n: int) -> SessionEvent:
    if kind == 0:
        return UserMessageEvent(content=f"prompt {n}")
    if kind == 1:
        return AssistantMessageEvent(
            text=f"reply {n}", tool_calls=(ToolUse(id=f"t{n}", name="Bash", arguments={}),)
        )
    if kind == 2:
        return ToolResultEvent(token=f"k{n}", tool_use_id=f"t{n}", content=f"out {n}")
    if kind == 3:
        return ContextMessageEvent(source="plugin:x", text=f"context {n}")
    return AssistantMessageEvent(text="")  # no lines at all


@settings(max_examples=40, deadline=None)
@given(
    kinds=st.lists(st.integers(0, 4), max_size=30),
    cuts=st.lists(st.integers(0, 30), max_size=8),
)
def test_every_sync_leaves_the_file_equal_to_the_projection_of_the_prefix(
    tmp_path_factory: Any, kinds: list[int], cuts: list[int]
) -> None:
    path = tmp_path_factory.mktemp("t") / "s.jsonl"
    events = [_event(k, n) for n, k in enumerate(kinds)]
    writer = TranscriptWriter(path, session_id="s", permission_mode="default")
    cwd = Path("/project")
    for end in [*sorted(c for c in cuts if c <= len(events)), len(events)]:
        writer.sync(events[:end], cwd=cwd)
        full = transcript_lines(events[:end], session_id="s", cwd=cwd, permission_mode="default")
        assert path.read_text(encoding="utf-8") == _encoded(full)


def test_a_file_changed_behind_its_back_is_rewritten_whole(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    events: list[SessionEvent] = [UserMessageEvent(content="a"), AssistantMessageEvent(text="b")]
    writer = TranscriptWriter(path, session_id="s", permission_mode="default")
    cwd = Path("/project")
    writer.sync(events[:1], cwd=cwd)
    path.write_text("tampered\n")
    assert writer.sync(events, cwd=cwd) == 2  # both lines, from the top
    full = transcript_lines(events, session_id="s", cwd=cwd, permission_mode="default")
    assert path.read_text(encoding="utf-8") == _encoded(full)
    path.unlink()
    writer.sync(events, cwd=cwd)
    assert path.read_text(encoding="utf-8") == _encoded(full)


def test_each_line_keeps_the_directory_of_its_moment(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    writer = TranscriptWriter(path, session_id="s", permission_mode="default")
    first = UserMessageEvent(content="a")
    writer.sync([first], cwd=Path("/project"))
    writer.sync([first, AssistantMessageEvent(text="b")], cwd=Path("/project/sub"))
    cwds = [json.loads(line)["cwd"] for line in path.read_text().splitlines()]
    assert cwds == ["/project", "/project/sub"]


@settings(max_examples=40, deadline=None)
@given(kinds=st.lists(st.integers(0, 4), max_size=30), cut=st.integers(0, 30))
def test_a_resumed_writer_takes_up_the_file_where_it_ends(
    tmp_path_factory: Any, kinds: list[int], cut: int
) -> None:
    """A new writer (a resumed session) appends to a current file instead of rewriting it."""
    path = tmp_path_factory.mktemp("t") / "s.jsonl"
    events = [_event(k, n) for n, k in enumerate(kinds)]
    cwd = Path("/project")
    cut = min(cut, len(events))
    TranscriptWriter(path, session_id="s", permission_mode="default").sync(events[:cut], cwd=cwd)
    before = transcript_lines(events[:cut], session_id="s", cwd=cwd, permission_mode="default")
    inode = os.stat(path).st_ino
    resumed = TranscriptWriter(path, session_id="s", permission_mode="default")
    written = resumed.sync(events, cwd=cwd)
    full = transcript_lines(events, session_id="s", cwd=cwd, permission_mode="default")
    assert path.read_text(encoding="utf-8") == _encoded(full)
    if before:  # a non-empty file was taken up: appended to, only the new lines written
        assert os.stat(path).st_ino == inode
        assert written == len(full) - len(before)


def test_a_file_of_another_history_is_rewritten_whole(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    cwd = Path("/project")
    mine = [UserMessageEvent(content="a"), AssistantMessageEvent(text="b")]
    other = [UserMessageEvent(content="x")]
    TranscriptWriter(path, session_id="s", permission_mode="default").sync(other, cwd=cwd)
    resumed = TranscriptWriter(path, session_id="s", permission_mode="default")
    assert resumed.sync(mine, cwd=cwd) == 2
    full = transcript_lines(mine, session_id="s", cwd=cwd, permission_mode="default")
    assert path.read_text(encoding="utf-8") == _encoded(full)
