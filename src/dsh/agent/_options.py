"""``AgentOptions``: how an agent runs its turns, as one frozen value.

The limits and manners of the loop (the step limit, the continuation cap, the
compaction budget, parallel tool calls), declared once: ``Agent`` takes one,
``HostOptions.agent`` holds the host's, a subagent gets its parent's. What an
agent works with (the context, the model, the session, the registry, the
store, the callbacks, its parent) are collaborators, passed to ``Agent`` itself.
"""

from __future__ import annotations

from typing import final

from dsh._frozen import frozen
from dsh.agent._summary_ask import SummaryAsk

__all__ = ["AgentOptions"]


@final
@frozen(kw_only=True)
class AgentOptions:
    """How an agent runs its turns.

    ``max_steps`` bounds the model calls of one turn; ``continuation_cap`` the
    times in a row ``agent/turn-continuation`` may send the model back;
    ``compact_budget`` is the projected-context size, in characters, above
    which the loop compacts before a model call (``None``: never
    automatically); ``compact_tokens`` is the usage the last reply reported
    (its call's input, cache and output tokens: the context as the API counted
    it) at or above which the loop compacts before its next model call, as Codex
    does with ``model_auto_compact_token_limit`` (``None``: never by usage);
    ``parallel_tools`` runs a step's tool calls together; ``summary_attempts``
    is how many times a compaction asks for its summary while the answer has no
    ``<summary>`` (Claude Code 2.1.332 asks twice; Codex 0.171 takes the first);
    ``summary_ask`` is how it asks (dsh's prompt by default; the bridges set their tool's).
    """

    max_steps: int = 50
    continuation_cap: int = 8
    compact_budget: int | None = None
    parallel_tools: bool = True
    compact_tokens: int | None = None
    summary_attempts: int = 2
    summary_ask: SummaryAsk = SummaryAsk.separate()

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ValueError(f"Agent: max_steps must be at least 1, got {self.max_steps}")
        if self.continuation_cap < 0:
            raise ValueError(f"Agent: continuation_cap must be >= 0, got {self.continuation_cap}")
        budget = self.compact_budget
        if budget is not None and budget < 1:
            raise ValueError(f"Agent: compact_budget must be positive, got {budget}")
        if self.summary_attempts < 1:
            raise ValueError(
                f"Agent: summary_attempts must be at least 1, got {self.summary_attempts}"
            )
        tokens = self.compact_tokens
        if tokens is not None and tokens < 1:
            raise ValueError(f"Agent: compact_tokens must be positive, got {tokens}")
