"""What a model's tokens cost: a dated table of the prices that are public, and the cost of a
reported ``Usage`` at them.

Prices are US dollars per million tokens: ``input`` (uncached prompt tokens), ``output``,
``cache_write`` (prompt tokens written to the cache, 5-minute lifetime) and ``cache_read``.
Two sources, each with its date (``PRICES_DATE``):

- Claude Code 2.1.332's catalog for its own models, as the recordings show it
  (``claude-stream-json/resume``: two replies of 100 input and 20 output tokens cost
  0.0016 USD on ``claude-opus-5-5``; a 120-token context's cache write is estimated at
  0.0006 USD on it and 0.0003 USD on ``claude-sonnet-5-5``: ``resume``, ``model-switch-*``),
  with Anthropic's usual ratios (output 5x input, cache write 1.25x, cache read 0.1x);
- the vendors' public price pages for the models they list.

A model not in the table has no price: a cost is then ``None`` (nothing is made up).
"""

from __future__ import annotations

from typing import Final, final

from dsh._frozen import frozen
from dsh.messages import Usage

__all__ = ["PRICES", "PRICES_DATE", "ModelPrice", "cost_usd", "price_of", "table_cost"]

PRICES_DATE: Final = "2026-12-01"
"""When the table was last checked against its sources."""


@final
@frozen
class ModelPrice:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float


def _anthropic(input_usd: float) -> ModelPrice:
    return ModelPrice(input_usd, input_usd * 5, input_usd * 1.25, input_usd * 0.1)


PRICES: Final[dict[str, ModelPrice]] = {
    # Claude Code 2.1.332's catalog (the recordings).
    "claude-opus-5-5": _anthropic(4.0),
    "claude-sonnet-5-5": _anthropic(2.0),
    # Anthropic's public prices.
    "claude-opus-4-5": _anthropic(5.0),
    "claude-opus-4-1": _anthropic(15.0),
    "claude-opus-4": _anthropic(15.0),
    "claude-sonnet-4-5": _anthropic(3.0),
    "claude-sonnet-4": _anthropic(3.0),
    "claude-haiku-4-5": _anthropic(1.0),
    # OpenAI's public prices (cached input at a tenth; no separate cache write).
    "gpt-5": ModelPrice(1.25, 10.0, 1.25, 0.125),
    "gpt-5-mini": ModelPrice(0.25, 2.0, 0.25, 0.025),
    "gpt-5-codex": ModelPrice(1.25, 10.0, 1.25, 0.125),
}


def price_of(model: str) -> ModelPrice | None:
    """``model``'s price (an id, or an id with a date suffix: ``claude-sonnet-4-5-20250929``);
    ``None`` when the table has none."""
    name = model.strip().lower()
    while name:
        found = PRICES.get(name)
        if found is not None:
            return found
        head, _, tail = name.rpartition("-")
        if not head or not tail.isdigit() or len(tail) < 8:
            return None
        name = head
    return None


def cost_usd(usage: Usage, price: ModelPrice) -> float:
    """What ``usage`` cost at ``price``."""
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_creation_input_tokens * price.cache_write
        + usage.cache_read_input_tokens * price.cache_read
    )
    return total / 1_000_000


def table_cost(model: str, usage: Usage) -> float | None:
    """What ``usage`` cost on ``model`` at the table's price; ``None``: the table has none."""
    price = price_of(model)
    return cost_usd(usage, price) if price is not None else None
