"""Hook output reaching the model or the user is capped as Claude Code caps it (10,000 chars).

A real hook process answers at four events with far more than that (50,000 characters
of plain stdout, of ``additionalContext`` and of ``systemMessage``; 32 MiB of stderr
with exit 2 on PreToolUse and on Stop): every text the model is sent holds at most
10,000 characters of any one of them, each cut is said with the true size (context and
stdout: saved to a file, previewed, as 2.1.332 does), the turn completes, and the session
log stays small.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from dsh.hooks.claude.answers._caps import HOOK_OUTPUT_CAP, cap_text
from dsh.session import NoticeEvent, TurnEndReason
from tests.agent.support import bash, make_harness, replies, text
from tests.hooks_claude.bridge_support import mount_hooks

SCRIPT = Path(__file__).parent / "scripts" / "big_hook.py"
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "Stop")
RUN = re.compile(r"([SUMPT])\1{99,}")


def sizes(paths: Iterable[str]) -> set[int]:
    return {os.path.getsize(path) for path in paths}


def test_cap_text_keeps_short_text_and_says_what_it_cut() -> None:
    assert cap_text("x" * HOOK_OUTPUT_CAP) == "x" * HOOK_OUTPUT_CAP
    cut = cap_text("x" * 12_345)
    assert cut.startswith("x" * HOOK_OUTPUT_CAP + "\n")
    assert cut.endswith("[hook output truncated: 12,345 characters, the first 10,000 shown]")
    assert "more than 10" in cap_text("x" * 10, more=True)


async def test_huge_hook_output_reaches_the_model_capped_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = make_harness(
        tmp_path, replies([text("Running."), bash("echo hi")], [text("Done.")], [text("Really.")])
    )
    hooks = {
        event: [{"hooks": [{"type": "command", "command": f"{sys.executable} {SCRIPT} {event}"}]}]
        for event in EVENTS
    }
    rig = mount_hooks(tmp_path, monkeypatch, harness, hooks, None)

    agent, result = await rig.run("Please run echo hi")

    assert result.end_reason == TurnEndReason.COMPLETED
    requests = json.dumps(harness.requests())
    runs = {(m.group(1), len(m.group(0))) for m in RUN.finditer(requests)}
    # Each text is cut at 10,000: plain stdout, additionalContext, the tool's block, Stop's.
    assert {letter for letter, _ in runs} == {"S", "U", "P", "T"}
    assert max(size for _, size in runs) == HOOK_OUTPUT_CAP
    # The 50,000 characters of context and stdout are saved whole and previewed, as 2.1.332
    # does (tests/fixtures/claude_strict.json, `hook-output-big`).
    saved = re.findall(r"Output too large \(48.8KB\)\. Full output saved to: (\S+?)\\n", requests)
    assert saved
    assert sizes(set(saved)) == {50_000}
    assert "truncated: more than 1,048,576 characters" in requests  # stderr's capture cut
    events = harness.store.load(agent.session_id)
    notices = [e.text for e in events if isinstance(e, NoticeEvent)]
    shown = [n for n in notices if "MMMM" in n]
    assert shown
    assert all(len(n) < HOOK_OUTPUT_CAP + 200 for n in shown)  # the systemMessage, capped
    log = harness.store.log_path(agent.session_id)
    assert log.stat().st_size < 4 << 20  # 64 MiB of stderr written, a few MiB logged at most
