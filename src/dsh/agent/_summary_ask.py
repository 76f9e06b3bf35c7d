"""``SummaryAsk``: how a compaction asks the model for its summary (``AgentOptions.summary_ask``).

dsh's own (``SummaryAsk.separate``): the history, then a user turn with the prompt, under a
system prompt of its own and offering no tools. Codex 0.171's (``SummaryAsk.inline``, recorded
in ``tests/fixtures/codex_compaction.json``): the same under the session's own system prompt.
Claude Code 2.1.332's (``SummaryAsk.forked``,
recorded in ``tests/fixtures/claude_compaction.json``): its compaction agent is forked from
the main loop's last request (the same system prompt, the same tools, the messages that
request carried, so the reply that answered it is not among them) with the prompt after them;
asked once more (an answer without ``<summary>``), it adds ``again`` after a blank line.
"""

from __future__ import annotations

from typing import final

from dsh._frozen import frozen

__all__ = ["COMPACT_PROMPT", "COMPACT_SYSTEM", "SummaryAsk"]

COMPACT_SYSTEM = (
    "You summarize a conversation between a user and a coding agent so the agent can continue "
    "from the summary alone."
)
COMPACT_PROMPT = (
    "Summarize the conversation so far: the user's goals, what was done (files, commands, "
    "results), decisions made, and what remains. Be concise and factual. Write the summary "
    "inside <summary></summary> tags."
)


@final
@frozen(kw_only=True)
class SummaryAsk:
    """``prompt`` follows the history (a compaction's instructions after it); ``again`` is
    added to it when the summary is asked for once more (empty: the same request again);
    ``fork``: the request is the last model request's (system, tools, messages), else the
    history under ``system`` (``None``: the session's) with no tools."""

    prompt: str
    again: str = ""
    system: str | None = COMPACT_SYSTEM
    fork: bool = False

    @classmethod
    def separate(cls, prompt: str = COMPACT_PROMPT, system: str = COMPACT_SYSTEM) -> SummaryAsk:
        """The history under ``system``, then ``prompt``, no tools offered (dsh's own)."""
        return cls(prompt=prompt, system=system)

    @classmethod
    def inline(cls, prompt: str) -> SummaryAsk:
        """The history under the session's system prompt, then ``prompt``, no tools (Codex
        0.171's)."""
        return cls(prompt=prompt, system=None)

    @classmethod
    def forked(cls, prompt: str, again: str = "") -> SummaryAsk:
        """The last model request, then ``prompt`` (Claude Code 2.1.332's)."""
        return cls(prompt=prompt, again=again, fork=True)

    def text(self, attempt: int, instructions: str | None) -> str:
        """The prompt of the ``attempt``-th ask (from 1), with the compaction's instructions."""
        text = self.prompt if not instructions else f"{self.prompt}\n\n{instructions}"
        return f"{text}\n\n{self.again}" if attempt > 1 and self.again else text
