"""Codex 0.171's compaction prompt, word for word (``SummaryAsk.inline``).

Recorded by ``benchmarks/record_codex_compaction.py`` (``tests/fixtures/codex_compaction.json``):
the user turn after the history, under the session's own instructions, no tools offered.
``SUMMARY_ASK`` is it as the bridge's agents ask (``CodexMount.agent_options``).
"""

from __future__ import annotations

from dsh.agent import SummaryAsk

__all__ = ["PROMPT", "SUMMARY_ASK"]

PROMPT = (
    "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another"
    " LLM that will resume the task.\n"
    "\n"
    "Include:\n"
    "- Current progress and key decisions made\n"
    "- Important context, constraints, or user preferences\n"
    "- What remains to be done (clear next steps)\n"
    "- Any critical data, examples, or references needed to continue\n"
    "\n"
    "Be concise, structured, and focused on helping the next LLM seamlessly continue the work.\n"
)
SUMMARY_ASK = SummaryAsk.inline(PROMPT)
