"""Record how the real Claude Code resends a request the API refused for its ``system`` turns
(2.1.332's ``[mid-conv-system]`` fallback; issue 28).

usage: python benchmarks/record_claude_system_turns.py CLAUDE OUT.json [CASE ...]

Runs ``CLAUDE -p "Please run echo hi"`` (2.1.332, headless, permissions skipped, a private
``HOME``/``CLAUDE_CONFIG_DIR``) once per case against the loopback mock of
``_claude_recording``, which answers a main-loop request with a 400 naming an unexpected
``system`` role: ``refused-with-system-turns`` only while the request has a ``role: system``
message, ``refused-always`` every time. Kept per request: its ``anthropic-beta`` list and its
messages' roles and text blocks (long ones as ``short`` keeps them); and the run's exit code.
Never run by ``make test``; its output is the fixture
``tests/fixtures/claude_system_turns.json``.
"""

from __future__ import annotations

import json
from typing import Any

from _claude_recording import Place, RecordingMock, claude_env, record_cases, run_claude, short

REFUSAL = (
    'messages.1.role: Unexpected role "system". The input message role must be one of "user"'
    ' or "assistant"'
)
CASES = {"refused-with-system-turns": False, "refused-always": True}


class Mock(RecordingMock):
    """Refuses a main-loop request (one offering Bash) as ``always`` says."""

    always = False

    def answer(self, path: str, raw: bytes, headers: dict[str, str]) -> tuple[int, str, bytes]:
        if path.endswith("/v1/messages"):
            body = json.loads(raw or b"{}")
            offers_bash = any(t.get("name") == "Bash" for t in body.get("tools") or [])
            turns = any(m.get("role") == "system" for m in body.get("messages", []))
            if offers_bash and (self.always or turns):
                self._keep(body, headers)
                error = {"type": "invalid_request_error", "message": REFUSAL}
                return (
                    400,
                    "application/json",
                    json.dumps({"type": "error", "error": error}).encode(),
                )
        return super().answer(path, raw, headers)


def _message(message: dict[str, Any]) -> dict[str, Any]:
    content = message["content"]
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    return {
        "role": message["role"],
        "texts": [short(b.get("text", b["type"]), 400, 150) for b in blocks],
    }


def record(claude: str, name: str, always: bool, mock: Mock) -> Any:
    mock.always = always
    mock.load()
    place = Place.make(name)
    args = ["-p", "Please run echo hi", "--output-format", "json"]
    done = run_claude(
        claude, [*args, "--dangerously-skip-permissions"], place, claude_env(mock.url, place)
    )
    requests = [
        {
            "beta": head["anthropic-beta"].split(",") if head.get("anthropic-beta") else [],
            "messages": [_message(m) for m in body.get("messages", [])],
        }
        for head, body in zip(mock.headers, mock.bodies, strict=True)
    ]
    kept = {"exit_code": done.returncode, "requests": requests}
    return json.loads(place.placeholders(json.dumps(kept)))


if __name__ == "__main__":
    raise SystemExit(record_cases(__doc__ or "", CASES, record, Mock))
