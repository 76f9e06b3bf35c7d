"""Record when and in what shape the real Claude Code adds ``bashEditDiff`` to Bash's
``tool_response`` (issue 28).

usage: python benchmarks/record_claude_bash_diff.py CLAUDE OUT.json [CASE ...]

Runs ``CLAUDE -p`` (2.1.332) once per case against the loopback mock (``_claude_recording``),
headless, in a fresh project (``git init`` unless the case says not), with the corpus's
``record_hook.py`` on PostToolUse; the model makes one Bash call (the case's command), then
answers ``done``. Kept per case: the files before, the command, the mode and environment,
and each PostToolUse's ``tool_response`` (the project's path as ``${PROJECT_DIR}``). Never
run by ``make test``; its output is the fixture ``tests/fixtures/claude_bash_diff.json``.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from _claude_recording import (
    DONE,
    Place,
    RecordingMock,
    claude_env,
    record_cases,
    record_hook,
    run_claude,
    tool_use,
)

_TEN = "".join(f"line {i}\n" for i in range(1, 11))
_HUNDRED = "".join(f"line {i}\n" for i in range(1, 101))
_BYPASS = ["--dangerously-skip-permissions"]
_DEFAULT_ALLOWED = ["--permission-mode", "default", "--allowedTools", "Bash"]

CASES: dict[str, dict[str, Any]] = {
    "modify": {"files": {"a.txt": _TEN}, "command": "sed -i 's/^line 5$/LINE 5/' a.txt"},
    "modify-two-hunks": {
        "files": {"a.txt": _HUNDRED},
        "command": "sed -i -e 's/^line 5$/LINE 5/' -e 's/^line 60$/LINE 60/' a.txt",
    },
    "create": {"files": {}, "command": "printf 'x\\ny\\n' > new.txt"},
    "create-no-newline": {"files": {}, "command": "printf 'x' > new.txt"},
    "create-empty": {"files": {}, "command": "touch empty.txt"},
    "delete": {"files": {"b.txt": "bye\n"}, "command": "rm b.txt"},
    "two-files": {
        "files": {"a.txt": "a\n", "sub/b.txt": "b\n"},
        "command": "echo A >> a.txt && echo B > sub/b.txt",
    },
    "append-no-newline": {"files": {"a.txt": "a"}, "command": "printf 'b\\n' >> a.txt"},
    "unchanged": {"files": {"a.txt": "a\n"}, "command": "cat a.txt"},
    "committed": {
        "files": {"a.txt": "a\n"},
        "commit": True,
        "command": "echo more >> a.txt",
    },
    "gitignored": {
        "files": {".gitignore": "ignored.txt\n"},
        "command": "echo x > ignored.txt",
    },
    "outside-project": {"files": {}, "command": "echo x > ../outside.txt"},
    "no-git": {"files": {"a.txt": "a\n"}, "git": False, "command": "echo b >> a.txt"},
    "default-mode": {
        "files": {"a.txt": "a\n"},
        "flags": _DEFAULT_ALLOWED,
        "command": "echo b >> a.txt",
    },
    "env-off": {
        "files": {"a.txt": "a\n"},
        "env": {"CLAUDE_CODE_BASH_EDIT_DIFF": "0"},
        "command": "echo b >> a.txt",
    },
    "env-on-default-mode": {
        "files": {"a.txt": "a\n"},
        "flags": _DEFAULT_ALLOWED,
        "env": {"CLAUDE_CODE_BASH_EDIT_DIFF": "1"},
        "command": "echo b >> a.txt",
    },
    "setting-off": {
        "files": {"a.txt": "a\n"},
        "settings": {"bashEditDiffEnabled": False},
        "command": "echo b >> a.txt",
    },
    "binary": {"files": {}, "command": "printf 'a\\000b' > bin.dat"},
    "many-files": {"files": {}, "command": "for i in $(seq 1 60); do echo $i > f$i.txt; done"},
    "long-line": {"files": {}, "command": "python3 -c \"print('x' * 5000)\" > long.txt"},
    "subdir-cwd": {"files": {"sub/a.txt": "a\n"}, "command": "cd sub && echo b >> a.txt"},
    "failed-command": {"files": {"a.txt": "a\n"}, "command": "echo b >> a.txt; exit 3"},
}


def record(claude: str, name: str, case: dict[str, Any], mock: RecordingMock) -> dict[str, Any]:
    place = Place.make(name, git=case.get("git", True), files=case["files"])
    if case.get("commit"):
        who = ["-c", "user.name=rec", "-c", "user.email=rec@localhost"]
        for args in (["add", "-A"], [*who, "commit", "-q", "-m", "init"]):
            subprocess.run(["git", *args], cwd=place.project, check=True, capture_output=True)
    log = place.root / "hooks.jsonl"
    hook = record_hook()
    hooks = {}
    for event in ("PostToolUse", "PostToolUseFailure"):
        command = f"python3 {hook} {event}"
        hooks[event] = [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]
    settings = place.root / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks, **case.get("settings", {})}))
    mock.load([[tool_use("toolu_b1", "Bash", command=case["command"], description="t")], DONE])
    env = claude_env(mock.url, place, CASE_HOOK_LOG=str(log), **case.get("env", {}))
    args = ["-p", "go", "--settings", str(settings), *case.get("flags", _BYPASS)]
    done = run_claude(claude, args, place, env, timeout=180)
    seen = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    kept = {
        "files": case["files"],
        "git": case.get("git", True),
        "commit": case.get("commit", False),
        "command": case["command"],
        "flags": case.get("flags", _BYPASS),
        "env": case.get("env", {}),
        "settings": case.get("settings", {}),
        "exit_code": done.returncode,
        "hooks": [
            {
                "event": s["event"],
                "permission_mode": s["payload"].get("permission_mode"),
                "tool_response": s["payload"].get("tool_response"),
                "error": s["payload"].get("error"),
            }
            for s in seen
        ],
    }
    return dict(json.loads(place.placeholders(json.dumps(kept))))


if __name__ == "__main__":
    raise SystemExit(record_cases(__doc__ or "", CASES, record, RecordingMock))
