"""Project trust on the command line: `dsh hooks trust`, `--trust-project`, the prompt's seam.

What a project controls (its own hooks, its instructions files, the plugins only its
settings enable) runs only once the user trusted it (each profile that
is a ``dsh.host.TrustingProfile`` keeps its records). ``dsh hooks trust``
shows every hook it trusts and records it; ``dsh hooks check`` lists what is
not trusted; a headless ``dsh run`` leaves untrusted hooks out with one
notice, and ``--trust-project`` is the same as accepting the trust prompt.
An interactive front end asks with ``ask_to_trust`` before it opens the host.

Only click is imported at module level: ``_main`` imports this module at
start-up for its decorators.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from dsh.host import Profile

__all__ = [
    "ask_to_trust",
    "hook_source_options",
    "hooks_trust",
    "run_profiles",
    "trust_profiles",
    "trust_project_option",
    "untrusted_lines",
    "untrusted_report",
]


def trust_project_option(f: Any) -> Any:
    """``dsh run --trust-project``: trust the project's hooks as they are now, then run."""
    return click.option(
        "--trust-project",
        is_flag=True,
        help="Trust the project's own hooks, instructions files and the plugins its settings "
        "enable, as they are now (recorded, as accepting the trust prompt; see `dsh hooks "
        "trust`), then run. Without it a run leaves untrusted ones out.",
    )(f)


def run_profiles(
    project: Path, settings_files: Sequence[str] = (), plugin_dirs: Sequence[Path] = ()
) -> tuple[Profile, ...]:
    """The profiles a ``dsh run`` in ``project`` with these flags mounts."""
    from dsh.cli._run import NO_MODEL, RunOptions, host_options

    options = RunOptions(
        prompts=(),
        model=NO_MODEL,
        project=project,
        session_dir=project,  # unused: no host is opened
        settings_files=tuple(settings_files),
        plugin_dirs=tuple(plugin_dirs),
        claude_md=True,  # so the review covers the instructions files a run loads
    )
    return tuple(host_options(options).profiles)


def _each_trusting(
    profiles: Sequence[Profile], project: Path, ask: Callable[[Any, Path], Sequence[str]]
) -> list[str]:
    from dsh.host import TrustingProfile

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
    project: Path, settings_files: Sequence[str] = (), plugin_dirs: Sequence[Path] = ()
) -> str:
    """``dsh hooks check``'s trust section: the hooks a run would leave out, or nothing."""
    from dsh.cli._render import terminal_safe

    lines = untrusted_lines(run_profiles(project, settings_files, plugin_dirs), project)
    if not lines:
        return ""
    quoted = shlex.quote(str(project))
    head = f"\nUntrusted (not run until `dsh hooks trust --project {quoted}`):\n"
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


def hook_source_options(project_help: str) -> Callable[[Any], Any]:
    """``--project``, ``--settings`` and ``--plugin-dir``, as ``dsh hooks`` commands take them."""

    def decorate(f: Any) -> Any:
        f = click.option(
            "--plugin-dir",
            "plugin_dirs",
            multiple=True,
            type=click.Path(file_okay=False, exists=True, path_type=Path),
            help="A Claude Code plugin root (its hooks/hooks.json is read), as --plugin-dir.",
        )(f)
        f = click.option(
            "--settings",
            "settings_files",
            multiple=True,
            help="An extra settings file or inline JSON, as Claude Code's --settings.",
        )(f)
        return click.option(
            "--project",
            type=click.Path(file_okay=False, exists=True, path_type=Path),
            default=Path("."),
            show_default=True,
            help=project_help,
        )(f)

    return decorate


@click.command(name="trust")
@hook_source_options("The project whose own hooks to trust.")
def hooks_trust(
    project: Path, settings_files: tuple[str, ...], plugin_dirs: tuple[Path, ...]
) -> None:
    """Trust what the project controls as it is now, showing each item trusted.

    That is its own hooks, the installed plugins only its settings enable, and its
    instructions files (CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md, .claude/rules,
    their imports). Trust is recorded under dsh's data directory with a fingerprint
    of each: a hook's declaration and the project scripts its command names, a
    plugin's root and hooks, a file's text; a change needs trust again. User,
    --settings, managed and --plugin-dir sources always run.
    """
    from dsh.cli._main import _started
    from dsh.cli._render import terminal_safe

    _started()
    root = project.resolve()
    profiles = run_profiles(root, settings_files, plugin_dirs)
    before = {line.split(": ", 2)[-1]: line for line in untrusted_lines(profiles, root)}
    lines = trust_profiles(profiles, root)
    for line in lines:
        key = line.split(": ", 2)[-1]
        changed = " (changed since last trust)" if "changed since" in before.get(key, "") else ""
        click.echo(terminal_safe(line + changed))
    if not lines:
        click.echo(
            f"{terminal_safe(str(root))}: the project declares no hooks, plugins or"
            " instructions files of its own"
        )
    sys.stdout.flush()
