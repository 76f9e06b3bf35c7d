"""``/model NAME`` as a ``dsh run`` prompt: switch the session's model, not a turn.

As Claude Code's slash command in ``-p`` mode: the switch asks ``agent/model-switch``
(PreModelSwitch, ``source: command``) and no model request follows; the answer is one line,
``Set model to `NAME` for this session only``, or ``Model switch to NAME was blocked by a
PreModelSwitch hook: R``. ``/model`` alone names the current model.
"""

from __future__ import annotations

from collections.abc import Callable

from dsh.agent import Agent
from dsh.base import DshError
from dsh.models import Model

__all__ = ["model_command", "run_model_command", "slash_argument"]


def slash_argument(prompt: str, command: str) -> str | None:
    """What follows ``command`` (``/model``, ``/compact``, ...) in a prompt that is that
    command (``""`` for nothing), else ``None``."""
    text = prompt.strip()
    if text == command:
        return ""
    if text.startswith(command) and text[len(command)].isspace():
        return text[len(command) :].strip()
    return None


def model_command(prompt: str) -> str | None:
    """The model a ``/model [NAME]`` prompt names (``""`` for none), else ``None``."""
    return slash_argument(prompt, "/model")


async def run_model_command(
    agent: Agent,
    prompt: str,
    *,
    resolve_model: Callable[[str], Model],
    say: Callable[[str], object],
) -> bool:
    """Run ``/model NAME``: ``say`` the outcome; whether the model changed."""
    name = model_command(prompt)
    if not name:
        say(f"Current model: {agent.model.name}")
        return False
    try:
        model = resolve_model(name)
    except (DshError, OSError, ValueError) as exc:
        say(f"Model {name!r} is not available: {exc}")
        return False
    decision = await agent.switch_model(model, requested=name, source="command")
    from dsh.agent import ModelSwitchDeny  # a switch's (loaded with it): not every run's

    if isinstance(decision, ModelSwitchDeny):
        say(f"Model switch to {model.name} was blocked by a PreModelSwitch hook: {decision.reason}")
        return False
    say(f"Set model to `{model.name}` for this session only")
    return True
