"""What a run's mount leaves out until the project is trusted (``ClaudeCodeProfile.load``).

``gate_mount`` applies the project's trust to what the profile discovered: the catalog
without the project's untrusted hooks, widening permission entries and ``env``, the
project's untrusted MCP servers left out, the instructions files behind a ``TrustGate``,
and one line per kind of thing left out; or, failing closed, ``UntrustedHooksError``.
``untrusted_frontmatter`` says the same of project agents' and skills' frontmatter hooks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, final

from dsh._frozen import frozen

if TYPE_CHECKING:
    from dsh.hooks.claude.settings._agents import AgentSet
    from dsh.hooks.claude.settings._commands import CommandSet
    from dsh.hooks.claude.settings._types import Catalog
    from dsh.hooks.claude.trust._review import TrustReview
    from dsh.instructions import InstructionsGate, LoadedInstructions
    from dsh.mcp import McpServer

__all__ = ["GatedMount", "gate_mount", "untrusted_frontmatter"]


@final
@frozen
class GatedMount:
    """The trusted part of a discovery: what may be mounted, and what was said about the rest.

    ``declared`` is the catalog as discovered (what ``left_out_selections`` compares with);
    ``frontmatter_trusted`` whether agents' and skills' frontmatter hooks of the project may run.
    """

    catalog: Catalog
    declared: Catalog
    servers: tuple[McpServer, ...]
    review: TrustReview | None = None
    notice: str | None = None
    ignored: tuple[str, ...] = ()
    gate: InstructionsGate | None = None
    frontmatter_trusted: bool = True


def gate_mount(
    catalog: Catalog,
    servers: tuple[McpServer, ...],
    *,
    trust_dir: Path | None,
    instructions: list[LoadedInstructions],
    trust_command: Callable[[Path], str] | None,
) -> GatedMount:
    """``catalog`` and ``servers`` as far as the project is trusted; ``trust_command`` (the
    way forward it names) given, anything untrusted raises ``UntrustedHooksError`` instead."""
    from dsh.hooks.claude.trust._records import catalog_bound
    from dsh.hooks.claude.trust._review import TrustGate, review_trust, trusted_catalog
    from dsh.instructions._gate import shown_path

    project_servers = tuple(s for s in servers if s.source == "project")
    review = review_trust(catalog, trust_dir, instructions, project_servers)
    refused_servers = {s.server.name for s in review.servers if not s.trusted}
    kept = tuple(s for s in servers if s.source != "project" or s.name not in refused_servers)
    refusal = review.refusal(trust_command(review.project)) if trust_command else None
    if refusal is not None:
        from dsh.hook_protocol import UntrustedHooksError

        raise UntrustedHooksError(refusal)
    bound = catalog_bound(catalog)
    trusted = trusted_catalog(catalog, review)
    refused = [f.item.file.path for f in review.files if not f.trusted]
    gate = TrustGate(
        trusted.project_dir,
        trust_dir,
        [shown_path(path, trusted.project_dir) for path in refused],
        bound=bound,
    )
    trusted, ignored = _trusted_permissions(trusted, trust_dir)
    trusted = _trusted_env(trusted, trust_dir)
    return GatedMount(
        trusted,
        catalog,
        kept,
        review=review,
        notice=review.notice(),
        ignored=ignored,
        gate=gate,
        frontmatter_trusted=_project_trusted(trusted.project_dir, trust_dir),
    )


def _project_trusted(project: Path, trust_dir: Path | None) -> bool:
    """Whether the user trusted ``project`` (its agents' and skills' hooks may run)."""
    from dsh.hooks.claude.trust._records import project_trusted, read_record

    return project_trusted(read_record(project, trust_dir))


def untrusted_frontmatter(agents: AgentSet, commands: CommandSet, project: Path) -> tuple[str, ...]:
    """One line per project agent or skill whose frontmatter hooks an untrusted project
    leaves out (2.1.332 runs a project agent's only in a trusted folder)."""
    files = [a.path for a in agents.project_hooks()] + [c.path for c in commands.project_hooks()]
    if not files:
        return ()
    shown = ", ".join(
        str(p.relative_to(project)) if p.is_relative_to(project) else str(p) for p in files
    )
    return (
        f"warning: frontmatter hooks of {shown} left out: the project is not trusted"
        " (`dsh hooks trust` or --trust-project trusts it)",
    )


def _trusted_permissions(
    catalog: Catalog, trust_dir: Path | None
) -> tuple[Catalog, tuple[str, ...]]:
    """``catalog`` without the project's widening permission entries unless they are
    trusted, and Claude Code's notice for each kind left out (with how to trust)."""
    import dataclasses
    import shlex

    from dsh.hooks.claude.trust._gated import ignored_notices, without_gated
    from dsh.hooks.claude.trust._records import permissions_trust

    trusted, entries = permissions_trust(catalog, trust_dir)
    if not entries:
        return catalog, ()
    quoted = shlex.quote(str(catalog.project_dir))
    how = (
        f". Review them with `dsh hooks check --project {quoted}`, trust them with"
        f" `dsh hooks trust --project {quoted}`, or run with --trust-project"
    )
    notices = tuple(
        f"warning: {line}{how}" for line in ignored_notices(entries, catalog.project_dir)
    )
    gated = dataclasses.replace(catalog, permissions=without_gated(catalog.permissions, trusted))
    return gated, notices


def _trusted_env(catalog: Catalog, trust_dir: Path | None) -> Catalog:
    """``catalog`` without the project's own ``env`` (project and local settings) until the
    user trusted the project: a variable there (``PATH``, ``LD_PRELOAD``) would change what
    every hook and command runs."""
    import dataclasses

    from dsh.hooks.claude.trust._records import project_trusted, read_record

    if project_trusted(read_record(catalog.project_dir, trust_dir)):
        return catalog
    kept = tuple(
        (source, values)
        for source, values in catalog.env_layers
        if source.kind not in ("project", "local")
    )
    return dataclasses.replace(catalog, env_layers=kept, project_env_trusted=False)
