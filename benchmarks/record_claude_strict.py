"""Record what the real Claude Code shows where the conformance corpus has no case (issue 28).

usage: python benchmarks/record_claude_strict.py CLAUDE OUT.json [CASE ...]

Runs ``CLAUDE -p`` (2.1.332) once per case against the loopback Anthropic mock of
``record_claude_bounds.py``, headless, permissions skipped, a private ``CLAUDE_CONFIG_DIR``
and ``HOME``, with the corpus's ``record_hook.py`` on the events each case names and, where
a case says so, more handlers answering with fixed output. Keeps, per case: every request's
messages after the first user turn (the vendor's system prompt and tool list left out), the
hook payloads, the stream-json lines that are not assistant/user messages, and the files
Claude Code saved under ``tool-results``. Never run by ``make test``; its output is the
fixture ``tests/fixtures/claude_strict.json``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_claude_bounds import Mock, _short, _substitute, _tool

_DONE = [{"type": "text", "text": "done"}]
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
                _tool("toolu_r1", "Read", file_path="${PROJECT_DIR}/f.txt"),
                _tool("toolu_r2", "Read", file_path="${PROJECT_DIR}/g.txt"),
            ],
            [
                _tool(
                    "toolu_e1",
                    "Edit",
                    file_path="${PROJECT_DIR}/f.txt",
                    old_string="beta",
                    new_string="BETA",
                )
            ],
            [
                _tool(
                    "toolu_e2",
                    "Edit",
                    file_path="${PROJECT_DIR}/g.txt",
                    old_string="e",
                    new_string="E",
                    replace_all=True,
                )
            ],
            [_tool("toolu_w1", "Write", file_path="${PROJECT_DIR}/f.txt", content="new\ntext\n")],
            [
                _tool("toolu_g1", "Glob", pattern="**/*.txt"),
                _tool("toolu_g2", "Grep", pattern="x=", path="${PROJECT_DIR}"),
                _tool("toolu_g3", "Grep", pattern="new", output_mode="content", path="f.txt"),
            ],
            [
                _tool("toolu_b1", "Bash", command="printf 'a\\n\\nb\\n\\n'", description="t"),
                _tool("toolu_b2", "Bash", command="printf ''", description="empty"),
            ],
            [_tool("toolu_r3", "Read", file_path="${PROJECT_DIR}/f.txt", offset=2, limit=1)],
            _DONE,
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
        "replies": [[_tool("toolu_b1", "Bash", command="echo hi", description="t")], _DONE],
    },
    "hook-output-big": {
        "hooks": {
            "SessionStart": [context("SessionStart", "S" * 20_000)],
            "PostToolUse": [context("PostToolUse", "P" * 12_000)],
            "UserPromptSubmit": [answer("U" * 10_500)],
        },
        "replies": [[_tool("toolu_b1", "Bash", command="echo hi", description="t")], _DONE],
    },
    "stop-cap": {
        "hooks": {"Stop": [answer({"decision": "block", "reason": "STOP-AGAIN"})]},
        "replies": [_DONE],
    },
    "task-tools": {
        "env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"},
        "hooks": {"TaskCreated": [answer(stderr="NO-TASK-PLEASE", code=2)]},
        "replies": [
            [_tool("toolu_t1", "TaskCreate", subject="Sub", description="Desc")],
            [_tool("toolu_t2", "TaskUpdate", taskId="99", status="completed")],
            [_tool("toolu_t3", "TaskGet", taskId="99")],
            _DONE,
        ],
    },
}


def _messages(bodies: list[dict[str, Any]]) -> list[Any]:
    """Each request's messages (the first user message's vendor reminders kept whole)."""
    return [{"messages": b.get("messages", [])} for b in bodies]


def record(claude: str, name: str, case: dict[str, Any], mock: Mock, hook: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"rec-{name}-") as tmp:
        root = Path(tmp)
        project, config, home = root / "project", root / "config", root / "home"
        for d in (project, config, home):
            d.mkdir()
        for rel, text in case.get("files", {}).items():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            (project / rel).write_text(text)
        log = root / "hooks.jsonl"
        hooks: dict[str, Any] = {}
        for event in RECORDED:
            handlers = [{"type": "command", "command": f"python3 {hook} {event}"}]
            for command in case.get("hooks", {}).get(event, []):
                handlers.append({"type": "command", "command": command})
            hooks[event] = [{"matcher": "*", "hooks": handlers}]
        settings = root / "settings.json"
        settings.write_text(json.dumps({"hooks": hooks}))
        with mock.lock:
            mock.replies = _substitute(case["replies"], str(project))
            mock.bodies = []
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        env |= {
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": mock.url,
            "ANTHROPIC_API_KEY": "sk-rec-loopback",
            "CLAUDE_CONFIG_DIR": str(config),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "IS_SANDBOX": "1",
            "CASE_HOOK_LOG": str(log),
            **case.get("env", {}),
        }
        argv = [claude, "-p", "go", "--output-format", "stream-json", "--verbose"]
        argv += ["--settings", str(settings), "--dangerously-skip-permissions"]
        done = subprocess.run(
            argv, cwd=project, env=env, capture_output=True, text=True, timeout=300
        )
        lines = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
        stream = [x for x in lines if x.get("type") not in ("assistant", "user", "stream_event")]
        payloads = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
        files = {}
        for path in sorted(config.rglob("tool-results/*")):
            if path.is_file():
                files[path.name] = _short(path.read_text(errors="replace"))
        text = json.dumps(
            {
                "exit_code": done.returncode,
                "stderr": done.stderr[-2000:],
                "requests": _short(_messages(mock.bodies)),
                "hooks": _short([{"event": p["event"], "payload": p["payload"]} for p in payloads]),
                "stream": _short(stream),
                "tool_results_files": files,
            }
        )
        text = text.replace(str(project), "${PROJECT_DIR}").replace(str(config), "${CONFIG_DIR}")
        return dict(json.loads(text.replace(str(home), "${HOME}").replace(str(root), "${RUN_DIR}")))


def main() -> int:
    claude, out = sys.argv[1], Path(sys.argv[2])
    only = sys.argv[3:]
    hook = Path(os.environ.get("RECORD_HOOK", "/work/shared/conformance/record_hook.py"))
    mock = Mock()
    recorded = json.loads(out.read_text()) if out.exists() and only else {}
    version = subprocess.run([claude, "--version"], capture_output=True, text=True).stdout.strip()
    recorded["cli_version"] = version
    for name, case in CASES.items():
        if only and name not in only:
            continue
        print("recording", name, flush=True)
        recorded[name] = {"case": _short(case, 300, 100), **record(claude, name, case, mock, hook)}
        out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
