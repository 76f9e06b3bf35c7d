"""The side-by-side cases (issue 19), one script for every tool: dsh, Claude Code, Codex.

A case is a prompt, the model's scripted replies and the hook command on each
event. Reply ``i`` is given once ``i`` assistant turns (Codex: ``i`` model
responses) are in the request's history; past the end the last reply repeats.
A reply either says ``text`` or calls the shell once per entry of ``bash``.

Every hook and every shell command leaves a line in a log in the working
directory (``HOOK_LOG``: the event's name; ``TOOL_LOG``: the step's number),
so a run can be checked against ``EXPECT``: a benchmark that silently measures
a failing run is worthless. The hook is the same tiny shell command for every
tool: append one line, print the case's answer (if any), exit 0.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = [
    "CASES",
    "EVENTS",
    "EXPECT",
    "HOOK_LOG",
    "TOOL_LOG",
    "Expect",
    "Reply",
    "SideCase",
]

HOOK_LOG = "hooks.log"
TOOL_LOG = "tools.log"
EVENTS = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")

_DENY = json.dumps(
    {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "denied by the case",
        }
    }
)
_BLOCK = json.dumps({"decision": "block", "reason": "blocked by the case"})


@dataclass(frozen=True)
class Reply:
    text: str = ""
    bash: tuple[str, ...] = ()  # commands to call, one tool call each


@dataclass(frozen=True)
class SideCase:
    name: str
    prompt: str
    replies: tuple[Reply, ...]
    hooks: Mapping[str, str]  # event name -> shell command ("" = none)


@dataclass(frozen=True)
class Expect:
    """What a correct run leaves behind: shell commands run, main-loop model requests, hook runs,
    and the text the hook's answer puts before the model ("": none)."""

    tools: int
    requests: int
    hooks: Mapping[str, int] = field(default_factory=dict)
    seen: str = ""


def _step(n: int) -> str:
    return f"echo {n} >> {TOOL_LOG}"


def _hooks(**answers: str) -> Mapping[str, str]:
    """Every event gets the hook; ``answers`` adds what it prints on some of them."""
    hooks = {}
    for event in EVENTS:
        command = f"echo {event} >> {HOOK_LOG}"
        if answer := answers.get(event, ""):
            command += f"; {answer}"
        hooks[event] = command
    return hooks


_NONE = dict.fromkeys(EVENTS, "")
_DONE = Reply(text="done")

CASES: tuple[SideCase, ...] = (
    SideCase("no-hooks", "go", (_DONE,), _NONE),
    SideCase("one-bash", "go", (Reply(bash=(_step(1),)), _DONE), _hooks()),
    SideCase(
        "pretool-deny",
        "go",
        (Reply(bash=(_step(1),)), _DONE),
        _hooks(PreToolUse=f"echo '{_DENY}'"),
    ),
    SideCase(
        "posttool-block",
        "go",
        (Reply(bash=(_step(1),)), _DONE),
        _hooks(PostToolUse=f"echo '{_BLOCK}'"),
    ),
    SideCase(
        "stop-block-once",
        "go",
        (Reply(text="first"), _DONE),
        _hooks(Stop=f"[ -e stopped ] || {{ touch stopped; echo '{_BLOCK}'; }}"),
    ),
    SideCase(
        "prompt-block", "go", (Reply(text="never"),), _hooks(UserPromptSubmit=f"echo '{_BLOCK}'")
    ),
    SideCase(
        "three-tools",
        "go",
        (Reply(bash=(_step(1),)), Reply(bash=(_step(2),)), Reply(bash=(_step(3),)), _DONE),
        _hooks(),
    ),
)


def _counts(user: int, pre: int, post: int, stop: int) -> Mapping[str, int]:
    return dict(zip(EVENTS, (user, pre, post, stop), strict=True))


EXPECT: Mapping[str, Expect] = {
    "no-hooks": Expect(0, 1, _counts(0, 0, 0, 0)),
    "one-bash": Expect(1, 2, _counts(1, 1, 1, 1)),
    "pretool-deny": Expect(0, 2, _counts(1, 1, 0, 1), "denied by the case"),
    "posttool-block": Expect(1, 2, _counts(1, 1, 1, 1), "blocked by the case"),
    "stop-block-once": Expect(0, 2, _counts(1, 0, 0, 2), "blocked by the case"),
    "prompt-block": Expect(0, 0, _counts(1, 0, 0, 0)),
    "three-tools": Expect(3, 4, _counts(1, 3, 3, 1)),
}
