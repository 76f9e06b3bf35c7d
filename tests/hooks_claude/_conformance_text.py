"""The form in which the replay compares a background subagent's texts with the recording.

The launch result and the ``<task-notification>`` prompt carry ids (the agent's, the tool
call's, the session's), the output file's path, the child's token count and its duration:
none of them can be the recording's. Both sides are brought to one form: each id a
placeholder, the path its shared tail (``<session>/tasks/<agent>.output``, the prefix being
``EXPECTED_TEXT_DIFFERENCES["output_file"]``), the recorded SendMessage sentence dropped
(``EXPECTED_TEXT_DIFFERENCES["SendMessage"]``), the token count and the duration their
shape; what is left (the wording, the status, the result, ``tool_uses``) is compared exactly.
A path whose tail is not that shape is left as it is, so it fails the comparison.
"""

from __future__ import annotations

import re
from typing import Any

_AGENT = r"a[0-9a-f]{16}"
_SESSION = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_PATH = re.compile(rf"[^\s<>]*/{_SESSION}/tasks/({_AGENT})\.output")
_SEND_MESSAGE = re.compile(
    rf" Use SendMessage with to: '{_AGENT}', summary: '<5-10 word recap>' to continue this agent\."
)
_REPLACEMENTS = (
    (re.compile(r"toolu_[A-Za-z0-9]+"), "<tool-use-id>"),
    (re.compile(r"<subagent_tokens>\d+</subagent_tokens>"), "<subagent_tokens>N</subagent_tokens>"),
    (re.compile(r"<duration_ms>\d+</duration_ms>"), "<duration_ms>N</duration_ms>"),
)
_MARKERS = ("Async agent launched successfully.", "<task-notification>")


def comparable(value: Any, *, recorded: bool) -> Any:
    """``value`` (a string, or JSON holding strings) in the compared form."""
    if isinstance(value, str):
        return _text(value, recorded=recorded)
    if isinstance(value, list):
        return [comparable(v, recorded=recorded) for v in value]
    if isinstance(value, dict):
        return {k: comparable(v, recorded=recorded) for k, v in value.items()}
    return value


def _text(text: str, *, recorded: bool) -> str:
    if not any(marker in text for marker in _MARKERS):
        return text
    if recorded:
        text = _SEND_MESSAGE.sub("", text)
    text = _PATH.sub(r"<session>/tasks/\1.output", text)
    for pattern, replacement in _REPLACEMENTS:
        text = pattern.sub(replacement, text)
    return re.sub(_AGENT, "<agent-id>", text)
