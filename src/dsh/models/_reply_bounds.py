"""The bounds on one model reply: how much it may hold and how long it may take.

A server that streams forever, or sends one endless tool-call argument, must end in a
clear ``ModelError``, not in dsh growing without bound. Both bounds are generous, and
both can be set (constructor arguments, else the environment):

- ``max_reply_chars`` (``$DSH_MODEL_MAX_REPLY_CHARS``, default 8 Mi characters): the
  text, refusal, tool names and tool-call arguments of a reply together. A model's reply
  is bounded by its output tokens (128k at most for current models, about half a million
  characters), so the default is 16 times what a model can send while keeping dsh's
  memory for a reply within tens of megabytes.
- ``reply_timeout`` (``$DSH_MODEL_REPLY_TIMEOUT``, default 3,600 seconds): the whole of a
  streamed reply, first byte to last. ``timeout`` bounds each read; a server that keeps
  sending slowly passes every read, so the total needs its own bound. An hour covers
  128k tokens at 36 tokens a second, and a slow local model's longest useful reply.
"""

from __future__ import annotations

import os
from typing import Final

from dsh._frozen import slotted

__all__ = [
    "DEFAULT_MAX_REPLY_CHARS",
    "DEFAULT_REPLY_TIMEOUT",
    "MAX_REPLY_CHARS_ENV_VAR",
    "REPLY_TIMEOUT_ENV_VAR",
    "ReplyMeter",
    "reply_bound",
]

DEFAULT_MAX_REPLY_CHARS: Final = 8 << 20
DEFAULT_REPLY_TIMEOUT: Final = 3600.0
MAX_REPLY_CHARS_ENV_VAR: Final = "DSH_MODEL_MAX_REPLY_CHARS"
REPLY_TIMEOUT_ENV_VAR: Final = "DSH_MODEL_REPLY_TIMEOUT"


def reply_bound(given: float | None, env_var: str, default: float) -> float:
    """``given``, else ``$env_var`` (a positive number), else ``default``."""
    if given is None:
        raw = os.environ.get(env_var, "").strip()
        if not raw:
            return default
        try:
            given = float(raw)
        except ValueError:
            raise ValueError(f"${env_var} must be a positive number, not {raw!r}") from None
    if not given > 0:
        raise ValueError(f"{env_var.removeprefix('DSH_MODEL_').lower()} must be positive")
    return given


@slotted  # dataclass(slots=True), declared without compiling its methods (start-up)
class ReplyMeter:
    """The characters of one reply so far; ``add`` says whether it is still within bound."""

    limit: int
    used: int = 0

    def add(self, *parts: str) -> bool:
        for part in parts:
            self.used += len(part)
        return self.used <= self.limit
