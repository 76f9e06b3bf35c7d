"""Record what the real Claude Code does with large tool output and long errors (issue 27).

usage: python benchmarks/record_claude_bounds.py CLAUDE OUT.json

Runs ``CLAUDE -p`` (2.1.332: ``make bench-tools`` or an npm install anywhere) once per
case against a loopback Anthropic mock, headless, permissions skipped, a private
``CLAUDE_CONFIG_DIR``, with a recording hook on PreToolUse, PostToolUse and
PostToolUseFailure. For each case it keeps what the model was sent back (every
``tool_result`` block and ``role: system`` text after the first request), the hook
payloads (``tool_response`` / ``error``), and the files Claude Code wrote under its
``tool-results`` folders. Long texts are kept as ``{"length", "head", "tail"}`` so the
fixture stays small. Never run by ``make test``; its output is the fixture
``tests/fixtures/claude_bounds.json``.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
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

LINES = (
    "import sys; sys.{stream}.write("
    "''.join(f'line {{i:06d}} ' + 'x' * 88 + '\\n' for i in range({n})))"
)


def _py(stream: str, n: int, code: int = 0) -> str:
    body = LINES.format(stream=stream, n=n) + f"; sys.exit({code})"
    return "python3 -c " + shlex.quote(body)


def _bash(ident: str, command: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": ident,
        "name": "Bash",
        "input": {"command": command, "description": "case step", **extra},
    }


_BIG_STDERR_HOOK = (
    "python3 -c \"import sys; sys.stdin.read(); sys.stderr.write('E' * 100000); sys.exit(2)\""
)

CASES: dict[str, dict[str, Any]] = {
    "bash-stdout-100k": {"replies": [[_bash("toolu_a", _py("stdout", 1000))], DONE]},
    "bash-stderr-100k": {"replies": [[_bash("toolu_a", _py("stderr", 1000))], DONE]},
    "bash-fail-stdout-100k": {"replies": [[_bash("toolu_a", _py("stdout", 1000, 1))], DONE]},
    "bash-fail-stderr-100k": {"replies": [[_bash("toolu_a", _py("stderr", 1000, 3))], DONE]},
    "bash-10mb": {"replies": [[_bash("toolu_a", _py("stdout", 100_000))], DONE]},
    "bash-limit-env": {
        "env": {"BASH_MAX_OUTPUT_LENGTH": "50000"},
        "replies": [
            [_bash("toolu_a", _py("stdout", 400)), _bash("toolu_b", _py("stdout", 1000))],
            DONE,
        ],
    },
    "bash-limit-env-over": {
        "env": {"BASH_MAX_OUTPUT_LENGTH": "500000"},
        "replies": [[_bash("toolu_a", _py("stdout", 1000))], DONE],
    },
    "bash-limit-env-clamp": {
        "env": {"BASH_MAX_OUTPUT_LENGTH": "500000"},
        "replies": [[_bash("toolu_a", _py("stdout", 2000))], DONE],
    },
    "bash-just-over": {
        "replies": [
            [_bash("toolu_a", _py("stdout", 300)), _bash("toolu_b", _py("stdout", 301))],
            DONE,
        ]
    },
    "bash-background": {
        "replies": [
            [_bash("toolu_a", _py("stdout", 1000), run_in_background=True)],
            [_bash("toolu_b", "sleep 3")],
            DONE,
        ]
    },
    "read-missing": {
        "replies": [
            [tool_use("toolu_a", "Read", file_path="/nonexistent/" + "d" * 200 + "/f.txt")],
            DONE,
        ]
    },
    "edit-error": {
        "files": {"f.txt": "hello\n"},
        "replies": [
            [tool_use("toolu_r", "Read", file_path="${PROJECT_DIR}/f.txt")],
            [
                tool_use(
                    "toolu_a",
                    "Edit",
                    file_path="${PROJECT_DIR}/f.txt",
                    old_string="Q" * 100_000,
                    new_string="x",
                )
            ],
            DONE,
        ],
    },
    "pretool-exit2-100k": {
        "hook": {"PreToolUse": _BIG_STDERR_HOOK},
        "replies": [[_bash("toolu_a", "echo hi")], DONE],
    },
    "posttool-exit2-100k": {
        "hook": {"PostToolUse": _BIG_STDERR_HOOK},
        "replies": [[_bash("toolu_a", "echo hi")], DONE],
    },
}


def _stderr_hook(size: int) -> str:
    body = f"import sys; sys.stdin.read(); sys.stderr.write('E' * {size}); sys.exit(2)"
    return f'python3 -c "{body}"'


# Where 2.1.332 starts to save a hook's blocking error (the 100,000 case above is saved).
for _size in (9_000, 11_000, 30_000, 60_000):
    CASES[f"pretool-exit2-{_size // 1000}k"] = {
        "hook": {"PreToolUse": _stderr_hook(_size)},
        "replies": [[_bash("toolu_a", "echo hi")], DONE],
    }


def _model_view(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per request after the first: its tool results and system-role texts (the last message on)."""
    view = []
    for body in bodies[1:]:
        seen: list[dict[str, Any]] = []
        for message in body["messages"][-3:]:
            content = message.get("content")
            if message.get("role") == "system":
                if "# Environment" not in json.dumps(content)[:200]:  # the vendor's prompt
                    seen.append({"system": content})
            elif isinstance(content, list):
                for block in content:
                    if block.get("type") == "tool_result":
                        seen.append({"tool_result": block})
                    elif block.get("type") == "text" and message.get("role") == "user":
                        seen.append({"user_text": block["text"]})
        view.append({"messages": len(body["messages"]), "seen": seen})
    return view


def record(claude: str, name: str, case: dict[str, Any], mock: RecordingMock) -> dict[str, Any]:
    hook_script = record_hook()
    place = Place.make(name, files=case.get("files", {}))
    log = place.root / "hooks.jsonl"
    hooks: dict[str, Any] = {}
    for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        command = case.get("hook", {}).get(event, f"python3 {hook_script} {event}")
        hooks[event] = [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]
    settings = place.root / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    mock.load(substitute(case["replies"], str(place.project)))
    env = claude_env(mock.url, place, CASE_HOOK_LOG=str(log), **case.get("env", {}))
    args = ["-p", "go", "--output-format", "stream-json", "--verbose", "--settings"]
    args += [str(settings), "--dangerously-skip-permissions", "--model", "claude-rec"]
    done = run_claude(claude, args, place, env)
    if raw_dir := os.environ.get("RECORD_RAW_DIR"):
        Path(raw_dir, f"{name}.json").write_text(json.dumps(mock.bodies))
    payloads = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    files = {}
    for path in sorted(place.config.rglob("tool-results/*")):
        if path.is_file():
            data = path.read_bytes()
            files[str(path.relative_to(place.config))] = {
                "bytes": len(data),
                "mode": oct(path.stat().st_mode & 0o777),
                "dir_mode": oct(path.parent.stat().st_mode & 0o777),
                "text": short(data.decode("utf-8", "replace")),
            }
    return {
        "case": short(case, 300, 100),
        "exit_code": done.returncode,
        "stderr": done.stderr[-2000:],
        "config_dir": str(place.config),
        "project_dir": str(place.project),
        "model_view": short(_model_view(mock.bodies)),
        "hooks": short([{"event": p["event"], "payload": p["payload"]} for p in payloads]),
        "tool_results_files": files,
    }


if __name__ == "__main__":
    raise SystemExit(record_cases(__doc__ or "", CASES, record, RecordingMock))
