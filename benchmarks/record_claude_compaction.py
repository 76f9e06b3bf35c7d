"""Record the requests the real Claude Code sends when it compacts (issue 28).

usage: python benchmarks/record_claude_compaction.py CLAUDE OUT.json [CASE ...]

Per case (one today), two headless runs in one session against the loopback mock of
``_claude_recording`` (2.1.332, permissions skipped, a private ``HOME``/``CLAUDE_CONFIG_DIR``,
the corpus's ``record_hook.py`` on the events of the corpus case ``compact-bad-summary``): ``-p
"Please run echo hi"``, then ``-p /compact --continue``. The model runs ``echo hi``, answers
``Done: printed hi.``, then ``Done again.``, as in the corpus case (the compaction request,
forked from the last main-loop request, gets ``Done: printed hi.``: no ``<summary>``, so it is
asked again). Kept: every request offering Bash (the main loop's and the compaction's) with its
messages (a ``system``-role one, the vendor's context, as ``short`` keeps it), its ``system``
text's length and tool count, and the hook payloads, the run's paths as placeholders. Never run
by ``make test``; its output is the fixture ``tests/fixtures/claude_compaction.json``.
"""

from __future__ import annotations

import json
from typing import Any

from _claude_recording import (
    Place,
    RecordingMock,
    claude_env,
    record_cases,
    record_hook,
    run_claude,
    short,
    tool_use,
)

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "MessageDisplay",
    "PreToolUse",
    "PostToolUse",
    "PostToolBatch",
    "Stop",
    "SessionEnd",
    "PreCompact",
    "PostCompact",
    "SubagentStop",
)
SUMMARY = "<summary>CASE-SUMMARY of the conversation</summary>"


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


RUN = [
    [
        *_text("I'll run it."),
        tool_use("toolu_r1", "Bash", command="echo hi", description="Print hi"),
    ],
    _text("Done: printed hi."),
]
CASES: dict[str, list[list[dict[str, Any]]]] = {
    "compact-bad-summary": [*RUN, _text("Done again.")],
}


class Mock(RecordingMock):
    """Side requests (a title) get the case's summary, as the corpus's default reply."""

    def side(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        return _text(SUMMARY)


def _request(body: dict[str, Any]) -> dict[str, Any]:
    system = body.get("system")
    text = system if isinstance(system, str) else json.dumps(system)
    return {
        "system_chars": len(text or ""),
        "tools": len(body.get("tools") or []),
        "messages": [
            short(m, 1_000, 200) if m.get("role") == "system" else m
            for m in body.get("messages", [])
        ],
    }


def record(claude: str, name: str, replies: list[list[dict[str, Any]]], mock: Mock) -> Any:
    place = Place.make(name)
    log = place.root / "hooks.jsonl"
    command = f"python3 {record_hook()} "
    hooks = {
        e: [{"matcher": "*", "hooks": [{"type": "command", "command": command + e}]}]
        for e in EVENTS
    }
    settings = place.root / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    mock.load(replies)
    env = claude_env(mock.url, place, CASE_HOOK_LOG=str(log))
    common = ["--output-format", "stream-json", "--verbose", "--settings", str(settings)]
    common += ["--dangerously-skip-permissions"]
    exits = []
    for prompt, more in (("Please run echo hi", []), ("/compact", ["--continue"])):
        done = run_claude(claude, ["-p", prompt, *common, *more], place, env)
        exits.append(done.returncode)
    payloads = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    kept = {
        "exit_codes": exits,
        "requests": [_request(b) for b in mock.bodies],
        "hooks": [{"event": p["event"], "payload": p["payload"]} for p in payloads],
    }
    return json.loads(place.placeholders(json.dumps(kept)))


if __name__ == "__main__":
    raise SystemExit(record_cases(__doc__ or "", CASES, record, Mock))
