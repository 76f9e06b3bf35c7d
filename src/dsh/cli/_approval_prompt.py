"""``TerminalApprovalPrompt``: the approval channel of a person at dsh's terminal.

When a policy asks about a call (a PreToolUse hook's ``ask``, a permission
rule) and no ``approval/request`` listener settled it, the ``ApprovalBroker``
routes the question here: the live region is paused, the call is shown
(terminal-safe) and the person answers allow once, allow always for this
session (the broker remembers it), or deny, optionally with a reason that is
passed to the model as the user's steering. Ctrl-C or Ctrl-D at the question
cancels it and interrupts the turn, and so does Esc.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from dsh.approval import ApprovalAnswer, ApprovalOutcome, ApprovalRequest, ChannelAnswer
from dsh.cli._render import plain_markup

if TYPE_CHECKING:
    from dsh.cli._live import LiveView

__all__ = ["TerminalApprovalPrompt", "Waiting"]

Waiting: TypeAlias = Callable[[ApprovalRequest, Callable[[], float]], Callable[[], None]]
"""Told a question is shown and how to learn when a key was last pressed; returns what stops
its timer (called as it is answered)."""

_MAX_ARGS: Final = 600
_MAX_HEAD: Final = 160
_SUMMARY_KEYS: Final = ("command", "file_path", "path", "pattern", "url", "prompt", "description")
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

    __slots__ = ("_interrupt", "_last_key", "_lock", "_steer", "_view", "_waiting")

    def __init__(
        self,
        view: LiveView,
        *,
        steer: Callable[[str], None] | None = None,
        interrupt: Callable[[str], None] | None = None,
        waiting: Waiting | None = None,
    ) -> None:
        self._view = view
        self._steer = steer
        self._interrupt = interrupt
        self._waiting = waiting
        """Called as a question is shown, with what says when the person last pressed a key
        at it; what it returns, as it is answered (the ``permission_prompt`` Notification
        2.1.332's terminal sends once nothing was typed for 6 s)."""
        self._lock = asyncio.Lock()
        self._last_key = -math.inf
        """When a key was last pressed at a question (``time.monotonic``)."""

    def last_key(self) -> float:
        return self._last_key

    async def request(self, req: ApprovalRequest, /) -> ChannelAnswer:
        async with self._lock:
            with self._view.paused():
                self._show(req)
                waiting = self._waiting
                answered = waiting(req, self.last_key) if waiting is not None else None
                try:
                    return await self._answer(req)
                except (KeyboardInterrupt, EOFError):
                    if self._interrupt is not None:
                        self._interrupt("interrupted by the user at a permission prompt")
                    return ApprovalAnswer("cancelled", "the user interrupted the prompt")
                finally:
                    if answered is not None:
                        answered()

    async def _ask(self, session: Any, question: str) -> str:
        """The answer to ``question``: a line typed before it was asked (shown after it), else
        what is typed now, starting with what was typed ahead."""
        ahead, entered = self._view.typed_ahead()
        if entered:
            self._view.console.print(f"{question}{plain_markup(ahead)}", highlight=False)
            return ahead
        # handle_sigint=False: prompt_toolkit would replace the loop's SIGINT handler and
        # remove it on exit, leaving Ctrl-C dead for the rest of the session. At the
        # question Ctrl-C is a key (the terminal is raw) and raises KeyboardInterrupt.
        answer: str = await session.prompt_async(question, handle_sigint=False, default=ahead)
        return answer

    def _show(self, req: ApprovalRequest) -> None:
        out = self._view.console.print
        head, body = call_lines(req.tool_name, req.arguments)
        out(f"\n[bold yellow]? {plain_markup(head)}[/bold yellow]")
        for line in body:
            out(f"  {plain_markup(line)}", highlight=False)
        if req.reason:
            out(f"  [dim]asked because:[/dim] {plain_markup(req.reason)}")
        out(
            "  [bold]y[/bold] allow once · [bold]a[/bold] allow always for this session · "
            "[bold]n[/bold] deny (then a reason, if you like)"
        )

    async def _answer(self, req: ApprovalRequest) -> ChannelAnswer:
        from prompt_toolkit import PromptSession

        session: PromptSession[str] = PromptSession(key_bindings=_escape_cancels())
        session.app.key_processor.before_key_press += self._key_pressed
        while True:
            asked = await self._ask(session, "Allow? [y/a/n] ")
            given = asked.strip().lower()
            outcome = _CHOICES.get(given)
            if outcome == "allowed-once" or outcome == "allowed-always":
                return outcome
            if outcome == "rejected":
                break
            self._view.console.print("  [dim]answer y, a or n[/dim]")
        reason = await self._ask(session, "Reason (Enter for none): ")
        reason = reason.strip()
        if not reason:
            return ApprovalAnswer("rejected", "the user denied this call")
        if self._steer is not None:
            self._steer(f"I denied the {req.tool_name} call: {reason}")
        return ApprovalAnswer("rejected", f"the user denied this call: {reason}")

    def _key_pressed(self, _processor: object) -> None:
        self._last_key = time.monotonic()


def _escape_cancels() -> Any:
    """Esc at the question cancels it as Ctrl-C does (eager: not the start of a sequence)."""
    from prompt_toolkit.key_binding import KeyBindings

    keys = KeyBindings()

    @keys.add("escape", eager=True)
    def _cancel(event: Any) -> None:
        event.app.exit(exception=KeyboardInterrupt())

    return keys


def call_lines(tool: str, arguments: Mapping[str, Any]) -> tuple[str, list[str]]:
    """A call as a person reads it: ``Bash(ls -la)`` as the tool line shows it, then what it
    would do in full (a command's text, a file's path and size, each other argument)."""
    summary = _one_line(next((arguments[k] for k in _SUMMARY_KEYS if k in arguments), ""))
    head = f"{tool}({summary[:_MAX_HEAD]}{'…' if len(summary) > _MAX_HEAD else ''})"
    body: list[str] = []
    for key, value in arguments.items():
        if key == "content" and isinstance(value, str):
            body.append(f"{key}: {len(value.splitlines())} lines, {len(value)} characters")
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if len(text) > _MAX_ARGS:
            text = text[:_MAX_ARGS] + "…"
        if key in _SUMMARY_KEYS and text == summary:
            continue  # already the head
        first, *rest = text.splitlines() or [""]
        body.append(f"{key}: {first}")
        body += [f"  {line}" for line in rest]
    return head, body


def _one_line(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return " ".join(text.split())
