"""What Claude Code 2.1.332 tells the user when a PreToolUse hook gives no usable answer.

Not in the corpus; seen by running the real 2.1.332 (``claude -p --output-format
stream-json --verbose``) against a loopback Messages API with hooks whose script cannot start
(a missing file: ``/bin/sh`` exits 127; one not executable: 126; a bad ``#!`` interpreter:
127). Each such hook fails open, as any non-zero exit without an answer does: the action goes
on, the model sees nothing, and the transcript records the stderr's first line after
``Failed with non-blocking status code: ``. A PreToolUse one also warns the user once for the
call, naming the plugin when the hook is a plugin's: ``A hook of the "<name>" plugin gave no
usable answer, so it didn't check this action.`` (``A hook gave no usable answer, ...`` for a
settings file's). The other events' failures it shows nowhere in ``-p`` mode but its verbose
views, which dsh's are (``dsh hooks check``, the log, the interactive live view).
"""

from __future__ import annotations

from typing import Final

from dsh.hook_protocol import MergedAnswers
from dsh.hooks.claude.answers._answer import HookAnswer
from dsh.hooks.claude.settings._types import HookDeclaration

__all__ = ["no_decision_notice"]

# A hook that ran and answered badly gets its own `<Event> hook error` wording instead.
_NO_DECISION: Final = frozenset({"spawn_error", "nonzero_exit", "timed_out", "killed"})


def no_decision_notice(
    event: str, merged: MergedAnswers[HookDeclaration, HookAnswer]
) -> str | None:
    """The warning for a firing whose hooks failed open, or None (not PreToolUse, none did)."""
    if event != "PreToolUse":
        return None
    failed = [decl for decl, outcome in merged.failed if outcome.no_decision in _NO_DECISION]
    if not failed:
        return None
    plugin = next((d.plugin for d in failed if d.plugin), None)
    if plugin is None:
        return "A hook gave no usable answer, so it didn't check this action."
    name = plugin.split("@", 1)[0]
    return f'A hook of the "{name}" plugin gave no usable answer, so it didn\'t check this action.'
