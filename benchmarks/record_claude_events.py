"""Record the events ConfigChange, FileChanged and Notification of the real Claude Code (issue 31).

usage: python benchmarks/record_claude_events.py CLAUDE OUT.json

Each case runs ``CLAUDE -p`` (2.1.332) against the loopback Anthropic mock (``_anthropic_mock``),
headless, a private ``CLAUDE_CONFIG_DIR``, with a recording hook (``record_claude_defer.HOOK``)
on the events below. ``file-changed``: SessionStart answers ``watchPaths: [<project>/watched.txt]``
and the model's Bash appends to that file, then sleeps 3 s (the watcher's time). ``config-skill``:
the model's Bash edits a skill file. ``notify-permission``: default permission mode, a Bash call
no rule allows (does headless ask, and notify?). Kept: the hook invocations (payloads without
ids), exit codes and the model-visible tool results. Never run by ``make test``; its output is
the fixture ``tests/fixtures/claude_events.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _anthropic_mock import AnthropicMock
from _claude_recording import Place, claude_env, run_claude
from _side_cases import Reply, SideCase
from record_claude_defer import HOOK, _model_view, _scrub

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
EVENTS += ["FileChanged", "ConfigChange", "Notification", "PermissionRequest", "CwdChanged"]


def _cases(project: Path) -> dict[str, dict[str, Any]]:
    watched = project / "watched.txt"
    watch = {"hookSpecificOutput": {"hookEventName": "SessionStart", "watchPaths": [str(watched)]}}
    return {
        "file-changed": {
            "bash": f"echo more >> {watched} && sleep 3",
            "answers": {"SessionStart": [watch]},
            "files": {"watched.txt": "first\n"},
            "flags": ["--dangerously-skip-permissions"],
        },
        "config-skill": {
            "bash": "printf -- '---\\nname: s\\n---\\nnew body\\n' > .claude/skills/s/SKILL.md"
            " && sleep 3",
            "answers": {},
            "files": {".claude/skills/s/SKILL.md": "---\nname: s\n---\nold body\n"},
            "flags": ["--dangerously-skip-permissions"],
        },
        "notify-permission": {
            "bash": "echo needs-permission > made.txt",
            "answers": {},
            "files": {},
            "flags": ["--permission-mode", "default"],
        },
    }


def run_case(claude: str, name: str) -> dict[str, Any]:
    place = Place.make(name, git=True)
    run, project = place.root, place.project
    case = _cases(project)[name]
    for rel, text in case["files"].items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    (run / "hook.py").write_text(HOOK)
    hooks = {
        e: [{"hooks": [{"type": "command", "command": f"python3 {run}/hook.py {e}"}]}]
        for e in EVENTS
    }
    settings = run / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    log = run / "hooks.jsonl"
    with AnthropicMock() as mock:
        replies = (Reply(bash=(case["bash"],)), Reply(text="done"))
        mock.load(SideCase(name=name, prompt="go", replies=replies, hooks={}))
        answers = json.dumps(case["answers"])
        env = claude_env(mock.url, place, CASE_LOG=str(log), CASE_ANSWERS=answers)
        args = ["-p", "go", "--settings", str(settings), *case["flags"]]
        done = run_claude(claude, args, place, env, timeout=180)
        view = _model_view(mock.bodies)
    hooks_seen = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    text = json.dumps(_scrub(hooks_seen)).replace(str(run), "${RUN_DIR}")
    return {
        "case": name,
        "bash": case["bash"].replace(str(run), "${RUN_DIR}"),
        "exit_code": done.returncode,
        "stdout": done.stdout[-1000:],
        "hooks": json.loads(text),
        "model_view": json.loads(json.dumps(view).replace(str(run), "${RUN_DIR}")),
    }


def main() -> None:
    claude, out = sys.argv[1], Path(sys.argv[2])
    cases = [
        run_case(claude, name) for name in ("file-changed", "config-skill", "notify-permission")
    ]
    out.write_text(json.dumps({"claude_version": "2.1.332", "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
