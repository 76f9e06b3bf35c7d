"""Decoding a Claude Code command hook's result: exit code, stderr and optional JSON.

Claude Code's rules (reference §2.2, §2.4): exit 0 with stdout that looks like a
JSON object is parsed (a parse or schema failure is a non-blocking error); other
stdout is plain text; exit 2 is a blocking error whose message is stderr (JSON
on stdout is still read); any other exit code does not block, unless valid JSON
decides. ``hookSpecificOutput.hookEventName`` must name the event. The JSON's
schema is in ``_models.py``, imported when a hook prints JSON; the answer value
is ``_answer.py``'s ``HookAnswer``.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from dsh.base import UnsafeJSONError, load_json
from dsh.hook_protocol import HookDecodeError, HookRun, WrongEvent
from dsh.hooks.claude.answers._answer import HookAnswer

if TYPE_CHECKING:
    from dsh.hooks.claude.answers._caps import Saver

__all__ = ["decode_answer"]


def _parse_json(text: str) -> dict[str, Any] | None:
    """The stdout as a JSON object when it looks like one; ``HookDecodeError`` if broken."""
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return None
    try:
        data = load_json(stripped)
    except UnsafeJSONError as exc:
        raise HookDecodeError(f"stdout looks like JSON but does not parse: {exc}") from exc
    if not isinstance(data, dict):  # pragma: no cover - braces make it an object
        raise HookDecodeError("stdout JSON is not an object")
    return data


def decode_answer(
    run: HookRun, event: str, save: Saver | None = None
) -> HookAnswer | WrongEvent | None:
    """What ``run`` says for ``event``; ``None`` when it ran fine and said nothing.

    Every text of the answer is capped at Claude Code's 10,000 characters (``answers._caps``;
    ``save``: a longer context or stdout saved to a file and previewed instead).
    """
    answer = _decode(run, event)
    if isinstance(answer, HookAnswer):
        from dsh.hooks.claude.answers._caps import cap_answer

        return cap_answer(answer, run, save)
    return answer


def _decode(run: HookRun, event: str) -> HookAnswer | WrongEvent | None:
    code = run.exit_code
    assert code is not None  # hook_outcome decodes only runs that exited
    if code == 2:
        try:
            data = _parse_json(run.stdout)
            answer = _from_json(2, data, event) if data is not None else None
        except HookDecodeError:
            answer = None
        if not isinstance(answer, HookAnswer):
            answer = HookAnswer(exit_code=2)
        return _with_block(answer, run.stderr)
    try:
        data = _parse_json(run.stdout)
    except HookDecodeError:
        if code != 0:
            raise HookDecodeError(_nonzero(run), kind="nonzero_exit") from None
        raise
    if data is None:
        if code != 0:
            raise HookDecodeError(_nonzero(run), kind="nonzero_exit")
        text = run.stdout.strip()
        return HookAnswer(exit_code=0, plain=text) if text else None
    return _from_json(code, data, event)


def _from_json(exit_code: int, data: dict[str, Any], event: str) -> HookAnswer | WrongEvent:
    # The output's schema (with msgspec) comes only when a hook prints JSON.
    from dsh.hooks.claude.answers._models import answer_from_json

    return answer_from_json(exit_code, data, event)


def _with_block(answer: HookAnswer, stderr: str) -> HookAnswer:
    return dataclasses.replace(answer, blocking_error=stderr)


def _nonzero(run: HookRun) -> str:
    from dsh.hooks.claude.answers._caps import cap_text

    first = run.stderr.strip().splitlines()[0] if run.stderr.strip() else "No stderr output"
    # 2.1.332's words, as its transcript records them: the exit code is not in them.
    return f"Failed with non-blocking status code: {cap_text(first)}"
