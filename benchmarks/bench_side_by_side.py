"""The same small cases through `dsh run` and, when installed, Claude Code and Codex, side by side.

Run: .venv/bin/python benchmarks/bench_side_by_side.py [--rounds 7] [--cases a,b]

Cases (issue 19): no hooks; one Bash call; PreToolUse deny; PostToolUse block;
Stop block once; prompt block; three tool calls. Every case but the first has
one tiny shell hook on each of UserPromptSubmit, PreToolUse, PostToolUse and
Stop (``exit 0``, or the case's blocking answer). The model is a loopback
OpenAI-compatible server in this process that answers from the case's script
by the number of assistant messages in the request (as dsh's scripted model
does), streaming. Runs are interleaved (case by case, tool by tool, round by
round); medians per case.

Claude Code and Codex: ``npm install -g @anthropic-ai/claude-code`` and
``npm install -g @openai/codex`` put ``claude`` and ``codex`` on PATH. Neither
is installed on the machine these figures were taken on, and this script has
no Anthropic Messages or Responses API mock yet, so each is reported as
skipped, with the reason; the ratio printed for every case is then
dsh / dsh's own no-hooks case, and the interpreter's bare start-up
(``python -c pass``, same rounds) is printed beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _loopback import LoopbackServer

DSH = str(Path(sys.executable).with_name("dsh"))
DENY = json.dumps(
    {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "denied by the case",
        }
    }
)
BLOCK = json.dumps({"decision": "block", "reason": "blocked by the case"})
EVENTS = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


def text(t: str) -> dict[str, Any]:
    return {"content": t}


def bash(n: int) -> dict[str, Any]:
    arguments = json.dumps({"command": "true", "description": f"step {n}"})
    call = {"index": 0, "id": f"call{n}", "type": "function"}
    call["function"] = {"name": "Bash", "arguments": arguments}
    return {"tool_calls": [call]}


@dataclass
class Case:
    name: str
    replies: list[dict[str, Any]]
    hooks: bool = True
    answers: dict[str, str] = field(default_factory=dict)  # event -> the hook's shell body


CASES = [
    Case("no hooks", [text("done")], hooks=False),
    Case("one Bash call", [bash(1), text("done")]),
    Case("PreToolUse deny", [bash(1), text("done")], answers={"PreToolUse": f"echo '{DENY}'"}),
    Case("PostToolUse block", [bash(1), text("done")], answers={"PostToolUse": f"echo '{BLOCK}'"}),
    Case(
        "Stop block once",
        [text("first"), text("done")],
        answers={"Stop": f"[ -e stopped ] || {{ touch stopped; echo '{BLOCK}'; }}"},
    ),
    Case("prompt block", [text("never")], answers={"UserPromptSubmit": f"echo '{BLOCK}'"}),
    Case("three tool calls", [bash(1), bash(2), bash(3), text("done")]),
]


class Mock:
    """Chat completions, streamed: reply ``i`` answers a history with ``i`` assistant messages."""

    def __init__(self) -> None:
        self.replies: list[dict[str, Any]] = []
        self.server = LoopbackServer(self.answer)
        self.url = self.server.url

    def answer(self, raw: bytes) -> bytes:
        body = json.loads(raw)
        turns = sum(1 for m in body["messages"] if m.get("role") == "assistant")
        delta = {"role": "assistant", **self.replies[min(turns, len(self.replies) - 1)]}
        chunk = {"choices": [{"index": 0, "delta": delta}]}
        return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()


def project_for(root: Path, case: Case) -> Path:
    project = root / case.name.replace(" ", "-")
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    hooks: dict[str, Any] = {}
    if case.hooks:
        for event in EVENTS:
            body = case.answers.get(event, "exit 0")
            hooks[event] = [{"matcher": "", "hooks": [{"type": "command", "command": body}]}]
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return project


def run_dsh(mock: Mock, case: Case, project: Path, sessions: Path) -> float:
    mock.replies = case.replies
    (project / "stopped").unlink(missing_ok=True)
    argv = [DSH, "run", "--model", "m", "--base-url", mock.url, "--project", str(project)]
    argv += ["--session-dir", str(sessions), "--permission-mode", "bypassPermissions", "go"]
    env = {**os.environ, "DSH_API_KEY": "k"}
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=project, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0,):
        raise RuntimeError(f"{case.name}: dsh run exited {done.returncode}: {done.stderr[-500:]!r}")
    return elapsed


def bare_python() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def others() -> list[str]:
    lines = []
    for tool, package in (("claude", "@anthropic-ai/claude-code"), ("codex", "@openai/codex")):
        if shutil.which(tool) is None:
            lines.append(f"skipped {tool}: not installed (npm install -g {package})")
        else:
            lines.append(
                f"skipped {tool}: installed, but this script has no mock of its API yet"
                " (Claude Code: Anthropic Messages; Codex: Responses)"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cases", default=",".join(c.name for c in CASES))
    args = parser.parse_args()
    cases = [c for c in CASES if c.name in args.cases.split(",")]
    mock = Mock()
    times: dict[str, list[float]] = {c.name: [] for c in cases}
    bare: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-sbs-") as tmp:
        root = Path(tmp)
        projects = {c.name: project_for(root, c) for c in cases}
        for c in cases:  # warm-up: bytecode, page cache
            run_dsh(mock, c, projects[c.name], root / "sessions")
        for r in range(args.rounds):
            for c in cases if r % 2 == 0 else list(reversed(cases)):
                times[c.name].append(run_dsh(mock, c, projects[c.name], root / "sessions"))
            bare.append(bare_python())
    for line in others():
        print(line)
    base = statistics.median(times[cases[0].name])
    print(
        f"`dsh run`, medians of {args.rounds} interleaved rounds (python -c pass: "
        f"{statistics.median(bare) * 1e3:.0f} ms)"
    )
    print(f"{'case':20} {'dsh s':>7} {'/ ' + cases[0].name:>14}")
    for c in cases:
        t = statistics.median(times[c.name])
        print(f"{c.name:20} {t:7.3f} {t / base:14.2f}")


if __name__ == "__main__":
    main()
