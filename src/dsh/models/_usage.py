"""Token usage as a chat-completions reply reports it, read into dsh's ``Usage``.

The reply's ``usage`` (a whole completion's, or a stream's final chunk's when
asked for with ``stream_options.include_usage``) gives ``prompt_tokens``
(cached ones included) and ``completion_tokens``; the cached part comes as
``prompt_tokens_details.cached_tokens`` (OpenAI, vLLM) or
``prompt_cache_hit_tokens`` (DeepSeek). Whatever is not a sane count
(negative, huge, not an integer) is left out, never an error: usage is a
report, and a server's bad report must not fail the call.
"""

from __future__ import annotations

from collections.abc import Mapping

from dsh.messages import Usage
from dsh.messages._messages import token_count

__all__ = ["chat_usage", "scripted_usage"]


def _count(value: object, name: str) -> int:
    found = token_count(value.get(name)) if isinstance(value, Mapping) else None
    return found or 0


def chat_usage(reply: object) -> Usage | None:
    """The ``usage`` of a chat-completions reply or chunk; None when it has none worth reading."""
    usage = reply.get("usage") if isinstance(reply, Mapping) else None
    if not isinstance(usage, Mapping):
        return None
    prompt = _count(usage, "prompt_tokens")
    cached = _count(usage.get("prompt_tokens_details"), "cached_tokens") or _count(
        usage, "prompt_cache_hit_tokens"
    )
    cached = min(cached, prompt)
    return Usage(
        input_tokens=prompt - cached,
        output_tokens=_count(usage, "completion_tokens"),
        cache_read_input_tokens=cached,
    )


def scripted_usage(value: object) -> Usage | None:
    """A scripted reply's ``usage``, in Claude Code's words (``input_tokens``, ...)."""
    if not isinstance(value, Mapping):
        return None
    return Usage(
        input_tokens=_count(value, "input_tokens"),
        output_tokens=_count(value, "output_tokens"),
        cache_read_input_tokens=_count(value, "cache_read_input_tokens"),
        cache_creation_input_tokens=_count(value, "cache_creation_input_tokens"),
    )
