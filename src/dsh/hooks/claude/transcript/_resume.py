"""SessionStart's ``resume`` figures, computed from the session dsh resumed.

Claude Code 2.1.332 adds four keys to a ``source: "resume"`` payload:
``seconds_since_last_response``, ``context_tokens`` (the last response's input,
cache and output tokens), ``prompt_cache_likely_expired`` and
``estimated_cache_write_usd``. ``context_tokens`` is what the API reported for the
last response (its ``Usage.context_tokens``: 120 for the recordings' 100 input and 20
output tokens); only a response whose usage was not reported gives an estimate of what
the model sees next (its system prompt and the log's projection, about 4 characters a
token). The cost is those tokens written to the cache at the model's price
(``dsh.models._prices``; a model without a public price at the rate 2.1.332 charges its
default model); the time comes from the log itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, TypedDict

from dsh.base import thaw_json
from dsh.hooks.claude.transcript._projection import claude_json
from dsh.messages import (
    AssistantMessage,
    ModelMessage,
    ToolResultMessage,
    UserMessage,
    content_text,
)
from dsh.models._prices import price_of
from dsh.session import AssistantMessageEvent, SessionEvent, project

__all__ = [
    "CACHE_TTL_SECONDS",
    "CACHE_WRITE_USD_PER_TOKEN",
    "CHARS_PER_TOKEN",
    "ResumeFields",
    "resume_fields",
]

CACHE_TTL_SECONDS: Final = 300
"""The prompt cache's lifetime Claude Code assumes (``cache_ttl: "5m"``)."""

CACHE_WRITE_USD_PER_TOKEN: Final = 5e-6
"""2.1.332's rate in the recording: 120 tokens cost 0.0006 USD on its default model (the
rate for a model without a price in ``dsh.models._prices``)."""

CHARS_PER_TOKEN: Final = 4
"""The rough size of a token, for a log that records no usage."""


class ResumeFields(TypedDict, total=False):
    """The four keys, all or none (none before any response)."""

    seconds_since_last_response: int
    context_tokens: int
    prompt_cache_likely_expired: bool
    estimated_cache_write_usd: float


def resume_fields(
    events: Sequence[SessionEvent],
    *,
    system: str | None,
    now: float,
    messages: Sequence[ModelMessage] | None = None,
    model: str | None = None,
) -> ResumeFields:
    """The four keys for a session resumed with ``events`` (none before any response).

    ``messages``, when given, is ``project(events)`` already at hand (the agent's view);
    ``model`` the model whose cache write is priced.
    """
    last = next((e for e in reversed(events) if isinstance(e, AssistantMessageEvent)), None)
    if last is None:
        return {}
    seconds = max(0, int(now - last.time))
    if last.usage is not None:
        tokens = last.usage.context_tokens
    else:
        view = project(events) if messages is None else messages
        chars = len(system or "") + sum(_chars(m) for m in view)
        tokens = math.ceil(chars / CHARS_PER_TOKEN)
    price = price_of(model) if model is not None else None
    rate = price.cache_write / 1_000_000 if price is not None else CACHE_WRITE_USD_PER_TOKEN
    return {
        "seconds_since_last_response": seconds,
        "context_tokens": tokens,
        "prompt_cache_likely_expired": seconds > CACHE_TTL_SECONDS,
        "estimated_cache_write_usd": round(tokens * rate, 6),
    }


def _chars(message: ModelMessage) -> int:
    if isinstance(message, AssistantMessage):
        calls = [{"name": u.name, "input": thaw_json(u.arguments)} for u in message.tool_calls]
        return len(message.text) + (len(claude_json(calls)) if calls else 0)
    if isinstance(message, UserMessage | ToolResultMessage):
        return len(content_text(message.content))
    return len(message.text)
