"""The pieces the live view prints: a file's coloured diff, a folded block, a hook run's line.

Pure functions from values to rich renderables or plain strings, so the live
view (``_live``) stays about timing and order. Every text from a hook, a tool
or the model goes through ``terminal_safe`` here before rich sees it.
"""

from __future__ import annotations

import difflib
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dsh.cli._render import terminal_safe

if TYPE_CHECKING:
    from rich.text import Text

__all__ = [
    "EDIT_TOOLS",
    "MAX_SNAPSHOT_BYTES",
    "command_text",
    "file_diff",
    "fold",
    "hook_decision",
    "hook_failure",
    "read_snapshot",
]

EDIT_TOOLS: Final = frozenset({"Write", "Edit", "MultiEdit"})
"""Tools whose call is shown as a diff of the file they change."""

MAX_SNAPSHOT_BYTES: Final = 1_000_000
_MAX_DIFF_LINES: Final = 40
_MAX_COMMAND: Final = 100


def read_snapshot(path: Path) -> str | None:
    """The text of ``path`` now, or ``None`` (absent, unreadable, a directory, too big)."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_SNAPSHOT_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def file_diff(name: str, before: str | None, after: str | None) -> Text | None:
    """A unified diff of ``name`` from ``before`` to ``after``, coloured; ``None`` if unchanged."""
    from rich.text import Text

    if after is None or before == after:
        return None
    old = (before or "").splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    lines = list(
        difflib.unified_diff(
            old, new, "/dev/null" if before is None else f"a/{name}", f"b/{name}", n=2
        )
    )
    text = Text()
    shown = lines[2:]  # the ---/+++ header says less than the tool line above it
    for line in shown[:_MAX_DIFF_LINES]:
        body = terminal_safe(line.rstrip("\n"))
        style = (
            "green"
            if line.startswith("+")
            else "red"
            if line.startswith("-")
            else "cyan"
            if line.startswith("@@")
            else "dim"
        )
        text.append("    " + body + "\n", style=style)
    if len(shown) > _MAX_DIFF_LINES:
        text.append(f"    … ({len(shown) - _MAX_DIFF_LINES} more diff lines)\n", style="dim")
    return text


def fold(text: str, lines: int) -> tuple[str, int]:
    """The first ``lines`` lines of ``text`` and how many were left out."""
    parts = text.rstrip("\n").split("\n")
    if len(parts) <= lines:
        return "\n".join(parts), 0
    return "\n".join(parts[:lines]), len(parts) - lines


def command_text(argv: Sequence[str]) -> str:
    """A hook's command as declared: the script of ``sh -c SCRIPT``, else the argv joined."""
    shown = argv[-1] if len(argv) >= 3 and argv[-2] == "-c" else shlex.join(argv)
    shown = " ".join(shown.split())
    return shown if len(shown) <= _MAX_COMMAND else shown[: _MAX_COMMAND - 1] + "…"


def hook_decision(result: Any) -> str:
    """What one ``hook/result`` decided, in a few words (``no decision`` when it abstained)."""
    decision = getattr(result, "decision", None)
    if not isinstance(decision, Mapping):
        reason = getattr(result, "no_decision", None)
        return "no decision" if reason in (None, "abstained") else str(reason).replace("_", " ")
    if decision.get("blocking_error") is not None:
        return "block (exit 2)"
    output = decision.get("output")
    if isinstance(output, Mapping):
        words = _output_words(output)
        if words:
            return ", ".join(words)
    if decision.get("plain"):
        return "output"
    return "ok"


def _output_words(output: Mapping[str, Any]) -> list[str]:
    words: list[str] = []
    if output.get("continue") is False:
        words.append("stop")
    if output.get("decision") in ("block", "approve"):
        words.append(str(output["decision"]))
    specific = output.get("hookSpecificOutput")
    if isinstance(specific, Mapping):
        permission = specific.get("permissionDecision")
        if isinstance(permission, str):
            words.append(permission)
        request = specific.get("decision")
        if isinstance(request, Mapping) and isinstance(request.get("behavior"), str):
            words.append(str(request["behavior"]))
        if specific.get("updatedInput") is not None:
            words.append("input rewritten")
        if specific.get("additionalContext"):
            words.append("context")
    if output.get("systemMessage"):
        words.append("message")
    return [terminal_safe(w)[:40] for w in words]


def hook_failure(result: Any, command: str) -> str | None:
    """A non-blocking failure as Claude Code shows it, or ``None`` (the hook did not fail).

    ``<event> hook error`` and the detail: the bridge's reason when it gave
    one (``Failed with non-blocking status code: ...``, ``timed out after
    5s``), else one built from the run. Exit 2's stderr reaches the user
    through the bridge's own notice, so it is not repeated here.
    """
    event = str(getattr(result, "hook_event", "hook"))
    kind = getattr(result, "no_decision", None)
    if getattr(result, "timed_out", False):
        kind = "timed_out"
    elif getattr(result, "cancelled", False):
        kind = "cancelled"
    if kind is None or kind == "abstained":
        return None
    if kind == "cancelled":
        return f"{event} hook [{command}]: Hook cancelled"
    given = str(getattr(result, "reason", "") or "").strip()
    if kind == "nonzero_exit":
        if not given.startswith("Failed with"):
            stderr = str(getattr(result, "stderr", "")).strip()
            first = stderr.splitlines()[0] if stderr else "No stderr output"
            given = f"Failed with non-blocking status code: {first}"
        return f"{event} hook error\n{given}"
    if kind == "timed_out" and not given:
        given = f"[{command}] timed out (its process group was killed)"
    return f"{event} hook error: {given or str(kind).replace('_', ' ')}"
