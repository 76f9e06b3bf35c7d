"""Record what the real Claude Code does with dsh's opt-in extensions in a hook's answer.

usage: python benchmarks/record_dsh_extensions.py CLAUDE OUT.json

dsh reads extensions under ``hookSpecificOutput.dsh`` (docs/hooks-dev.md). Run against
the real Claude Code 2.1.332 (a loopback Anthropic mock, ``_claude_recording``;
a private ``CLAUDE_CONFIG_DIR``; permissions skipped), each case's hook answers with the
extension beside fields Claude Code knows: the fixture keeps what the model was sent
(the user message, the tool results), so a test can check that Claude Code ignored the
extension and honoured the rest. Never run by ``make test``; its output is
``tests/fixtures/dsh_extensions_claude.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from _claude_recording import DONE, Place, RecordingMock, claude_env, claude_version, run_claude
from record_claude_bounds import _bash

_PROMPT = {
    "hookSpecificOutput": {
        "hookEventName": "UserPromptSubmit",
        "additionalContext": "context from the hook",
        "dsh": {"updatedPrompt": "the rewritten prompt"},
    }
}
_DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "denied by the hook",
        "dsh": {"note": "an extension dsh reads"},
    }
}
_REPLY = {
    "hookSpecificOutput": {
        "hookEventName": "MessageDisplay",
        "displayContent": "shown instead",
        "dsh": {"updatedReply": "the rewritten reply"},
    }
}
_PRUNE = {
    "hookSpecificOutput": {
        "hookEventName": "PostToolUse",
        "additionalContext": "context after the call",
        "dsh": {"pruneToolResults": ["toolu_a"]},
    }
}
_BATCH_PRUNE = {
    "hookSpecificOutput": {
        "hookEventName": "PostToolBatch",
        "additionalContext": "context after the batch",
        "dsh": {"pruneToolResults": ["toolu_a"]},
    }
}
_SAID = {"type": "text", "text": "the model's own words"}
CASES: dict[str, dict[str, Any]] = {
    "prompt-updated-prompt": {"event": "UserPromptSubmit", "answer": _PROMPT, "replies": [DONE]},
    "pretool-deny-with-dsh": {
        "event": "PreToolUse",
        "answer": _DENY,
        "replies": [[_bash("toolu_a", "echo hi")], DONE],
    },
    "display-updated-reply": {
        "event": "MessageDisplay",
        "answer": _REPLY,
        "replies": [[_SAID, _bash("toolu_a", "echo hi")], DONE],
    },
    "posttool-prune": {
        "event": "PostToolUse",
        "answer": _PRUNE,
        "replies": [[_bash("toolu_a", "echo hi")], DONE],
    },
    "posttoolbatch-prune": {
        "event": "PostToolBatch",
        "answer": _BATCH_PRUNE,
        "replies": [[_bash("toolu_a", "echo hi")], DONE],
    },
}


def _texts(body: dict[str, Any]) -> list[str]:
    out = []
    for message in body.get("messages", []):
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            if block.get("type") == "text" and message["role"] == "assistant":
                out.append(f"assistant: {block['text']}")
            elif block.get("type") == "text":
                text = str(block["text"])
                if message["role"] == "user" and not text.startswith("<system-reminder>"):
                    out.append(f"user: {text}")
                # Of the system text, what hooks added (Claude Code's words for it).
                out += [
                    f"system: {line}"
                    for line in text.splitlines()
                    if "hook" in line.lower()
                    and message["role"] == "system"
                    and "hook additional context" in line
                ]
            elif block.get("type") == "tool_result":
                out.append(f"tool_result: {json.dumps(block.get('content'))}")
    return out


def record(claude: str, case: dict[str, Any], mock: RecordingMock) -> dict[str, Any]:
    place = Place.make("dsh-ext")
    answer = place.root / "answer.json"
    answer.write_text(json.dumps(case["answer"]))
    command = f"cat > /dev/null; cat {answer}"
    hooks = {case["event"]: [{"hooks": [{"type": "command", "command": command}]}]}
    settings = place.root / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    mock.load(case["replies"])
    args = ["-p", "the original prompt", "--settings", str(settings),
            "--dangerously-skip-permissions", "--model", "claude-rec"]  # fmt: skip
    done = run_claude(claude, args, place, claude_env(mock.url, place))
    return {
        "exit_code": done.returncode,
        "stdout": done.stdout[-2000:],
        "stderr": done.stderr[-2000:],
        "requests": [_texts(body) for body in mock.bodies],
    }


def main() -> int:
    claude, out = sys.argv[1], Path(sys.argv[2])
    recorded: dict[str, Any] = {"cli_version": claude_version(claude)}
    with RecordingMock() as mock:
        for name, case in CASES.items():
            print("recording", name, flush=True)
            recorded[name] = {"answer": case["answer"], **record(claude, case, mock)}
    out.write_text(json.dumps(recorded, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
