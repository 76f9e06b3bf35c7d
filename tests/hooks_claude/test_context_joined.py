"""Hook contexts of one step reach the model as one system message, as 2.1.332 sends them.

``tests/fixtures/claude_strict.json`` (``benchmarks/record_claude_strict.py``), cases
``context-joined`` (one Bash call; two context hooks each on SessionStart,
UserPromptSubmit, PreToolUse, PostToolUse and PostToolBatch) and
``context-joined-two-calls`` (two Bash calls in one step): 2.1.332 folds consecutive system
texts into one ``role: "system"`` message, joined by a blank line, so a step's PreToolUse,
PostToolUse and PostToolBatch contexts (call by call, then the batch's) are one message.
The replay runs the same hooks and model replies through the real loop and renders each
request on the Anthropic wire (``dsh.models._anthropic_body``): the step's system message
must be the recorded one. 2.1.332 runs one event's hooks in parallel and lists their
contexts as they finish (the recordings show both orders); dsh lists them in declaration
order, so within one event's group the contexts are compared as a set.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dsh.models import ModelRequest, ScriptedModel
from dsh.models._anthropic_body import ThinkingStore, messages_body
from tests.agent.support import make_harness
from tests.hooks_claude.bridge_support import mount_hooks

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "claude_strict.json"
_PREFIX = re.compile(r"^(\w+(?::\w+)?) hook additional context: ")


class Capturing(ScriptedModel):
    """The scripted model, keeping each request as the loop made it."""

    seen: list[ModelRequest]

    async def complete(self, request: ModelRequest, **options: Any) -> Any:
        self.seen.append(request)
        return await super().complete(request, **options)


def system_texts(request: ModelRequest) -> list[str]:
    """The texts of the request's ``system`` messages on the Anthropic wire."""
    body = messages_body("claude-x", request, max_tokens=1, thinking=ThinkingStore())
    return [b["text"] for m in body["messages"] if m["role"] == "system" for b in m["content"]]


def groups(text: str) -> list[tuple[str, list[str]]]:
    """A folded hook text as its runs of one event: each prefix with its contexts, sorted."""
    out: list[tuple[str, list[str]]] = []
    for part in text.split("\n\n"):
        match = _PREFIX.match(part)
        assert match is not None, part
        label, contexts = match.group(1), part[match.end() :].split("\n")
        if out and out[-1][0] == label:
            out[-1] = (label, sorted([*out[-1][1], *contexts]))
        else:
            out.append((label, sorted(contexts)))
    return out


@pytest.mark.parametrize("name", ["context-joined", "context-joined-two-calls"])
async def test_a_steps_contexts_are_one_system_message(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = json.loads(FIXTURE.read_text())[name]
    script = {"anthropic": {"rules": [{"has_tool": "Bash", "responses": case["case"]["replies"]}]}}
    harness = make_harness(tmp_path, script)
    model = Capturing(script)
    model.seen = []
    harness.model = model
    hooks = {
        event: [{"matcher": "*", "hooks": [{"type": "command", "command": c} for c in commands]}]
        for event, commands in case["case"]["hooks"].items()
    }
    rig = mount_hooks(tmp_path, monkeypatch, harness, hooks, None)
    await rig.run("go")
    recorded = case["requests"][-1]["messages"][-1]
    assert recorded["role"] == "system"
    (want,) = [b["text"] for b in recorded["content"]]
    ours = system_texts(model.seen[-1])
    assert ours, "no system message after the step"
    assert groups(ours[-1]) == groups(want)
