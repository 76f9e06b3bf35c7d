"""Changing a live session: switching its model, and adding a working directory.

``agent/model-switch`` is a waterfall a plugin may answer with a denial (the model stays);
after an allowed switch ``agent/model-switched`` notifies as the next turn begins.
``agent/directory-added`` notifies when a directory joins the session's working
directories. Between turns only: a switch asked for while a turn runs is refused, so no
model call ever straddles two models.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base._union import ClosedUnion
from dsh.context import NotifyChannel, WaterfallChannel

if TYPE_CHECKING:
    from dsh.agent._agent import Agent
    from dsh.models import Model

__all__ = [
    "DIRECTORY_ADDED",
    "MODEL_SWITCH",
    "MODEL_SWITCHED",
    "DirectorySource",
    "ModelSwitchAllow",
    "ModelSwitchDecision",
    "ModelSwitchDeny",
    "ModelSwitchRequest",
    "ModelSwitchSource",
    "ModelSwitchVariant",
]

ModelSwitchSource: TypeAlias = Literal["sdk", "command", "picker", "auto", "resume"]
"""Who asked: a client's control request, the ``/model`` command, a picker, the host, a resume."""

DirectorySource: TypeAlias = Literal["register_repo_root", "slash_command", "flag"]
"""How a directory joined: a client's control request, ``/add-dir``, a command-line flag."""


@final
@frozen(kw_only=True)
class ModelSwitchRequest:
    """A switch from ``from_model`` to ``to_model`` (names), as ``requested`` (an alias)."""

    from_model: str
    to_model: str
    requested: str
    source: ModelSwitchSource


class ModelSwitchDecision(ClosedUnion):
    """``agent/model-switch``'s answer: switch (``ModelSwitchAllow``), or keep the model."""

    __slots__ = ()
    kind: ClassVar[Literal["allow", "deny"]]

    @staticmethod
    def allow() -> ModelSwitchAllow:
        return ModelSwitchAllow()

    @staticmethod
    def deny(reason: str) -> ModelSwitchDeny:
        return ModelSwitchDeny(reason)


@final
@frozen
class ModelSwitchAllow(ModelSwitchDecision):
    """The session goes on with the new model."""

    kind: ClassVar[Literal["allow"]] = "allow"


@final
@frozen
class ModelSwitchDeny(ModelSwitchDecision):
    """The model stays; ``reason`` is shown to whoever asked."""

    kind: ClassVar[Literal["deny"]] = "deny"
    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.reason, str) or not self.reason.strip():
            raise ValueError("ModelSwitchDecision.deny needs a non-empty reason")


ModelSwitchVariant: TypeAlias = ModelSwitchAllow | ModelSwitchDeny


def _allow_switch(agent: Agent, request: ModelSwitchRequest) -> ModelSwitchDecision:
    return ModelSwitchDecision.allow()


MODEL_SWITCH: Final[WaterfallChannel[ModelSwitchDecision, Agent, ModelSwitchRequest]] = (
    WaterfallChannel("agent/model-switch", default=_allow_switch, returns=ModelSwitchDecision)
)
"""Before the session's model changes: allow, or deny with a reason (the model stays)."""

MODEL_SWITCHED: Final[NotifyChannel[Agent, ModelSwitchRequest]] = NotifyChannel(
    "agent/model-switched"
)
"""The session's model changed: fired as the next turn begins, before its prompts (so a run
that ends after a switch fires none, as 2.1.332's ``/model`` in ``-p`` mode)."""

DIRECTORY_ADDED: Final[NotifyChannel[Agent, Path, DirectorySource]] = NotifyChannel(
    "agent/directory-added"
)
"""``(agent, directory, source)``: an absolute directory joined the working directories."""


async def switch_model(
    agent: Agent, model: Model, *, requested: str, source: ModelSwitchSource
) -> ModelSwitchVariant:
    """Ask ``agent/model-switch``; on allow, make ``model`` the session's and notify."""
    if agent.running:
        return ModelSwitchDecision.deny("the model cannot change while a turn runs")
    request = ModelSwitchRequest(
        from_model=agent.model.name, to_model=model.name, requested=requested, source=source
    )
    try:
        decision = await agent.ctx.waterfall(MODEL_SWITCH, agent, request)
    except Exception as exc:  # a broken policy keeps the model (fails closed)
        return ModelSwitchDecision.deny(f"the model switch check failed: {exc}")
    if isinstance(decision, ModelSwitchDeny):
        return decision
    agent._set_model(model, request)
    return ModelSwitchAllow()


async def add_directory(agent: Agent, directory: Path, *, source: DirectorySource) -> Path:
    """Add ``directory`` (``~`` expanded, joined to the session's current directory, ``..``
    folded) to the working directories and notify; once each."""
    path = _absolute(directory, agent.workspace.cwd)
    if path not in agent.directories:
        agent._add_directory(path)
        await agent.ctx.emit(DIRECTORY_ADDED, agent, path, source)
    return path


def _absolute(directory: Path, cwd: Path) -> Path:
    return Path(os.path.normpath(os.path.join(cwd, os.path.expanduser(directory))))
