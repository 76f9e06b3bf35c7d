"""Record what the real Claude Code does with worktrees: ``--worktree [NAME]``, the
WorktreeCreate and WorktreeRemove hooks, and a subagent's ``isolation: worktree``; and an
unknown ``subagent_type`` in a project with no custom agents (issue 31).

usage: python benchmarks/record_claude_worktree.py CLAUDE OUT.json

Runs ``CLAUDE -p`` (2.1.332) once per case in a fresh git repository (one commit, no remote)
against the loopback mock of ``_claude_recording``, headless, permissions
skipped, a private ``HOME``/``CLAUDE_CONFIG_DIR``, with
``tests/hooks_claude/scripts/record_hook.py``
on the case's events (``CASE_HOOK_RESPOND`` gives its answers). For each case it keeps the exit
code, stderr, the hook invocations (event, cwd, payload), what the model was sent back, and the
repository afterwards (``git worktree list``, branches, what is under ``.claude/worktrees``), with
the run's folders written as ``${PROJECT_DIR}`` / ``${RUN_DIR}``. Never run by ``make test``; its
output is the fixture ``tests/fixtures/claude_worktree.json``.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from _claude_recording import DONE as _DONE
from _claude_recording import Place, RecordingMock, claude_env, record_cases, sse
from _claude_recording import tool_use as _tool
from record_claude_bounds import _bash, _model_view

_HOOK = (
    Path(__file__).resolve().parent.parent / "tests" / "hooks_claude" / "scripts" / "record_hook.py"
)
_SHOW = "pwd; git branch --show-current; git rev-parse --git-common-dir"
_RECORDED = ("SessionStart", "PreToolUse", "SubagentStart", "SessionEnd", "Stop")
_AGENT = (
    "---\nname: wt-helper\ndescription: Helper that runs in its own worktree\ntools: Bash\n"
    "isolation: worktree\n---\nYou are a worktree helper.\n"
)
_DELEGATE = _tool(
    "toolu_ag",
    "Agent",
    description="Run pwd",
    subagent_type="wt-helper",
    prompt="SUBTASK: run pwd and report.",
    run_in_background=False,
)
_WRITE = "echo changed > new-file.txt"


def _judge(kind: str, prompt: str, model: str | None = None) -> dict[str, Any]:
    """A matcher group with one ``prompt`` or ``agent`` handler (naming ``model``, if given)."""
    handler = {"type": kind, "prompt": f"{prompt} $ARGUMENTS"}
    return {"hooks": [handler if model is None else {**handler, "model": model}]}


CASES: dict[str, dict[str, Any]] = {
    "flag-native": {
        "args": ["--worktree", "sample-wt"],
        "replies": [[_bash("toolu_a", _SHOW)], _DONE],
    },
    "flag-native-noname": {"args": ["--worktree"], "replies": [[_bash("toolu_a", _SHOW)], _DONE]},
    "flag-native-changed": {
        "args": ["--worktree", "sample-wt"],
        "replies": [[_bash("toolu_a", _WRITE)], _DONE],
    },
    "flag-native-remove-hook": {
        "args": ["--worktree", "sample-wt"],
        "events": ["WorktreeRemove"],
        "replies": [[_bash("toolu_a", _SHOW)], _DONE],
    },
    "flag-hook-exit2": {
        "args": ["--worktree", "sample-wt"],
        "events": ["WorktreeCreate", "WorktreeRemove"],
        "answers": {"WorktreeCreate": {"exit": 2, "stderr": "CASE-WT-REFUSED"}},
        "replies": [[_bash("toolu_a", _SHOW)], _DONE],
    },
    "flag-hook-exit1": {
        "args": ["--worktree", "sample-wt"],
        "events": ["WorktreeCreate"],
        "answers": {"WorktreeCreate": {"exit": 1, "stderr": "CASE-WT-FAILED"}},
        "replies": [[_bash("toolu_a", _SHOW)], _DONE],
    },
    "flag-hook-empty": {
        "args": ["--worktree", "sample-wt"],
        "events": ["WorktreeCreate"],
        "answers": {"WorktreeCreate": {"stdout": ""}},
        "replies": [[_bash("toolu_a", _SHOW)], _DONE],
    },
    "flag-hook-missing-dir": {
        "args": ["--worktree", "sample-wt"],
        "events": ["WorktreeCreate"],
        "answers": {"WorktreeCreate": {"stdout": "${RUN_DIR}/nowhere\n"}},
        "replies": [[_bash("toolu_a", _SHOW)], _DONE],
    },
    "flag-not-git": {
        "git": False,
        "args": ["--worktree", "sample-wt"],
        "replies": [[_bash("toolu_a", "pwd")], _DONE],
    },
    "flag-bad-name": {
        "args": ["--worktree", "../evil"],
        "replies": [[_bash("toolu_a", "pwd")], _DONE],
    },
    "subagent-native": {
        "files": {".claude/agents/wt-helper.md": _AGENT},
        "events": ["WorktreeRemove", "SubagentStop"],
        "replies": [[_DELEGATE], [_bash("toolu_c", "pwd")], _DONE],
        "sub_replies": [[_bash("toolu_b", _SHOW)], [{"type": "text", "text": "sub done"}]],
    },
    "subagent-native-changed": {
        "files": {".claude/agents/wt-helper.md": _AGENT},
        "events": ["WorktreeRemove", "SubagentStop"],
        "replies": [[_DELEGATE], [_bash("toolu_c", "pwd")], _DONE],
        "sub_replies": [[_bash("toolu_b", _WRITE)], [{"type": "text", "text": "sub done"}]],
    },
    "subagent-hook-exit2": {
        "files": {".claude/agents/wt-helper.md": _AGENT},
        "events": ["WorktreeCreate", "WorktreeRemove", "SubagentStop"],
        "answers": {"WorktreeCreate": {"exit": 2, "stderr": "CASE-WT-REFUSED"}},
        "replies": [[_DELEGATE], [_bash("toolu_c", "pwd")], _DONE],
        "sub_replies": [[_bash("toolu_b", _SHOW)], [{"type": "text", "text": "sub done"}]],
    },
    "prompt-hook-models": {
        "models": True,
        "hook_settings": {
            "PreToolUse": [
                _judge("prompt", "Default model?"),
                _judge("prompt", "Haiku?", "haiku"),
                _judge("prompt", "Sonnet?", "sonnet"),
                _judge("prompt", "Full?", "claude-full-x"),
            ],
        },
        "replies": [[_bash("toolu_a", "echo hi")], _DONE],
    },
    "agent-hook-models": {
        "models": True,
        "hook_settings": {
            "Stop": [_judge("agent", "Default agent?"), _judge("agent", "Haiku agent?", "haiku")],
        },
        "replies": [_DONE],
    },
    "unknown-subagent-type": {
        "replies": [
            [{**_DELEGATE, "input": {**_DELEGATE["input"], "subagent_type": "no-such-agent"}}],
            _DONE,
        ],
    },
}


class Mock(RecordingMock):
    """The recording mock that also notes each Messages request's model, tool names and
    whether its system prompt mentions a hook (``models``), and answers a prompt or agent
    hook's judge: ``{"ok": true}`` (or a ``StructuredOutput`` call)."""

    def __init__(self) -> None:
        super().__init__()
        self.models: list[dict[str, Any]] = []

    def answer(self, path: str, raw: bytes, headers: dict[str, str]) -> tuple[int, str, bytes]:
        if not path.endswith("/v1/messages"):
            return super().answer(path, raw, headers)
        body = json.loads(raw or b"{}")
        tools = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
        system = json.dumps(body.get("system"))[:20000]
        with self.lock:
            self.models.append(
                {"model": body.get("model"), "tools": tools, "hook": "hook" in system}
            )
        if "ok" in json.dumps(body.get("output_config") or {}) and "Bash" not in tools:
            return 200, "text/event-stream", sse([{"type": "text", "text": '{"ok": true}'}], 99)
        if "StructuredOutput" in tools and "Agent" not in tools:
            return (
                200,
                "text/event-stream",
                sse([_tool("toolu_so", "StructuredOutput", ok=True)], 99),
            )
        return super().answer(path, raw, headers)


def _git(project: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=project, capture_output=True, text=True)
    return (done.stdout + done.stderr).strip()


def _init(project: Path) -> None:
    _git(project, "init", "-q", "-b", "main")
    (project / "README.md").write_text("sample\n")
    _git(project, "add", "README.md")
    _git(project, "-c", "user.name=r", "-c", "user.email=r@e", "commit", "-q", "-m", "init")


def _shown(value: dict[str, Any], project: Path, run: Path) -> dict[str, Any]:
    """``value`` with the run's folders (and the project's transcript folder) as names."""
    text = json.dumps(value)
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(project.resolve()))
    text = text.replace(slug, "${PROJECT_SLUG}")
    for real, name in ((project, "${PROJECT_DIR}"), (run, "${RUN_DIR}")):
        text = text.replace(str(real.resolve()), name).replace(str(real), name)
    shown: dict[str, Any] = json.loads(text)
    return shown


def record(claude: str, name: str, case: dict[str, Any], mock: Mock) -> dict[str, Any]:
    place = Place.make("wt")
    run, project = place.root, place.project
    if case.get("git", True):
        _init(project)
    for rel, text in case.get("files", {}).items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    log = run / "hooks.jsonl"
    events = (*_RECORDED, *case.get("events", ()))
    hooks = {
        e: [{"matcher": "*", "hooks": [{"type": "command", "command": f"python3 {_HOOK} {e}"}]}]
        for e in events
    }
    for event, groups in case.get("hook_settings", {}).items():
        hooks.setdefault(event, []).extend(groups)
    settings = run / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    answers = json.loads(json.dumps(case.get("answers", {})).replace("${RUN_DIR}", str(run)))
    mock.load(case["replies"], sub_replies=case.get("sub_replies", [_DONE]))
    with mock.lock:
        mock.models = []
    env = claude_env(mock.url, place, CASE_HOOK_LOG=str(log), CASE_HOOK_RESPOND=json.dumps(answers))
    argv = [claude, "-p", "go", "--output-format", "stream-json", "--verbose"]
    argv += ["--settings", str(settings), "--dangerously-skip-permissions"]
    argv += ["--model", "claude-rec", *case.get("args", ())]
    done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=300)
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    worktrees = project / ".claude" / "worktrees"
    after = {
        "worktree_list": _git(project, "worktree", "list", "--porcelain"),
        "branches": _git(project, "branch", "--list", "--format=%(refname:short)"),
        "claude_worktrees": sorted(str(p.relative_to(project)) for p in worktrees.glob("*"))
        if worktrees.exists()
        else None,
        "status": _git(project, "status", "--porcelain"),
    }
    result = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return _shown(
        {
            "args": case.get("args", []),
            "exit_code": done.returncode,
            "stderr": done.stderr[-4000:],
            "result": [r for r in result if r.get("type") == "result"],
            "hooks": [
                {"event": c.get("event"), "cwd": c.get("cwd"), "payload": c.get("payload")}
                for c in calls
            ],
            "model_view": _model_view(mock.bodies),
            "models": mock.models if case.get("models") else None,
            "after": after,
        },
        project,
        run,
    )


if __name__ == "__main__":
    raise SystemExit(
        record_cases(__doc__ or "", CASES, record, Mock, version=False, sort_keys=True)
    )
