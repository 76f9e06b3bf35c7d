"""A session's modes and configuration options over ACP: Claude Code's permission modes and
the model.

The permission mode is the Claude Code profile's (``PermissionState.mode``: what hooks are
sent as ``permission_mode`` and what the policy applies); it is offered as ACP session modes
(``modes`` in ``session/new``'s and ``session/load``'s answer, changed with
``session/set_mode``) and, for clients that use configuration options instead, as the
``mode`` option. The model is the ``model`` option (``session/set_config_option``: the
pinned SDK's way; it has no ``session/set_model``): the switch is
``Agent.switch_model``, so PreModelSwitch hooks may refuse it. ``bypassPermissions`` is
offered only to a session that started in it (Claude Code's rule), ``auto`` only while
the session is in it (dsh has no classifier: ``auto`` refuses what it would ask about). A
session without the Claude Code profile has no modes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from acp.schema import (
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from dsh.host import Profile, ProfileMount

__all__ = ["MODES", "MountedProfile", "config_options", "mode_state", "permission_state"]

MODES: Final[dict[str, tuple[str, str]]] = {
    "default": ("Default", "Ask before a call changes files or runs a command"),
    "acceptEdits": ("Accept edits", "Edit files in the working directories without asking"),
    "plan": ("Plan", "Read only: no edits, no commands that change anything"),
    "dontAsk": ("Don't ask", "Deny what would ask"),
    "bypassPermissions": ("Bypass permissions", "Ask nothing (only if the session began so)"),
}
"""Claude Code's permission modes a session may be put in: name and description."""


class MountedProfile:
    """A profile that keeps what it mounted, so the session can reach its permission state."""

    __slots__ = ("inner", "mount")

    def __init__(self, inner: Profile) -> None:
        self.inner = inner
        self.mount: ProfileMount | None = None

    @property
    def name(self) -> str:
        return self.inner.name

    def load(self, project: Path, /) -> ProfileMount:
        self.mount = self.inner.load(project)
        return self.mount

    def __getattr__(self, name: str) -> Any:  # trust and the rest, as the profile has them
        return getattr(self.inner, name)


def permission_state(profiles: Sequence[MountedProfile]) -> Any | None:
    """The first mounted profile's permission state (the Claude Code profile's), if any."""
    for profile in profiles:
        state = getattr(getattr(profile.mount, "permissions", None), "state", None)
        if isinstance(getattr(state, "mode", None), str):
            return state
    return None


def _offered(state: Any, began: str) -> list[str]:
    return [m for m in MODES if m != "bypassPermissions" or began == "bypassPermissions"] + (
        [state.mode] if state.mode not in MODES else []
    )


def mode_state(state: Any | None, began: str) -> SessionModeState | None:
    """The session's modes (``None`` without a permission state)."""
    if state is None:
        return None
    modes = [
        SessionMode(id=m, name=MODES.get(m, (m, ""))[0], description=MODES.get(m, ("", m))[1])
        for m in _offered(state, began)
    ]
    return SessionModeState(current_mode_id=state.mode, available_modes=modes)


def config_options(
    state: Any | None, began: str, model: str, models: Sequence[str]
) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
    """The ``mode`` (with a permission state) and ``model`` options, current values set."""
    options: list[SessionConfigOptionSelect | SessionConfigOptionBoolean] = []
    if state is not None:
        options.append(
            SessionConfigOptionSelect(
                id="mode",
                name="Permission mode",
                description="Claude Code's permission mode for this session",
                category="mode",
                type="select",
                current_value=state.mode,
                options=[
                    SessionConfigSelectOption(value=m, name=MODES.get(m, (m, ""))[0])
                    for m in _offered(state, began)
                ],
            )
        )
    names = [model, *(m for m in models if m != model)]
    options.append(
        SessionConfigOptionSelect(
            id="model",
            name="Model",
            description="The model of this session's next turns (PreModelSwitch may refuse)",
            category="model",
            type="select",
            current_value=model,
            options=[SessionConfigSelectOption(value=m, name=m) for m in names],
        )
    )
    return options


def can_enter(state: Any, began: str, mode: str) -> bool:
    """Whether ``mode`` may be set now."""
    return mode in _offered(state, began)
