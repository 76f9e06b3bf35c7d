"""``TerminalApprovalPrompt``: the approval channel of a person at dsh's terminal.

When a policy asks about a call (a PreToolUse hook's ``ask``, a permission
rule) and no ``approval/request`` listener settled it, the ``ApprovalBroker``
routes the question here: the live region is paused, the call is shown
(terminal-safe) and the person answers allow once, allow always for this
session (the broker remembers it), or deny, optionally with a reason that is
passed to the model as the user's steering. Ctrl-C or Ctrl-D at the question
cancels it and interrupts the turn.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from dsh.approval import ApprovalAnswer, ApprovalOutcome, ApprovalRequest, ChannelAnswer
from dsh.cli._render import plain_markup

if TYPE_CHECKING:
    from dsh.cli._live import LiveView

__all__ = ["TerminalApprovalPrompt"]

_MAX_ARGS: Final = 600
_CHOICES: Final[dict[str, ApprovalOutcome]] = {
    "y": "allowed-once",
    "yes": "allowed-once",
    "1": "allowed-once",
    "a": "allowed-always",
    "always": "allowed-always",
    "2": "allowed-always",
    "n": "rejected",
    "no": "rejected",
    "3": "rejected",
}


class TerminalApprovalPrompt:
    """Asks at the terminal; ``steer`` passes a denial's reason on, ``interrupt`` ends the turn.

    Questions never overlap (parallel calls wait their turn).
    """

    __slots__ = ("_interrupt", "_lock", "_steer", "_view")

    def __init__(
        self,
        view: LiveView,
        *,
        steer: Callable[[str], None] | None = None,
        interrupt: Callable[[str], None] | None = None,
    ) -> None:
        self._view = view
        self._steer = steer
        self._interrupt = interrupt
        self._lock = asyncio.Lock()

    async def request(self, req: ApprovalRequest, /) -> ChannelAnswer:
        async with self._lock:
            with self._view.paused():
                self._show(req)
                try:
                    return await self._answer(req)
                except (KeyboardInterrupt, EOFError):
                    if self._interrupt is not None:
                        self._interrupt("interrupted by the user at a permission prompt")
                    return ApprovalAnswer("cancelled", "the user interrupted the prompt")

    def _show(self, req: ApprovalRequest) -> None:
        out = self._view.console.print
        args = json.dumps(req.arguments, ensure_ascii=False, sort_keys=True, default=str)
        if len(args) > _MAX_ARGS:
            args = args[:_MAX_ARGS] + "…"
        out(f"\n[bold yellow]? {plain_markup(req.tool_name)}[/bold yellow] {plain_markup(args)}")
        if req.reason:
            out(f"  [dim]asked because:[/dim] {plain_markup(req.reason)}")
        out(
            "  [bold]y[/bold] allow once · [bold]a[/bold] allow always for this session · "
            "[bold]n[/bold] deny (then a reason, if you like)"
        )

    async def _answer(self, req: ApprovalRequest) -> ChannelAnswer:
        from prompt_toolkit import PromptSession

        session: PromptSession[str] = PromptSession()
        while True:
            # handle_sigint=False: prompt_toolkit would replace the loop's SIGINT handler and
            # remove it on exit, leaving Ctrl-C dead for the rest of the session. At the
            # question Ctrl-C is a key (the terminal is raw) and raises KeyboardInterrupt.
            asked = await session.prompt_async("Allow? [y/a/n] ", handle_sigint=False)
            given = asked.strip().lower()
            outcome = _CHOICES.get(given)
            if outcome == "allowed-once" or outcome == "allowed-always":
                return outcome
            if outcome == "rejected":
                break
            self._view.console.print("  [dim]answer y, a or n[/dim]")
        reason = await session.prompt_async("Reason (Enter for none): ", handle_sigint=False)
        reason = reason.strip()
        if not reason:
            return ApprovalAnswer("rejected", "the user denied this call")
        if self._steer is not None:
            self._steer(f"I denied the {req.tool_name} call: {reason}")
        return ApprovalAnswer("rejected", f"the user denied this call: {reason}")
