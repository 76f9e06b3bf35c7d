"""Bare ``dsh``'s work: Claude Code's command line as one ``dsh run``.

``FrontGroup`` (``_front_flags``) hands over the prompt's words and the group's
flags: ``-p`` runs as ``dsh run`` does (headless), otherwise the run is
interactive at a terminal with PROMPT as its first turn. ``--max-turns`` is
``--max-steps``; ``--allowedTools`` and ``--disallowedTools`` become the
``permissions`` of one more inline ``--settings`` (Claude Code's rules, enforced
by the Claude Code bridge like the settings files' own).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Final

from dsh.cli._run_command import RunFlags, run_flags

__all__ = ["front", "tool_rules"]

_RULE: Final = re.compile(r"[^\s,(]+(?:\([^)]*\))?")
"""One rule in a --allowedTools list: a tool name, with its parenthesised pattern if any."""


def tool_rules(values: tuple[str, ...]) -> list[str]:
    """``--allowedTools``' values as rules: each comma or space separated, a ``(...)`` kept
    whole (``"Bash(git log:*) Edit"`` is two)."""
    return [m.group(0) for value in values for m in _RULE.finditer(value)]


def front(prompt: tuple[str, ...], **params: Any) -> None:
    """``dsh [PROMPT]`` with the group's flags: ``-p`` headless, else interactive."""
    print_mode = params.pop("print_mode")
    max_turns = params.pop("max_turns")
    allowed = tool_rules(params.pop("allowed_tools"))
    denied = tool_rules(params.pop("disallowed_tools"))
    if max_turns is not None:
        params["max_steps"] = max_turns
    if allowed or denied:
        permissions = {"allow": allowed, "deny": denied}
        extra = json.dumps({"permissions": permissions})
        params["settings_files"] = (*params["settings_files"], extra)
    flags = RunFlags.of({**params, "prompt": prompt}, front="print" if print_mode else "terminal")
    sys.exit(int(run_flags(flags)))
