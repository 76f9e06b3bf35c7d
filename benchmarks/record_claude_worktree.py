"""Record what the real Claude Code does with worktrees: ``--worktree [NAME]``, the
WorktreeCreate and WorktreeRemove hooks, and a subagent's ``isolation: worktree``; and an
unknown ``subagent_type`` in a project with no custom agents (issue 31).

usage: python benchmarks/record_claude_worktree.py CLAUDE OUT.json

Runs ``CLAUDE -p`` (2.1.332) once per case in a fresh git repository (one commit, no remote)
against the loopback Anthropic mock of ``record_claude_bounds``, headless, permissions
skipped, a private ``HOME``/``CLAUDE_CONFIG_DIR``, with
``tests/hooks_claude/scripts/record_hook.py``
on the case's events (``CASE_HOOK_RESPOND`` gives its answers). For each case it keeps the exit
code, stderr, the hook invocations (event, cwd, payload), what the model was sent back, and the
repository afterwards (``git worktree list``, branches, what is under ``.claude/worktrees``), with
the run's folders written as ``${PROJECT_DIR}`` / ``${RUN_DIR}`` (the hook script as
``${HOOK}``). Never run by ``make test``; its
output is the fixture ``tests/fixtures/claude_worktree.json``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from _claude_recording import DONE as _DONE
from _claude_recording import sse as _sse
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
_LIST = "find . -path ./.git -prune -o -print | sort; ls -l | grep -- '->' || true"


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
    "flag-hook-not-git": {
        "git": False,
        "files": {"wtdir/keep.txt": "kept\n"},
        "args": ["--worktree", "sample-wt"],
        "events": ["WorktreeCreate", "WorktreeRemove"],
        "answers": {"WorktreeCreate": {"stdout": "${RUN_DIR}/project/wtdir\n"}},
        "replies": [[_bash("toolu_a", "pwd")], _DONE],
    },
    "flag-hook-relative": {
        "files": {"wtdir/keep.txt": "kept\n"},
        "args": ["--worktree", "sample-wt"],
        "events": ["WorktreeCreate", "WorktreeRemove"],
        "answers": {"WorktreeCreate": {"stdout": "wtdir\n"}},
        "replies": [[_bash("toolu_a", "pwd")], _DONE],
    },
    "flag-hook-json": {
        "files": {"wtdir/keep.txt": "kept\n"},
        "args": ["--worktree"],
        "events": ["WorktreeCreate", "WorktreeRemove"],
        "answers": {
            "WorktreeCreate": {
                "stdout": {
                    "hookSpecificOutput": {
                        "hookEventName": "WorktreeCreate",
                        "worktreePath": "${RUN_DIR}/project/wtdir",
                    }
                }
            }
        },
        "replies": [[_bash("toolu_a", "pwd")], _DONE],
    },
    "flag-settings-sparse-symlink": {
        "files": {"a/one.txt": "one\n", "b/two.txt": "two\n", "top.txt": "top\n"},
        "commit": True,
        "untracked": {"node_modules/pkg.txt": "pkg\n", "cache/c.txt": "c\n"},
        "settings": {
            "worktree": {
                "sparsePaths": ["a"],
                "symlinkDirectories": ["node_modules", "missing", "../outside", "/abs", "a"],
            }
        },
        "args": ["--worktree", "sample-wt"],
        "replies": [[_bash("toolu_a", _LIST)], _DONE],
    },
    "flag-baseref-fresh": {
        "origin": True,
        "args": ["--worktree", "sample-wt"],
        "replies": [[_bash("toolu_a", _SHOW)], _DONE],
    },
    "flag-baseref-head": {
        "origin": True,
        "settings": {"worktree": {"baseRef": "head"}},
        "args": ["--worktree", "sample-wt"],
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


class Mock:
    """The loopback Anthropic API: a request offering Bash gets ``replies[turn]`` (a
    subagent's, one offering no ``Agent`` tool, ``sub_replies[turn]``); any other a text."""

    def __init__(self) -> None:
        self.replies: list[list[dict[str, Any]]] = [_DONE]
        self.sub_replies: list[list[dict[str, Any]]] = [_DONE]
        self.bodies: list[dict[str, Any]] = []
        self.models: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, kind: str, data: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not self.path.split("?", 1)[0].endswith("/v1/messages"):
                    self._send("application/json", b'{"input_tokens": 10}')
                    return
                body = json.loads(raw or b"{}")
                tools = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
                turns = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
                system = json.dumps(body.get("system"))[:20000]
                with mock.lock:
                    mock.models.append(
                        {"model": body.get("model"), "tools": tools, "hook": "hook" in system}
                    )
                if "ok" in json.dumps(body.get("output_config") or {}) and "Bash" not in tools:
                    turns, reply = 99, [{"type": "text", "text": '{"ok": true}'}]
                elif "StructuredOutput" in tools and "Agent" not in tools:
                    turns = 99
                    reply = [_tool("toolu_so", "StructuredOutput", ok=True)]
                elif "Bash" in tools:
                    with mock.lock:
                        mock.bodies.append(body)
                        script = mock.replies if "Agent" in tools else mock.sub_replies
                        reply = script[min(turns, len(script) - 1)]
                else:
                    turns, reply = 99, [{"type": "text", "text": "ok"}]
                self._send("text/event-stream", _sse(reply, turns))

            def do_GET(self) -> None:
                self._send("application/json", b'{"data": [], "has_more": false}')

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def _git(project: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=project, capture_output=True, text=True)
    return (done.stdout + done.stderr).strip()


def _init(project: Path) -> None:
    _git(project, "init", "-q", "-b", "main")
    (project / "README.md").write_text("sample\n")
    _git(project, "add", "README.md")
    _git(project, "-c", "user.name=r", "-c", "user.email=r@e", "commit", "-q", "-m", "init")


def _origin(project: Path, bare: Path) -> None:
    """A remote ``origin`` (a bare clone on disk) whose default branch is the first commit,
    and a second commit only on the local ``main``: ``baseRef`` ``fresh`` and ``head`` differ."""
    subprocess.run(["git", "clone", "-q", "--bare", str(project), str(bare)], check=True)
    _git(project, "remote", "add", "origin", str(bare))
    _git(project, "fetch", "-q", "origin")
    _git(project, "remote", "set-head", "origin", "main")
    (project / "local.txt").write_text("local only\n")
    _git(project, "add", "local.txt")
    _git(project, "-c", "user.name=r", "-c", "user.email=r@e", "commit", "-q", "-m", "local")


def _shown(value: dict[str, Any], project: Path, run: Path) -> dict[str, Any]:
    """``value`` with the run's folders (and the project's transcript folder) as names."""
    text = json.dumps(value)
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(project.resolve()))
    text = text.replace(slug, "${PROJECT_SLUG}").replace(str(_HOOK), "${HOOK}")
    for real, name in ((project, "${PROJECT_DIR}"), (run, "${RUN_DIR}")):
        text = text.replace(str(real.resolve()), name).replace(str(real), name)
    shown: dict[str, Any] = json.loads(text)
    return shown


def record(claude: str, name: str, case: dict[str, Any], mock: Mock) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="recwt-") as tmp:
        run = Path(tmp)
        project, home = run / "project", run / "home"
        project.mkdir()
        (home / ".claude").mkdir(parents=True)
        if case.get("git", True):
            _init(project)
        for rel, text in case.get("files", {}).items():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            (project / rel).write_text(text)
        if case.get("commit"):
            _git(project, "add", "-A")
            _git(project, "-c", "user.name=r", "-c", "user.email=r@e", "commit", "-q", "-m", "f")
        for rel, text in case.get("untracked", {}).items():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            (project / rel).write_text(text)
        if case.get("origin"):
            _origin(project, run / "origin.git")
        log = run / "hooks.jsonl"
        events = (*_RECORDED, *case.get("events", ()))
        hook = {"type": "command", "command": f"python3 {_HOOK} EVENT"}
        hooks = {
            e: [
                {
                    "matcher": "*",
                    "hooks": [{**hook, "command": hook["command"].replace("EVENT", e)}],
                }
            ]
            for e in events
        }
        for event, groups in case.get("hook_settings", {}).items():
            hooks.setdefault(event, []).extend(groups)
        settings = run / "settings.json"
        settings.write_text(json.dumps({"hooks": hooks, **case.get("settings", {})}))
        answers = json.loads(json.dumps(case.get("answers", {})).replace("${RUN_DIR}", str(run)))
        # record_hook.py reads its answers from a file (CASE_HOOK_RESPOND is its path).
        respond = run / "answers.json"
        respond.write_text(json.dumps(answers))
        with mock.lock:
            mock.replies = case["replies"]
            mock.sub_replies = case.get("sub_replies", [_DONE])
            mock.bodies = []
            mock.models = []
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        env |= {
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": mock.url,
            "ANTHROPIC_API_KEY": "sk-rec-loopback",
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "IS_SANDBOX": "1",
            "CASE_HOOK_LOG": str(log),
            "CASE_HOOK_RESPOND": str(respond),
        }
        argv = [claude, "-p", "go", "--output-format", "stream-json", "--verbose"]
        argv += ["--settings", str(settings), "--dangerously-skip-permissions"]
        argv += ["--model", "claude-rec", *case.get("args", ())]
        done = subprocess.run(
            argv, cwd=project, env=env, capture_output=True, text=True, timeout=300
        )
        calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        worktrees = project / ".claude" / "worktrees"
        after = {
            "worktree_list": _git(project, "worktree", "list", "--porcelain"),
            "branches": _git(project, "branch", "--list", "--format=%(refname:short)"),
            "claude_worktrees": sorted(str(p.relative_to(project)) for p in worktrees.glob("*"))
            if worktrees.exists()
            else None,
            "status": _git(project, "status", "--porcelain"),
            "heads": {
                "HEAD": _git(project, "rev-parse", "HEAD"),
                "origin": _git(project, "rev-parse", "-q", "--verify", "refs/remotes/origin/HEAD"),
            },
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


def main() -> None:
    claude, out = sys.argv[1], Path(sys.argv[2])
    only = sys.argv[3:]
    mock = Mock()
    recorded = json.loads(out.read_text()) if out.exists() and only else {}
    for name, case in CASES.items():
        if only and name not in only:
            continue
        recorded[name] = record(claude, name, case, mock)
        print(name, recorded[name]["exit_code"], file=sys.stderr)
    out.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
