"""The form in which the strict replay compares a value with the recording: ids, paths, times.

Ids (tool-use, agent, session and prompt ids), the paths a run makes for itself (a background
subagent's output file) and times/durations differ on every run: they can never be the
recording's. Both sides are brought to one form: a field that holds one of them is its JSON
type (``VOLATILE``); inside a text, each id a placeholder, such a path ``<output-file>``, a
duration ``N``. Nothing else is normalised: every other field, word and number is compared
exactly (token figures, model ids and wordings included).
"""

from __future__ import annotations

import re
from typing import Any

# Fields holding an id, a path or a time: compared by their JSON type.
VOLATILE = frozenset(
    {
        "session_id",
        "transcript_path",
        "agent_transcript_path",
        "prompt_id",
        "turn_id",
        "message_id",
        "tool_use_id",
        "agent_id",
        "agentId",
        "outputFile",
        "duration_ms",
        "totalDurationMs",
        "seconds_since_last_response",
    }
)

_AGENT = r"a[0-9a-f]{16}"
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_REPLACEMENTS = (
    # A background subagent's output file (2.1.332: under /tmp/claude-<uid>/<slug>/<session>;
    # dsh: under its session directory).
    (re.compile(rf"[^\s<>\"']*/tasks/{_AGENT}\.output"), "<output-file>"),
    (re.compile(r"toolu_[A-Za-z0-9]+"), "<tool-use-id>"),
    (re.compile(_UUID), "<uuid>"),
    (re.compile(_AGENT), "<agent-id>"),
    (re.compile(r"<duration_ms>\d+</duration_ms>"), "<duration_ms>N</duration_ms>"),
    (re.compile(r"duration_ms: \d+"), "duration_ms: N"),
)


def comparable(value: Any) -> Any:
    """``value`` (JSON) in the compared form: volatile fields their type, texts normalised."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, list):
        return [comparable(v) for v in value]
    if isinstance(value, dict):
        return {k: type(v).__name__ if k in VOLATILE else comparable(v) for k, v in value.items()}
    return value


def text(value: str) -> str:
    """A text with its ids, run-made paths and durations as placeholders."""
    for pattern, replacement in _REPLACEMENTS:
        value = pattern.sub(replacement, value)
    return value
