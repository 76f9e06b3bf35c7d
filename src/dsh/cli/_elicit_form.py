"""``TerminalElicitationForm``: an MCP server's ``elicitation/create`` asked at dsh's terminal.

A listener on ``mcp/elicitation`` mounted after every other (the Claude Code bridge's
``Elicitation`` hooks answer first; its ``ElicitationResult`` hooks then see what the form
gave). The live region is paused, the server's message shown (terminal-safe), and each
field of the request's ``requestedSchema`` asked in turn: its title or name, type,
description, choices (``enum``, ``oneOf`` constants) and default; an empty answer takes the
default, a required field without one is asked again, a value of the wrong type too.
Then ``Send? [Y/n]``: ``n`` declines. Esc, Ctrl-C or Ctrl-D at any question cancels the
form (the server gets ``cancel``), as at a permission prompt. A ``url`` request shows its
URL and asks whether to go on (accept) or not (decline). Forms never overlap. A form left
waiting tells the Notification hooks, as 2.1.332's terminal does (``elicitation_dialog``).
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from dsh.cli._approval_prompt import _escape_cancels
from dsh.cli._render import plain_markup
from dsh.mcp import ElicitationAnswer, ElicitationRequest

if TYPE_CHECKING:
    from dsh.cli._live import LiveView
    from dsh.context import Next

__all__ = ["TerminalElicitationForm"]

_MAX_FIELDS: Final = 50
_MAX_TEXT: Final = 2000
_YES: Final = frozenset({"y", "yes", "true", "1"})
_NO: Final = frozenset({"n", "no", "false", "0"})
_NEEDS_INPUT: Final = "Claude Code needs your input"
"""2.1.332's Notification text for an elicitation dialog left waiting."""


def _choices(schema: Mapping[str, Any]) -> list[str] | None:
    """The values a string field (or an array's items) may take, when it names them."""
    if isinstance(schema.get("enum"), list):
        return [str(v) for v in schema["enum"]]
    options = schema.get("oneOf") or schema.get("anyOf")
    if isinstance(options, list):
        found = [str(o["const"]) for o in options if isinstance(o, dict) and "const" in o]
        return found or None
    return None


def _parse(schema: Mapping[str, Any], text: str) -> tuple[bool, Any]:
    """``(True, value)`` for ``text`` read as the field says, else ``(False, why)``."""
    kind = schema.get("type")
    if kind == "boolean":
        word = text.lower()
        if word in _YES or word in _NO:
            return True, word in _YES
        return False, "answer y or n"
    if kind in ("integer", "number"):
        try:
            value: float | int = int(text) if kind == "integer" else float(text)
        except ValueError:
            return False, f"answer a{'n integer' if kind == 'integer' else ' number'}"
        return True, value
    if kind == "array":
        items = schema.get("items")
        allowed = _choices(items) if isinstance(items, dict) else None
        words = [w.strip() for w in text.split(",") if w.strip()]
        if allowed is not None and any(w not in allowed for w in words):
            return False, f"answer some of: {', '.join(allowed)} (comma-separated)"
        return True, words
    allowed = _choices(schema)
    if allowed is not None and text not in allowed:
        return False, f"answer one of: {', '.join(allowed)}"
    return True, text


class TerminalElicitationForm:
    """Asks at the terminal (see the module docstring)."""

    __slots__ = ("_last_key", "_lock", "_view")

    def __init__(self, view: LiveView) -> None:
        self._view = view
        self._lock = asyncio.Lock()
        self._last_key = -math.inf
        """When a key was last pressed at the form (``time.monotonic``)."""

    async def answer(
        self, caller: Any, request: ElicitationRequest, nxt: Next[ElicitationAnswer]
    ) -> ElicitationAnswer:
        async with self._lock:
            with self._view.paused():
                answered = self._waiting(caller, request)
                try:
                    return await self._form(request)
                except (KeyboardInterrupt, EOFError):
                    self._view.console.print("  [dim]cancelled[/dim]")
                    return ElicitationAnswer.cancel()
                finally:
                    answered()

    def _waiting(self, caller: Any, request: ElicitationRequest) -> Callable[[], None]:
        """2.1.332's terminal says ``Claude Code needs your input`` (``elicitation_dialog``,
        ``elicitation_url_dialog`` for a URL) once nothing was typed at the form for 6 s, as
        at a permission question (``notify_when_idle``); what stops that."""
        from dsh.agent import calling_agent, dialog_notify_delay, notify_when_idle

        agent = calling_agent(caller)
        if agent is None:
            return lambda: None
        url = request.params.get("mode") == "url"
        kind = "elicitation_url_dialog" if url else "elicitation_dialog"
        delay = dialog_notify_delay()
        return notify_when_idle(agent, _NEEDS_INPUT, kind, delay, lambda: self._last_key)

    def _key_pressed(self, _processor: object) -> None:
        self._last_key = time.monotonic()

    def _out(self, text: str) -> None:
        self._view.console.print(text, highlight=False)

    async def _ask(self, session: Any, question: str, default: str = "") -> str:
        # handle_sigint=False, as at the permission prompt: Ctrl-C is a key here.
        answer: str = await session.prompt_async(question, handle_sigint=False, default=default)
        return answer.strip()

    async def _form(self, request: ElicitationRequest) -> ElicitationAnswer:
        from prompt_toolkit import PromptSession

        params = request.params
        message = str(params.get("message", ""))[:_MAX_TEXT]
        self._out(f"\n[bold yellow]? MCP server {plain_markup(request.server)} asks:[/bold yellow]")
        self._out(f"  {plain_markup(message)}")
        self._out("  [dim](Esc or Ctrl-C cancels)[/dim]")
        session: PromptSession[str] = PromptSession(key_bindings=_escape_cancels())
        session.app.key_processor.before_key_press += self._key_pressed
        if params.get("mode") == "url":
            self._out(f"  {plain_markup(str(params.get('url', ''))[:_MAX_TEXT])}")
            went = await self._ask(session, "Go on? [y/n] ")
            return ElicitationAnswer("accept" if went.lower() in _YES else "decline")
        schema = params.get("requestedSchema")
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        required = schema.get("required") if isinstance(schema, Mapping) else None
        needed = set(required) if isinstance(required, list) else set()
        content: dict[str, Any] = {}
        fields = list(properties.items())[:_MAX_FIELDS] if isinstance(properties, Mapping) else []
        for name, field in fields:
            if isinstance(field, Mapping):
                value = await self._field(session, str(name), field, name in needed)
                if value is not None:
                    content[str(name)] = value
        sent = await self._ask(session, "Send? [Y/n] ")
        if sent.lower() in _NO:
            return ElicitationAnswer.decline()
        return ElicitationAnswer.accept(content)

    async def _field(
        self, session: Any, name: str, field: Mapping[str, Any], required: bool
    ) -> Any:
        """One field's value (``None``: left out), asked until it reads."""
        title = str(field.get("title") or name)[:200]
        kind = str(field.get("type", "string"))
        self._out(
            f"  [bold]{plain_markup(title)}[/bold] ({kind}{', required' if required else ''})"
        )
        if isinstance(field.get("description"), str):
            self._out(f"    {plain_markup(field['description'][:_MAX_TEXT])}")
        items = field.get("items") if kind == "array" else field
        allowed = (_choices(items) if isinstance(items, Mapping) else None) or []
        if allowed:
            self._out(f"    choices: {plain_markup(', '.join(allowed)[:_MAX_TEXT])}")
        default = field.get("default")
        shown = "" if default is None else json.dumps(default, ensure_ascii=False)[:200]
        while True:
            text = await self._ask(session, f"  {name}{f' [{shown}]' if shown else ''}: ")
            if not text:
                if default is not None:
                    return default
                if not required:
                    return None
                self._out("    [dim]required[/dim]")
                continue
            ok, value = _parse(field, text)
            if ok:
                return value
            self._out(f"    [dim]{plain_markup(str(value))}[/dim]")
