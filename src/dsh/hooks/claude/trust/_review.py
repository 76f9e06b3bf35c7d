"""The trust review of a project: everything it controls that runs only once trusted.

Five kinds of things a cloned repository puts in front of dsh, each with a
fingerprint kept in the project's trust record (``dsh.hooks.claude.trust._records``):

* the hooks its own settings files declare (the declaration and the project
  files its command names);
* the installed plugins that only its settings' ``enabledPlugins`` turn on
  (the plugin's id, its root, where it was enabled and each of its hooks with
  the plugin files they name): untrusted, the plugin is not mounted at all;
* the widening entries of its ``.claude/settings.json`` permissions
  (``permissions.allow``, ``additionalDirectories``: ``trust._gated``),
  which Claude Code ignores in an untrusted workspace;
* the MCP servers of its ``.mcp.json`` (``ServerTrust``: a server is a command, or a URL
  with headers, like a hook's): untrusted, the server is not started;
* its instructions files (``CLAUDE.md``, ``.claude/CLAUDE.md``,
  ``CLAUDE.local.md``, ``.claude/rules/*`` and what they import, in every
  directory of the walk down to the project): these follow the project's
  trust (``project_trusted``: the user trusted it once), edits included, as in
  Claude Code; their fingerprints are recorded but no longer decide.

A run that fails closed (``dsh run`` headless) does not start while a project
hook or plugin is not trusted (``TrustReview.refusal``).

User-level, ``--settings``, managed and ``--plugin-dir`` sources always run.
``TrustReview`` is the whole review (``dsh hooks check``, ``dsh hooks trust``,
the run's one notice); ``TrustGate`` is the ``InstructionsGate`` a run's
instructions loader asks at each session start, against the record as it is.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, final

from dsh._frozen import frozen
from dsh.base import FrozenDict
from dsh.hook_protocol import TrustRecord, write_record
from dsh.hook_protocol._trust_record import TrustState, state_of
from dsh.hooks.claude.settings._types import Catalog, HookDeclaration
from dsh.hooks.claude.trust._gated import GatedEntry, gated_entries
from dsh.hooks.claude.trust._records import (
    HookTrust,
    catalog_bound,
    hook_entry,
    hook_fingerprint,
    hook_trust,
    permission_entry,
    permissions_trust,
    place,
    project_trusted,
    read_record,
    shown,
)
from dsh.instructions import LoadedInstructions, find_instructions
from dsh.instructions._gate import fingerprint, project_controlled, shown_path

if TYPE_CHECKING:
    from dsh.mcp import McpServer

__all__ = [
    "FileTrust",
    "PluginTrust",
    "ServerTrust",
    "TrustGate",
    "TrustReview",
    "project_instructions",
    "record_review",
    "review_trust",
    "trusted_catalog",
]


_REFUSAL_ITEMS = 20
"""The untrusted hooks and plugins a refusal names one by one; the rest are counted."""


@final
@frozen(kw_only=True)
class FileTrust:
    """One of the project's instructions files and whether it may load."""

    item: LoadedInstructions
    fingerprint: str
    state: TrustState

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"

    def where(self, project: Path) -> str:
        return f"instructions {shown_path(self.item.file.path, project)}"

    def describe(self, project: Path) -> str:
        """``instructions file CLAUDE.md (Project)``, with its importer when imported."""
        file = self.item.file
        text = f"instructions file {shown_path(file.path, project)} ({file.scope}"
        if file.parent_path is not None:
            text += f", imported by {shown_path(file.parent_path, project)}"
        return text + ")"


@final
@frozen(kw_only=True)
class PluginTrust:
    """An installed plugin only the project's settings enable, and whether it may run."""

    plugin: str
    root: Path
    enabled_in: str
    hooks: tuple[HookDeclaration, ...]
    fingerprint: str
    state: TrustState

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"

    def where(self, project: Path) -> str:
        return f"plugin {self.plugin}"

    def describe(self, project: Path) -> str:
        """``plugin x@m enabled in .claude/settings.json (/root): its hooks E[0][0]: cmd; ...``."""
        text = f"plugin {self.plugin} enabled in {shown_path(Path(self.enabled_in), project)}"
        text += f" ({self.root})"
        if not self.hooks:
            return text + ": no hooks (its commands and skills)"
        listed = "; ".join(
            f"{h.event}[{h.origin().group}][{h.origin().index}]: {shown(h)}" for h in self.hooks
        )
        return f"{text}: its hooks {listed}"


@final
@frozen(kw_only=True)
class ServerTrust:
    """One MCP server of the project's ``.mcp.json`` and whether it may start."""

    server: McpServer
    fingerprint: str
    state: TrustState

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"

    def where(self, project: Path) -> str:
        return f"mcp server {self.server.name}"

    def describe(self, project: Path) -> str:
        """``MCP server github in .mcp.json: npx -y server-github``."""
        return f"MCP server {self.server.name} in .mcp.json: {self.server.shown()}"


def server_fingerprint(server: McpServer) -> str:
    """What the user trusts of a project server: everything that says what runs and where."""
    declared = {
        "name": server.name,
        "transport": server.transport,
        "command": server.command,
        "args": list(server.args),
        "env": dict(server.env),
        "url": server.url,
        "headers": dict(server.headers),
    }
    text = json.dumps(declared, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


@final
@frozen(kw_only=True)
class TrustReview:
    """What a project controls, each item with its trust state, and a problem with the record."""

    project: Path
    hooks: tuple[HookTrust, ...]
    plugins: tuple[PluginTrust, ...]
    files: tuple[FileTrust, ...]
    problem: str | None
    permissions: tuple[GatedEntry, ...] = ()
    """The project's widening permission entries (``trust._gated``)."""
    permissions_trusted: frozenset[str] = frozenset()
    """The fingerprints of those trusted."""
    servers: tuple[ServerTrust, ...] = ()
    """The project's ``.mcp.json`` servers."""
    changed: frozenset[int] = frozenset()
    """After ``record_review``: the places, in ``lines(every=True)``'s order, of the items
    that had changed since they were last trusted."""

    def items(self) -> tuple[HookTrust | PluginTrust | FileTrust | ServerTrust, ...]:
        """Every reviewed item, in the order ``lines(every=True)`` names them (the places
        ``changed`` counts)."""
        return (*self.hooks, *self.plugins, *self.files, *self.servers)

    def lines(self, *, every: bool = False) -> list[str]:
        """``<state>: <item>`` for each untrusted item (``every``: each item)."""
        found = [
            f"{i.state}: {i.describe(self.project)}" for i in self.items() if every or not i.trusted
        ]
        for entry in self.permissions:
            trusted = entry.fingerprint in self.permissions_trusted
            if every or not trusted:
                state = "trusted" if trusted else "not trusted yet"
                found.append(f"{state}: {entry.describe(self.project)}")
        return found

    def recorded_lines(self) -> list[str]:
        """What ``dsh hooks trust`` recorded: ``trusted: <item>`` for each item, marked
        ``(changed since last trust)`` where it was before (``changed``), so the command
        reviews the project once."""
        return [
            line + (" (changed since last trust)" if n in self.changed else "")
            for n, line in enumerate(self.lines(every=True))
        ]

    def untrusted_permissions(self) -> tuple[GatedEntry, ...]:
        return tuple(e for e in self.permissions if e.fingerprint not in self.permissions_trusted)

    def refusal(self, trust_command: str) -> str | None:
        """Why a run that fails closed does not start (``None``: it may): each project hook
        and project-enabled plugin not trusted, with why, and the ways forward, the first
        ``trust_command`` (the exact ``dsh hooks trust`` command line)."""
        hooks = [h for h in self.hooks if not h.trusted]
        plugins = [p for p in self.plugins if not p.trusted]
        servers = [s for s in self.servers if not s.trusted]
        if not hooks and not plugins and not servers:
            return None
        counted = [f"{len(hooks)} hook(s)"] if hooks else []
        counted += [f"{len(plugins)} plugin(s) its settings enable"] if plugins else []
        counted += [f"{len(servers)} MCP server(s)"] if servers else []
        items: list[HookTrust | PluginTrust | ServerTrust] = [*hooks, *plugins, *servers]
        shown = items[:_REFUSAL_ITEMS]  # the message stays a screen, whatever is configured
        listed = "".join(f"\n  {i.state}: {i.describe(self.project)}" for i in shown)
        if len(items) > len(shown):
            quoted = shlex.quote(str(self.project))
            listed += (
                f"\n  ... and {len(items) - len(shown)} more (`dsh hooks check --project"
                f" {quoted}` lists them all)"
            )
        listed += "" if self.problem is None else f"\n  ({self.problem})"
        return (
            f"the project {self.project} has {' and '.join(counted)} not trusted, so this run"
            " does not start (no one is there to ask, and a guard left out would not guard):"
            f"{listed}"
            f"\nTrust them as they are now, then run again: {trust_command}"
            "\nOr trust them and run in one step: rerun with --trust-project (recorded, as"
            " `dsh hooks trust` records it)"
            "\nOr run without them: rerun with --skip-untrusted-hooks"
        )

    def notice(self) -> str | None:
        """The one notice of a run that leaves untrusted items out, or ``None``."""
        parts = []
        hooks = [h for h in self.hooks if not h.trusted]
        if hooks:
            listed = "; ".join(f"{place(h.hook, self.project)} ({h.state})" for h in hooks)
            parts.append(f"{len(hooks)} hook(s) not run: {listed}")
        plugins = [p for p in self.plugins if not p.trusted]
        if plugins:
            listed = "; ".join(f"{p.plugin} ({p.state})" for p in plugins)
            parts.append(f"{len(plugins)} plugin(s) its settings enable not run: {listed}")
        servers = [s for s in self.servers if not s.trusted]
        if servers:
            listed = "; ".join(f"{s.server.name} ({s.state})" for s in servers)
            parts.append(f"{len(servers)} MCP server(s) of .mcp.json not started: {listed}")
        files = [f for f in self.files if not f.trusted]
        if files:
            listed = "; ".join(
                f"{shown_path(f.item.file.path, self.project)} ({f.state})" for f in files
            )
            parts.append(f"{len(files)} instructions file(s) not loaded: {listed}")
        if not parts:
            return None
        quoted = shlex.quote(str(self.project))
        text = (
            f"warning: the untrusted project {self.project}: {'; '.join(parts)}."
            f" Review them with `dsh hooks check --project {quoted}`, trust them with"
            f" `dsh hooks trust --project {quoted}`, or run with --trust-project"
        )
        return text if self.problem is None else f"{text} ({self.problem})"


def project_instructions(
    project: Path, *, config_dir: Path, managed_dir: Path | None = None
) -> list[LoadedInstructions]:
    """The project's own instructions files a session start would load (before trust)."""
    loaded = find_instructions(project, config_dir=config_dir, managed_dir=managed_dir)
    return [item for item in loaded if project_controlled(item)]


def _plugin_root(catalog: Catalog, plugin: str) -> Path | None:
    """The root of a plugin whose hook files the catalog loaded (``None``: nothing runs)."""
    for entry in catalog.sources:
        source = entry.source
        if source.plugin == plugin and source.plugin_root is not None and entry.status == "loaded":
            return source.plugin_root
    return None


def _plugins(catalog: Catalog, record: TrustRecord) -> tuple[PluginTrust, ...]:
    project = catalog.project_dir
    found = []
    for plugin, enabled_in in catalog.project_plugins.items():
        root = _plugin_root(catalog, plugin)
        if root is None:
            continue
        hooks = tuple(
            h
            for h in catalog.all_hooks()
            if h.source.kind == "plugin" and h.source.plugin == plugin
        )
        declared = {
            "plugin": plugin,
            "root": str(root),
            "enabled_in": shown_path(Path(enabled_in), project),
            "hooks": [hook_fingerprint(h, project, root)[0] for h in hooks],
        }
        text = json.dumps(declared, sort_keys=True, ensure_ascii=True)
        digest = hashlib.sha256(text.encode()).hexdigest()
        state = state_of(digest, f"plugin {plugin}", record)
        found.append(
            PluginTrust(
                plugin=plugin,
                root=root,
                enabled_in=enabled_in,
                hooks=hooks,
                fingerprint=digest,
                state=state,
            )
        )
    return tuple(found)


def _of_plugin(hook: HookDeclaration, plugins: set[str]) -> bool:
    return hook.source.kind == "plugin" and hook.source.plugin in plugins


def _files(
    project: Path, files: Sequence[LoadedInstructions], record: TrustRecord
) -> tuple[FileTrust, ...]:
    """Each file's state: the project's (``project_trusted``), as Claude Code loads a trusted
    workspace's files whatever they say now. The record's ``instructions`` fingerprints
    are still written (``record_review``) but no longer decide."""
    state: TrustState = "trusted" if project_trusted(record) else "not trusted yet"
    return tuple(
        FileTrust(item=item, fingerprint=fingerprint(item, project), state=state) for item in files
    )


def review_trust(
    catalog: Catalog,
    trust_dir: Path | None = None,
    files: Sequence[LoadedInstructions] = (),
    servers: Sequence[McpServer] = (),
) -> TrustReview:
    """Every item of the project's (its hooks, the plugins it enables, ``files``, its
    ``.mcp.json`` ``servers``) and its state."""
    project = catalog.project_dir
    record = read_record(project, trust_dir, bound=catalog_bound(catalog))
    hooks, problem = hook_trust(catalog, trust_dir, record)
    trusted, _untrusted = permissions_trust(catalog, trust_dir, record)
    return TrustReview(
        project=project,
        hooks=hooks,
        plugins=_plugins(catalog, record),
        files=_files(project, [f for f in files if project_controlled(f)], record),
        problem=problem,
        permissions=gated_entries(catalog.permissions),
        permissions_trusted=trusted,
        servers=tuple(_server_trust(s, record) for s in servers),
    )


def _server_trust(server: McpServer, record: TrustRecord) -> ServerTrust:
    digest = server_fingerprint(server)
    state = state_of(digest, f"mcp server {server.name}", record)
    return ServerTrust(server=server, fingerprint=digest, state=state)


def record_review(
    catalog: Catalog,
    trust_dir: Path | None = None,
    files: Sequence[LoadedInstructions] = (),
    servers: Sequence[McpServer] = (),
) -> TrustReview:
    """Trust everything the project controls now (the record then holds exactly that)."""
    review = review_trust(catalog, trust_dir, files, servers)
    project = review.project
    write_record(
        project,
        trust_dir,
        {
            "hooks": [hook_entry(h, project) for h in review.hooks],
            "plugins": _entries(review.plugins, project),
            "instructions": _entries(review.files, project),
            "permissions": [permission_entry(e, project) for e in review.permissions],
            "mcp_servers": _entries(review.servers, project),
        },
    )
    changed = (n for n, i in enumerate(review.items()) if i.state == "changed since trusted")
    return dataclasses.replace(
        review,
        changed=frozenset(changed),
        hooks=tuple(dataclasses.replace(h, state="trusted") for h in review.hooks),
        plugins=tuple(dataclasses.replace(p, state="trusted") for p in review.plugins),
        files=tuple(dataclasses.replace(f, state="trusted") for f in review.files),
        servers=tuple(dataclasses.replace(s, state="trusted") for s in review.servers),
        permissions_trusted=frozenset(e.fingerprint for e in review.permissions),
        problem=None,
    )


def _entries(
    items: Sequence[PluginTrust | FileTrust | ServerTrust], project: Path
) -> list[Mapping[str, str]]:
    """The record's entries of ``items``: each one's fingerprint and where it is."""
    return [{"fingerprint": i.fingerprint, "where": i.where(project)} for i in items]


def trusted_catalog(catalog: Catalog, review: TrustReview) -> Catalog:
    """``catalog`` without the project hooks and project-enabled plugins that are not trusted.

    An untrusted plugin's files are ``disabled`` sources, so its commands and skills
    are not mounted either."""
    refused = {id(h.hook) for h in review.hooks if not h.trusted}
    plugins = {p.plugin for p in review.plugins if not p.trusted}
    if not refused and not plugins:
        return catalog
    kept = {
        event: tuple(
            h
            for h in declared
            if id(h) not in refused
            and not (h.source.kind == "plugin" and h.source.plugin in plugins)
        )
        for event, declared in catalog.hooks.items()
    }
    note = "enabled by the project's settings, which are not trusted"
    sources = tuple(
        dataclasses.replace(e, status="disabled", admitted=0, note=note)
        if e.source.kind == "plugin" and e.source.plugin in plugins
        else e
        for e in catalog.sources
    )
    return dataclasses.replace(
        catalog, hooks=FrozenDict({e: h for e, h in kept.items() if h}), sources=sources
    )


class TrustGate:
    """The ``InstructionsGate`` of a run: the project's files load once the project is trusted.

    The record is read again at each session start (``project_trusted``); the
    files' text is not compared with what was trusted (Claude Code loads a trusted
    workspace's files, edits included). ``announced`` are the files the run's trust
    notice already named; only others are named again.
    """

    def __init__(
        self,
        project: Path,
        trust_dir: Path | None,
        announced: Sequence[str] = (),
        *,
        bound: int | None = None,
    ) -> None:
        self.project = project
        self.trust_dir = trust_dir
        self.announced = set(announced)
        self.bound = bound  # the record's bound grows with the catalog (``catalog_bound``)

    def admit(
        self, loaded: Sequence[LoadedInstructions], /
    ) -> tuple[list[LoadedInstructions], str | None]:
        record = read_record(self.project, self.trust_dir, bound=self.bound)
        mine = [item for item in loaded if project_controlled(item)]
        refused = {id(f.item): f for f in _files(self.project, mine, record) if not f.trusted}
        admitted = [item for item in loaded if id(item) not in refused]
        named: list[str] = []
        for f in refused.values():
            shown_as = shown_path(f.item.file.path, self.project)
            if shown_as not in self.announced:
                self.announced.add(shown_as)
                named.append(f"{shown_as} ({f.state})")
        if not named:
            return admitted, None
        quoted = shlex.quote(str(self.project))
        return admitted, (
            f"warning: {len(named)} instructions file(s) of the untrusted project {self.project}"
            f" not loaded: {'; '.join(named)}. Trust them with"
            f" `dsh hooks trust --project {quoted}`, or run with --trust-project"
        )
