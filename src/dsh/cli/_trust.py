"""Project trust on the command line: `dsh hooks trust`, `--trust-project`, the prompt's seam.

What a project controls (its own hooks, its instructions files, the plugins only its
settings enable) runs only once the user trusted it (each profile that
is a ``dsh.host.TrustingProfile`` keeps its records). ``dsh hooks trust``
shows every hook it trusts and records it; ``dsh hooks check`` lists what is
not trusted; a headless ``dsh run`` leaves untrusted hooks out with one
notice, and ``--trust-project`` is the same as accepting the trust prompt.
An interactive front end asks with ``ask_to_trust`` before it opens the host.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from dsh.cli._process import started
from dsh.cli._render import terminal_safe
from dsh.hooks import HookSelection, mount_bridges
from dsh.host import Profile, TrustingProfile

__all__ = [
    "ask_to_trust",
    "hooks_trust",
    "run_profiles",
    "trust_profiles",
    "untrusted_lines",
    "untrusted_report",
]


def run_profiles(
    project: Path,
    settings_files: Sequence[str] = (),
    plugin_dirs: Sequence[Path] = (),
    codex_profile: str | None = None,
) -> tuple[Profile, ...]:
    """The profiles a ``dsh run`` in ``project`` with these flags mounts (``codex_profile``:
    its ``--profile``, whose ``$CODEX_HOME/NAME.config.toml`` the Codex bridge stacks)."""
    selection = HookSelection(
        settings_files=tuple(settings_files),
        plugin_dirs=tuple(plugin_dirs),
        claude_md=True,  # so the review covers the instructions files a run loads
        codex_profile=codex_profile,
    )
    return tuple(mount_bridges(project, selection).profiles)


def _each_trusting(
    profiles: Sequence[Profile], project: Path, ask: Callable[[Any, Path], Sequence[str]]
) -> list[str]:
    return [
        f"{p.name} hooks: {line}"
        for p in profiles
        if isinstance(p, TrustingProfile)
        for line in ask(p, project)
    ]


def untrusted_lines(profiles: Sequence[Profile], project: Path) -> list[str]:
    """``<profile> hooks: <line>`` for every hook a run would leave out as untrusted."""
    return _each_trusting(profiles, project, lambda p, root: p.untrusted(root))


def trust_profiles(profiles: Sequence[Profile], project: Path) -> list[str]:
    """Trust every hook the profiles' project declares now; one line per hook trusted."""
    return _each_trusting(profiles, project, lambda p, root: p.trust(root))


def untrusted_report(
    project: Path,
    settings_files: Sequence[str] = (),
    plugin_dirs: Sequence[Path] = (),
    codex_profile: str | None = None,
) -> str:
    """``dsh hooks check``'s trust section: the hooks a run would leave out, or nothing."""
    profiles = run_profiles(project, settings_files, plugin_dirs, codex_profile)
    lines = untrusted_lines(profiles, project)
    if not lines:
        return ""
    command = f"dsh hooks trust --project {shlex.quote(str(project))}"
    if codex_profile is not None:  # a plain name (``_run_flags``): nothing to quote
        command += f" --profile {codex_profile}"
    head = f"\nUntrusted (not run until `{command}`):\n"
    return terminal_safe(head + "".join(f"  {line}\n" for line in lines))


def ask_to_trust(
    profiles: Sequence[Profile], project: Path, ask: Callable[[Sequence[str]], bool]
) -> bool:
    """The interactive trust prompt's logic: ``ask`` is shown the untrusted hooks (if any).

    Returns whether every hook may run: ``True`` when nothing was untrusted, or
    ``ask`` accepted (trust is then recorded); ``False`` when it declined (the
    run then leaves those hooks out, as a headless one does).
    """
    pending = untrusted_lines(profiles, project)
    if not pending:
        return True
    if not ask(pending):
        return False
    trust_profiles(profiles, project)
    return True


def hooks_trust(
    project: Path,
    settings_files: tuple[str, ...],
    plugin_dirs: tuple[Path, ...],
    config_profile: str | None = None,
) -> None:
    """``dsh hooks trust``'s work: trust what the project controls now, each item shown
    (``config_profile``: ``--profile``, whose file's Codex hooks are trusted too)."""
    started()
    root = project.resolve()
    profiles = run_profiles(root, settings_files, plugin_dirs, config_profile)
    lines = trust_profiles(profiles, root)
    for line in lines:
        click.echo(terminal_safe(line))
    if not lines:
        click.echo(
            f"{terminal_safe(str(root))}: the project declares no hooks, plugins or"
            " instructions files of its own"
        )
    sys.stdout.flush()
