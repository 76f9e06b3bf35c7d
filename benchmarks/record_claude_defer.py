"""Record what the real Claude Code does with PreToolUse ``permissionDecision: "defer"`` (issue 31).

usage: python benchmarks/record_claude_defer.py CLAUDE OUT.json

Each case runs ``CLAUDE -p`` (2.1.332) against the loopback Anthropic mock (``_anthropic_mock``),
headless, permissions skipped, a private ``CLAUDE_CONFIG_DIR``, with a recording hook on every
event of interest; PreToolUse answers from a per-invocation list (``defer`` first, then nothing).
Then, for a case that deferred, ``CLAUDE -p --resume <session>`` continues it. Kept per run: the
hook invocations (event, payload without ids), the stream-json lines (system ``init`` cut to
its keys), the exit code and stderr, and the ``tool_result``s and system texts the model was
sent. Never run by ``make test``; its output is the fixture ``tests/fixtures/claude_defer.json``.
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

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch"]
EVENTS += ["Stop", "SessionEnd", "PermissionRequest", "PermissionDenied", "Notification"]

HOOK = r"""
import json, os, sys
label = sys.argv[1]
payload = json.load(sys.stdin)
log = os.environ["CASE_LOG"]
with open(log, "a") as f:
    f.write(json.dumps({"event": label, "payload": payload}) + "\n")
answers = json.loads(os.environ.get("CASE_ANSWERS", "{}")).get(label, [])
count_file = log + "." + label
n = int(open(count_file).read()) if os.path.exists(count_file) else 0
open(count_file, "w").write(str(n + 1))
if n < len(answers) and answers[n] is not None:
    print(json.dumps(answers[n]))
"""

DEFER = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}
CASES: dict[str, dict[str, Any]] = {
    # One call, deferred; the resume re-fires PreToolUse (no answer now) and runs it.
    "defer-single": {"replies": [("echo deferred-call",), "done"], "answers": [DEFER]},
    # Two calls in one turn: defer is honoured only for a lone call.
    "defer-two-calls": {"replies": [("echo one", "echo two"), "done"], "answers": [DEFER]},
    # The resume's PreToolUse denies the call.
    "defer-then-deny": {
        "replies": [("echo deferred-call",), "done"],
        "answers": [
            DEFER,
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "CASE-DENIED-ON-RESUME",
                }
            },
        ],
    },
}
VOLATILE = {"session_id", "transcript_path", "prompt_id", "tool_use_id", "cwd", "uuid"}


def _reply(item: Any) -> Reply:
    return Reply(bash=tuple(item)) if isinstance(item, tuple) else Reply(text=str(item))


def _kept(role: str, text: str) -> bool:
    """A hook's text, or the user's (not Claude Code's own reminders)."""
    if role == "user":
        return not text.startswith("<system-reminder>")
    return "hook" in text.lower() and not text.startswith("# Environment")


def _model_view(bodies: list[bytes]) -> list[list[dict[str, Any]]]:
    views = []
    for raw in bodies:
        body = json.loads(raw)
        items: list[dict[str, Any]] = []
        for message in body.get("messages", [])[1:]:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_result":
                    items.append(
                        {
                            "tool_result": block.get("content"),
                            "is_error": block.get("is_error", False),
                        }
                    )
                elif block.get("type") == "text" and _kept(message["role"], block["text"]):
                    items.append({"role": message["role"], "text": block["text"]})
        views.append(items)
    return views


def _stream(stdout: str) -> list[dict[str, Any]]:
    out = []
    for line in stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            out.append({"raw": line})
            continue
        if item.get("type") == "system" and item.get("subtype") == "init":
            item = {"type": "system", "subtype": "init", "keys": sorted(item)}
        out.append(item)
    return out


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<id>" if k in VOLATILE else _scrub(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def run_case(claude: str, name: str, case: dict[str, Any]) -> dict[str, Any]:
    place = Place.make(name, git=True)
    run = place.root
    (run / "hook.py").write_text(HOOK)
    hooks = {
        e: [
            {
                "matcher": "*",
                "hooks": [{"type": "command", "command": f"python3 {run}/hook.py {e}"}],
            }
        ]
        for e in EVENTS
    }
    settings = run / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    log = run / "hooks.jsonl"
    runs = []
    with AnthropicMock() as mock:
        replies = tuple(_reply(r) for r in case["replies"])
        mock.load(SideCase(name=name, prompt="run it", replies=replies, hooks={}))
        answers = json.dumps({"PreToolUse": case["answers"]})
        env = claude_env(mock.url, place, CASE_LOG=str(log), CASE_ANSWERS=answers)
        common = ["--output-format", "stream-json", "--verbose", "--settings", str(settings)]
        common += ["--dangerously-skip-permissions"]
        argvs = [["-p", "run it", *common]]
        session_id = None
        for n in range(2):
            if n == 1:
                if session_id is None:
                    break
                argvs.append(["-p", "--resume", session_id, *common])
            before = len(log.read_text().splitlines()) if log.exists() else 0
            bodies_before = len(mock.bodies)
            done = run_claude(claude, argvs[n], place, env, timeout=180)
            stream = _stream(done.stdout)
            result = next((s for s in stream if s.get("type") == "result"), {})
            deferred = result.get("stop_reason") == "tool_deferred"
            session_id = result.get("session_id") if deferred else None
            lines = log.read_text().splitlines()[before:] if log.exists() else []
            runs.append(
                {
                    "argv": [
                        "claude",
                        *[a if a != session_id else "<session>" for a in argvs[n]],
                    ],
                    "exit_code": done.returncode,
                    "stderr": done.stderr[-2000:],
                    "hooks": [_scrub(json.loads(line)) for line in lines],
                    "stream": _scrub([s for s in stream if s.get("type") != "stream_event"]),
                    "model_view": _model_view(mock.bodies[bodies_before:]),
                }
            )
    return {"case": name, "answers": case["answers"], "replies": case["replies"], "runs": runs}


def main() -> None:
    claude, out = sys.argv[1], Path(sys.argv[2])
    cases = [run_case(claude, name, case) for name, case in CASES.items()]
    out.write_text(json.dumps({"claude_version": "2.1.332", "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
