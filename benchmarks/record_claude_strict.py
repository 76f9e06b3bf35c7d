"""Record what the real Claude Code shows where the conformance corpus has no case (issue 28).

usage: python benchmarks/record_claude_strict.py CLAUDE OUT.json [CASE ...]

Runs ``CLAUDE -p`` (2.1.332) once per case against the loopback Anthropic mock of
``_claude_recording``, headless, permissions skipped, a private ``CLAUDE_CONFIG_DIR``
and ``HOME``, with the corpus's ``record_hook.py`` on the events each case names and, where
a case says so, more handlers answering with fixed output. Keeps, per case: every request's
messages after the first user turn (the vendor's system prompt and tool list left out), the
hook payloads, the stream-json lines that are not assistant/user messages, and the files
Claude Code saved under ``tool-results``. Never run by ``make test``; its output is the
fixture ``tests/fixtures/claude_strict.json``.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from _claude_recording import (
    DONE,
    Place,
    RecordingMock,
    claude_env,
    record_cases,
    record_hook,
    run_claude,
    short,
    substitute,
    tool_use,
)

RECORDED = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Stop",
    "TaskCreated",
    "TaskCompleted",
)


def answer(stdout: Any = None, stderr: str = "", code: int = 0) -> str:
    """A hook command that answers with ``stdout`` (JSON unless a string), ``stderr``, ``code``."""
    out = stdout if isinstance(stdout, str) or stdout is None else json.dumps(stdout)
    body = (
        "import sys; sys.stdin.read(); "
        f"sys.stdout.write({out or ''!r}); sys.stderr.write({stderr!r}); sys.exit({code})"
    )
    return "python3 -c " + shlex.quote(body)


def context(event: str, text: str) -> str:
    return answer({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})


CASES: dict[str, dict[str, Any]] = {
    "file-tools": {
        "files": {"f.txt": "alpha\nbeta\ngamma\n", "g.txt": "no newline here", "d/h.py": "x=1\n"},
        "replies": [
            [
                tool_use("toolu_r1", "Read", file_path="${PROJECT_DIR}/f.txt"),
                tool_use("toolu_r2", "Read", file_path="${PROJECT_DIR}/g.txt"),
            ],
            [
                tool_use(
                    "toolu_e1",
                    "Edit",
                    file_path="${PROJECT_DIR}/f.txt",
                    old_string="beta",
                    new_string="BETA",
                )
            ],
            [
                tool_use(
                    "toolu_e2",
                    "Edit",
                    file_path="${PROJECT_DIR}/g.txt",
                    old_string="e",
                    new_string="E",
                    replace_all=True,
                )
            ],
            [
                tool_use(
                    "toolu_w1", "Write", file_path="${PROJECT_DIR}/f.txt", content="new\ntext\n"
                )
            ],
            [
                tool_use("toolu_g1", "Glob", pattern="**/*.txt"),
                tool_use("toolu_g2", "Grep", pattern="x=", path="${PROJECT_DIR}"),
                tool_use("toolu_g3", "Grep", pattern="new", output_mode="content", path="f.txt"),
            ],
            [
                tool_use("toolu_b1", "Bash", command="printf 'a\\n\\nb\\n\\n'", description="t"),
                tool_use("toolu_b2", "Bash", command="printf ''", description="empty"),
            ],
            [tool_use("toolu_r3", "Read", file_path="${PROJECT_DIR}/f.txt", offset=2, limit=1)],
            DONE,
        ],
    },
    "context-joined": {
        "hooks": {
            "SessionStart": [context("SessionStart", "SS-ONE"), context("SessionStart", "SS-TWO")],
            "UserPromptSubmit": [
                context("UserPromptSubmit", "UPS-ONE"),
                context("UserPromptSubmit", "UPS-TWO"),
            ],
            "PreToolUse": [context("PreToolUse", "PRE-ONE"), context("PreToolUse", "PRE-TWO")],
            "PostToolUse": [context("PostToolUse", "POST-ONE"), context("PostToolUse", "POST-TWO")],
            "PostToolBatch": [
                context("PostToolBatch", "BATCH-ONE"),
                context("PostToolBatch", "BATCH-TWO"),
            ],
        },
        "replies": [[tool_use("toolu_b1", "Bash", command="echo hi", description="t")], DONE],
    },
    "context-joined-two-calls": {
        "hooks": {
            "PreToolUse": [context("PreToolUse", "PRE-ONE"), context("PreToolUse", "PRE-TWO")],
            "PostToolUse": [context("PostToolUse", "POST-ONE"), context("PostToolUse", "POST-TWO")],
            "PostToolBatch": [context("PostToolBatch", "BATCH-ONE")],
        },
        "replies": [
            [
                tool_use("toolu_b1", "Bash", command="echo one", description="t"),
                tool_use("toolu_b2", "Bash", command="echo two", description="t"),
            ],
            DONE,
        ],
    },
    "hook-output-big": {
        "hooks": {
            "SessionStart": [context("SessionStart", "S" * 20_000)],
            "PostToolUse": [context("PostToolUse", "P" * 12_000)],
            "UserPromptSubmit": [answer("U" * 10_500)],
        },
        "replies": [[tool_use("toolu_b1", "Bash", command="echo hi", description="t")], DONE],
    },
    "stop-cap": {
        "hooks": {"Stop": [answer({"decision": "block", "reason": "STOP-AGAIN"})]},
        "replies": [DONE],
    },
    "task-tools": {
        "env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"},
        "hooks": {"TaskCreated": [answer(stderr="NO-TASK-PLEASE", code=2)]},
        "replies": [
            [tool_use("toolu_t1", "TaskCreate", subject="Sub", description="Desc")],
            [tool_use("toolu_t2", "TaskUpdate", taskId="99", status="completed")],
            [tool_use("toolu_t3", "TaskGet", taskId="99")],
            DONE,
        ],
    },
}


def _messages(bodies: list[dict[str, Any]]) -> list[Any]:
    """Each request's messages (the first user message's vendor reminders kept whole)."""
    return [{"messages": b.get("messages", [])} for b in bodies]


def record(claude: str, name: str, case: dict[str, Any], mock: RecordingMock) -> dict[str, Any]:
    hook = record_hook()
    place = Place.make(name, files=case.get("files", {}))
    log = place.root / "hooks.jsonl"
    hooks: dict[str, Any] = {}
    for event in RECORDED:
        handlers = [{"type": "command", "command": f"python3 {hook} {event}"}]
        for command in case.get("hooks", {}).get(event, []):
            handlers.append({"type": "command", "command": command})
        hooks[event] = [{"matcher": "*", "hooks": handlers}]
    settings = place.root / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    mock.load(substitute(case["replies"], str(place.project)))
    env = claude_env(mock.url, place, CASE_HOOK_LOG=str(log), **case.get("env", {}))
    args = ["-p", "go", "--output-format", "stream-json", "--verbose"]
    args += ["--settings", str(settings), "--dangerously-skip-permissions"]
    done = run_claude(claude, args, place, env)
    lines = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
    stream = [x for x in lines if x.get("type") not in ("assistant", "user", "stream_event")]
    payloads = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    files = {}
    for path in sorted(place.config.rglob("tool-results/*")):
        if path.is_file():
            files[path.name] = short(path.read_text(errors="replace"))
    text = json.dumps(
        {
            "exit_code": done.returncode,
            "stderr": done.stderr[-2000:],
            "requests": short(_messages(mock.bodies)),
            "hooks": short([{"event": p["event"], "payload": p["payload"]} for p in payloads]),
            "stream": short(stream),
            "tool_results_files": files,
        }
    )
    return {"case": short(case, 300, 100), **json.loads(place.placeholders(text))}


if __name__ == "__main__":
    raise SystemExit(record_cases(__doc__ or "", CASES, record, RecordingMock))
