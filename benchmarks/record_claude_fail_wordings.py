"""Record 2.1.332's words for three hook failures and denials (issue 31, ``fail31``).

usage: DSH_CLAUDE=... python benchmarks/record_claude_fail_wordings.py OUT.json

Cases (each a fresh ``Place``, the loopback ``RecordingMock``, ``claude -p`` with
``--output-format stream-json --verbose``):

- ``pretool-onfailure-exit1``: a PreToolUse command hook ``onFailure: "block"`` that prints
  ``OOPS`` to stderr and exits 1; ``pretool-onfailure-silent``: the same with no stderr;
  ``pretool-onfailure-timeout``: one that outlives its 1-second timeout.
- ``prompt-onfailure-exit1``: a UserPromptSubmit one (what the user is shown);
  ``prompt-exit2``: the same hook exiting 2 instead, for comparison (the prompt is quoted,
  and the stderr's newline kept).
- ``permission-two-denies``: two PermissionRequest hooks deny ``touch`` (default mode), the
  first declared answering a second later than the second.
- ``precompact-exit2-<format>``: ``/compact --resume`` with a PreCompact hook exiting 2
  (``NO-COMPACT`` on stderr), in each output format: what a ``-p`` user sees.

Kept: exit codes, the ``tool_result``s the model was sent, the ``result`` message (``result``,
``is_error``, ``subtype``), stdout (text format) and the stderr's tail, with the run's paths
as placeholders. Never run by ``make test``; its output is
``tests/fixtures/claude_fail_wordings.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _claude_recording import DONE, Place, RecordingMock, claude_env, run_claude, tool_use
from _claude_side import claude_path

STREAM = ["--output-format", "stream-json", "--verbose"]


def _deny(message: str) -> str:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": message},
        }
    }
    return f"printf '%s' '{json.dumps(answer)}'"


def _results(mock: RecordingMock) -> list[Any]:
    seen: list[Any] = []
    for body in mock.bodies:
        for message in body.get("messages", []):
            content = message.get("content")
            if isinstance(content, list):
                seen += [b for b in content if b.get("type") == "tool_result" and b not in seen]
    return seen


def _result_line(stdout: str) -> dict[str, Any] | None:
    for line in stdout.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("type") == "result":
            return {k: data.get(k) for k in ("subtype", "is_error", "result")}
    return None


def _settings(place: Place, hooks: dict[str, Any]) -> list[str]:
    path = place.root / "settings.json"
    path.write_text(json.dumps({"hooks": hooks}))
    return ["--settings", str(path)]


def turn_case(
    claude: str, mock: RecordingMock, name: str, hooks: dict[str, Any], extra: list[str]
) -> dict[str, Any]:
    place = Place.make(name, git=True)
    flags = _settings(place, hooks) + STREAM + extra
    mock.load([[tool_use("toolu_1", "Bash", command="touch made.txt")], DONE])
    done = run_claude(claude, ["-p", "make a file", *flags], place, claude_env(mock.url, place))
    return {
        "case": name,
        "exit_code": done.returncode,
        "requests": len(mock.bodies),
        "tool_results": json.loads(place.placeholders(json.dumps(_results(mock)))),
        "result": _result_line(done.stdout),
        "stderr_tail": place.placeholders(done.stderr[-1500:]),
    }


def precompact_case(claude: str, mock: RecordingMock, output: str) -> dict[str, Any]:
    name = f"precompact-exit2-{output}"
    place = Place.make(name, git=True)
    command = "echo NO-COMPACT >&2; exit 2"
    flags = _settings(place, {"PreCompact": [{"hooks": [{"type": "command", "command": command}]}]})
    env = claude_env(mock.url, place)
    mock.load()
    first = run_claude(claude, ["-p", "hi", *flags, "--output-format", "json"], place, env)
    session = json.loads(first.stdout)["session_id"]
    shape = STREAM if output == "stream-json" else ["--output-format", output]
    argv = ["-p", "/compact", "--resume", session, *flags, *shape]
    compact = run_claude(claude, argv, place, env)
    result = _result_line(compact.stdout)
    return {
        "case": name,
        "command": command,
        "exit_codes": [first.returncode, compact.returncode],
        "result": result,
        "stdout": place.placeholders(compact.stdout) if output == "text" else None,
        "stderr_tail": place.placeholders(compact.stderr[-1500:]),
    }


def _block(command: str, **more: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, "onFailure": "block", **more}


def _command(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command}


def main() -> None:
    claude = claude_path()
    if claude is None:
        raise SystemExit("no claude: set DSH_CLAUDE")
    skip = ["--dangerously-skip-permissions"]
    pre = "echo OOPS >&2; exit 1"
    exit2 = "echo OOPS >&2; exit 2"
    turns: list[tuple[str, dict[str, Any], list[str]]] = [
        ("pretool-onfailure-exit1", {"PreToolUse": [{"hooks": [_block(pre)]}]}, skip),
        ("pretool-onfailure-silent", {"PreToolUse": [{"hooks": [_block("exit 1")]}]}, skip),
        (
            "pretool-onfailure-timeout",
            {"PreToolUse": [{"hooks": [_block("sleep 5", timeout=1)]}]},
            skip,
        ),
        ("prompt-onfailure-exit1", {"UserPromptSubmit": [{"hooks": [_block(pre)]}]}, skip),
        ("prompt-exit2", {"UserPromptSubmit": [{"hooks": [_command(exit2)]}]}, skip),
        (
            "permission-two-denies",
            {
                "PermissionRequest": [
                    {
                        "hooks": [
                            {"type": "command", "command": f"sleep 1; {_deny('CASE-DENY-SLOW')}"},
                            {"type": "command", "command": _deny("CASE-DENY-FAST")},
                        ]
                    }
                ]
            },
            ["--permission-mode", "default"],
        ),
    ]
    with RecordingMock() as mock:
        cases = [turn_case(claude, mock, name, hooks, extra) for name, hooks, extra in turns]
        cases += [precompact_case(claude, mock, f) for f in ("text", "json", "stream-json")]
    out = {"claude": "2.1.332", "cases": cases}
    Path(sys.argv[1]).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
