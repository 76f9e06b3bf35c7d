"""The ``Profile`` seam: what a protocol bridge brings to a host, described structurally.

A bridge (Claude Code's today, Codex's next) sits below the host in the
layers, so the host never imports one: it accepts anything shaped like a
``Profile``. Whatever a profile hands back is made of plain values and
``dsh.context`` plugins, so the bridge needs nothing from ``dsh.host`` either.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, final, runtime_checkable

from dsh._frozen import frozen
from dsh.context import Plugin

__all__ = ["Profile", "ProfileDiagnostic", "ProfileMount", "TrustingProfile"]


class ProfileMount(Protocol):
    """What a profile found for one project: the plugins to mount and what it did not admit."""

    @property
    def hooks(self) -> Plugin | None:
        """The plugin that runs the admitted hooks on dsh's seams (``None``: none admitted)."""
        ...

    @property
    def instructions(self) -> Plugin | None:
        """The plugin that loads the protocol's instructions files (``None``: not loaded)."""
        ...

    @property
    def diagnostics(self) -> Sequence[str]:
        """One line per hook declaration (or file) the catalog did not admit as written."""
        ...


class Profile(Protocol):
    """A protocol's support, as a host mounts it: ``load`` its catalog for a project.

    ``name`` names the profile's scopes (``<name>-hooks``, ``<name>-instructions``)
    and its diagnostics. The command-line flags that configure a profile stay
    with the command: declaring them would mean importing the bridge at every
    start of ``dsh``, ``--version`` included (see ``docs/embedding.md``).
    """

    @property
    def name(self) -> str: ...

    def load(self, project: Path, /) -> ProfileMount:
        """Read ``project``'s declarations; never raises for bad input (that is a diagnostic)."""
        ...


@runtime_checkable
class TrustingProfile(Profile, Protocol):
    """A profile whose project-declared hooks run only once the user trusted them.

    ``dsh hooks trust`` calls ``trust`` on every profile of a run that is one,
    ``dsh hooks check`` lists ``untrusted``; ``dsh run --trust-project`` (the
    equivalent of accepting the trust prompt) calls ``trust`` before loading.
    """

    def trust(self, project: Path, /) -> Sequence[str]:
        """Record trust for every hook `project` declares now; one line per hook or file trusted."""
        ...

    def untrusted(self, project: Path, /) -> Sequence[str]:
        """One line per declared hook that would not run because it is untrusted (with why)."""
        ...


@final
@frozen
class ProfileDiagnostic:
    """A line of a profile's diagnostics, with the profile that reported it."""

    profile: str
    text: str

    def __str__(self) -> str:
        return f"{self.profile} hooks: {self.text}"
