"""Auto mode's classifier seam and the classifier dsh runs it with.

Claude Code's ``auto`` mode sends the calls another mode would ask about to a safety
classifier. ``AutoClassifier`` is that seam; ``UnavailableClassifier`` is what a session
gets when nobody passes one: 2.1.332 as recorded (corpus ``perm-denied-auto``) with no
classifier reachable, refusing every such call with ``Classifier unavailable`` (the
PermissionDenied ``reason``) and the text below for the model, and never asking a model.
"""

from __future__ import annotations

from typing import Final, Protocol, final

from dsh._frozen import frozen
from dsh.tools import ToolCall

__all__ = ["CLASSIFIER_UNAVAILABLE", "AutoClassifier", "AutoDenial", "UnavailableClassifier"]

CLASSIFIER_UNAVAILABLE: Final = "Classifier unavailable"
# 2.1.332's text, word for word (the corpus's `perm-denied-auto` tool result).
_UNAVAILABLE_TEXT: Final = (
    "Auto mode is unavailable: its safety check does not run for this session, so {tool} was"
    " not run. Other actions that need the check will be denied too, and retrying won't help."
    " Finish what you can without them, then tell the user what is blocked and that they can"
    " switch to another permission mode."
)


@final
@frozen
class AutoDenial:
    """An auto-mode classifier's refusal: ``reason`` for PermissionDenied hooks (Claude
    Code's ``Classifier unavailable``, ``[Data Exfiltration]``, ...), ``message`` for the model."""

    reason: str
    message: str


class AutoClassifier(Protocol):
    """What ``auto`` mode needs: a judge of the calls the mode would otherwise ask about.

    dsh's own is ``UnavailableClassifier``; an embedding program that has a real one passes
    it to ``permission_state`` (or ``ClaudeCodeProfile(classifier=...)``).
    """

    async def classify(self, call: ToolCall, /) -> AutoDenial | None:
        """``None``: the call may run; an ``AutoDenial``: it is refused."""
        ...


@final
class UnavailableClassifier:
    """The classifier of a session that has none: every call it is asked about is refused,
    as 2.1.332 refuses it when its safety check does not run."""

    __slots__ = ()

    async def classify(self, call: ToolCall, /) -> AutoDenial:
        return AutoDenial(CLASSIFIER_UNAVAILABLE, _UNAVAILABLE_TEXT.format(tool=call.name))
