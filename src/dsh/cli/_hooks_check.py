"""``dsh hooks check``'s work: every hook source, declaration and diagnosis, per bridge.

Claude Code's catalog report first (``Catalog.render_report``), then its agents' and
skills' frontmatter (``frontmatter_report``: nothing for a project without them), then the
Codex side (its sources, trust, hooks and diagnostics), then the project hooks not trusted
yet (``_trust.untrusted_report``). Exits 1 when a declaration is diagnosed; untrusted hooks
do not change the exit code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from dsh.cli._process import started
from dsh.cli._render import terminal_safe
from dsh.cli._trust import untrusted_report
from dsh.hooks.claude import frontmatter_report, load_catalog
from dsh.hooks.codex import CODEX_EVENT_SUPPORT, CodexProfile

__all__ = ["codex_check_report", "hooks_check"]


def hooks_check(
    project: Path,
    settings_files: tuple[str, ...],
    plugin_dirs: tuple[Path, ...],
    config_profile: str | None = None,
) -> None:
    started()
    root = project.resolve()
    catalog = load_catalog(root, settings_files=settings_files, plugin_roots=plugin_dirs)
    click.echo(terminal_safe(catalog.render_report()), nl=False)
    frontmatter, frontmatter_ok = frontmatter_report(root, plugin_roots=plugin_dirs)
    click.echo(terminal_safe(frontmatter), nl=False)
    codex, codex_ok = codex_check_report(root, config_profile=config_profile)
    click.echo(terminal_safe(codex), nl=False)
    click.echo(untrusted_report(root, settings_files, plugin_dirs, config_profile), nl=False)
    sys.exit(0 if catalog.ok and codex_ok and frontmatter_ok else 1)


def codex_check_report(
    project: Path, *, bypass_trust: bool = False, config_profile: str | None = None
) -> tuple[str, bool]:
    """``dsh hooks check``'s Codex section, and whether it found nothing to report
    (``config_profile``: ``--profile``, ``None`` for ``$DSH_CODEX_PROFILE``)."""
    profile = CodexProfile(bypass_trust=bypass_trust, config_profile=config_profile)
    catalog, layer = profile.gated(project)
    lines = ["Codex hooks (0.171):"]
    lines += [f"  source: {s}" for s in catalog.sources] or ["  no Codex hook source found"]
    lines.append(f"  project trusted: {'yes' if catalog.project_trusted else 'no'}")
    if layer is not None:
        lines.append(f"  project layer: {layer.summary()}")
    for hook in catalog.hooks:
        row = CODEX_EVENT_SUPPORT[hook.event]
        lines.append(f"  {hook.origin().describe()}: {hook.command!r} [{hook.trust}; {row.status}]")
    lines += [f"  {d.severity}: {d.describe()}" for d in catalog.diagnostics]
    untrusted = profile.untrusted(project)
    lines += [f"  untrusted: {line}" for line in untrusted]
    ok = not catalog.errors and not untrusted
    return "\n".join(lines) + "\n", ok
