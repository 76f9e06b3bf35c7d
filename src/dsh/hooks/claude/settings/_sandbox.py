"""Claude Code's ``sandbox`` settings, read from every settings scope into one sandbox.

``read_sandbox`` gives the ``SandboxPolicy`` the settings ask for (``None``: ``enabled`` is
not true in the scope that decides it). Scalars (``enabled``, ``allowUnsandboxedCommands``)
by settings precedence (managed, command line, local, project, user); lists
(``excludedCommands``, ``filesystem.allowWrite``, ``filesystem.denyWrite``,
``filesystem.denyRead``, ``filesystem.allowRead``) from every scope. Claude Code 2.1.332
sandboxes Bash with bubblewrap and a proxy; dsh maps it onto its own mechanism
(docs/sandbox.md): ``workspace-write`` in the project (and the temp directories),
``allowWrite`` as more writable roots, ``denyWrite`` kept read-only, ``denyRead`` hidden
under an empty read-only mount but where ``allowRead`` re-opens it (it takes precedence; a
pattern is expanded when a command starts; with ``allowManagedReadPathsOnly`` in managed
settings, only managed settings' count), ``excludedCommands`` run outside, the Bash
``dangerouslyDisableSandbox`` field honoured unless ``allowUnsandboxedCommands`` is false.
The keys that widen the sandbox (``allowWrite``, ``allowRead``, ``excludedCommands``) are
not taken from a project's shared ``.claude/settings.json``: a cloned repository must not
open its own sandbox (Claude Code refuses ``allowWrite`` and ``allowRead`` from settings a
repository tracks). ``network.allowedDomains`` (from every scope but the shared project
settings; with ``allowManagedDomainsOnly``, managed settings' only) and
``network.deniedDomains`` (every scope) give the domain filter (a proxy,
``dsh.base._sandbox_proxy``). Where dsh has no mechanism, commands are refused (Claude Code
runs them unsandboxed with a warning).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dsh.base._sandbox import SandboxPolicy
from dsh.hooks.claude.settings._permissions import directory_path, settings_root
from dsh.hooks.claude.settings._sources import SCALAR_PRECEDENCE, Diagnostics, ReadSettings
from dsh.hooks.claude.settings._types import HookSource

__all__ = ["read_sandbox"]


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str) and v] if isinstance(value, list) else []


def _table(block: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = block.get(key)
    return value if isinstance(value, dict) else {}


def _path(text: str, root: Path, home: Path) -> Path:
    """A sandbox path: ``//abs`` and ``/abs`` absolute, ``~/`` from home, else from ``root``."""
    return directory_path(text[1:] if text.startswith("//") else text, root, home)


_WIDENING_NETWORK = ("allowAllUnixSockets", "httpProxyPort", "socksProxyPort")


def _network_keys(
    ranked: list[tuple[HookSource, Mapping[str, Any]]], managed_only: bool, diags: Diagnostics
) -> dict[str, Any]:
    """The Unix-socket and proxy keys of ``sandbox.network`` (Claude Code 2.1.332 on Linux),
    by settings precedence: ``allowAllUnixSockets`` lifts the Unix-socket block,
    ``allowUnixSockets`` has no effect (diagnosed: seccomp cannot allow a socket by path),
    ``allowLocalBinding`` none either (the command's loopback is its own namespace's),
    ``httpProxyPort``/``socksProxyPort`` lead the command's proxy to the user's own (only
    managed settings' under ``allowManagedDomainsOnly``); ``strictAllowlist`` (or
    ``allowManagedDomainsOnly``) refuses an unlisted host instead of asking. The widening
    keys are not taken from a project's shared settings."""
    found: dict[str, Any] = {}
    strict = managed_only
    for source, block in ranked:
        net = _table(block, "network")
        strict = strict or net.get("strictAllowlist") is True
        for key in _WIDENING_NETWORK:
            value = net.get(key)
            if value is None or key in found:
                continue
            if source.kind == "project" or (
                managed_only and key != "allowAllUnixSockets" and source.kind != "managed"
            ):
                why = "managed settings set `allowManagedDomainsOnly`"
                if source.kind == "project":
                    why = "it widens the sandbox: not taken from a project's shared settings"
                diags.add(
                    source, "warning", "ignored-field", f"`sandbox.network.{key}` is ignored: {why}"
                )
                continue
            port = isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536
            if isinstance(value, bool) if key == "allowAllUnixSockets" else port:
                found[key] = value
            else:
                diags.add(source, "warning", "bad-field", f"`sandbox.network.{key}`: {value!r}")
    for source, block in ranked:
        sockets = _strings(_table(block, "network").get("allowUnixSockets"))
        if sockets and found.get("allowAllUnixSockets") is not True:
            diags.add(
                source,
                "warning",
                "ignored-field",
                "`sandbox.network.allowUnixSockets` has no effect on Linux, as in Claude Code"
                " 2.1.332 (a seccomp filter cannot allow a socket by path): Unix sockets stay"
                " blocked; `allowAllUnixSockets: true` allows them all",
            )
    return {
        "unix_sockets": found.get("allowAllUnixSockets") is True,
        "http_proxy_port": found.get("httpProxyPort"),
        "socks_proxy_port": found.get("socksProxyPort"),
        "ask_domains": not strict,
        "proxy_env": "claude",
    }


def read_sandbox(
    settings: Sequence[ReadSettings], project: Path, home: Path, diags: Diagnostics
) -> SandboxPolicy | None:
    """The sandbox of ``settings`` (as discovery read them), or ``None`` when not enabled."""
    blocks: list[tuple[HookSource, Mapping[str, Any]]] = []
    for s in settings:
        raw = s.file.data.get("sandbox") if s.model is not None and s.file.data else None
        if raw is None:
            continue
        if not isinstance(raw, dict):
            diags.add(s.file.source, "warning", "bad-field", "`sandbox` must be an object; ignored")
            continue
        blocks.append((s.file.source, raw))
    ranked = sorted(blocks, key=lambda b: SCALAR_PRECEDENCE.get(b[0].kind, 9))
    enabled = next((b["enabled"] for _, b in ranked if isinstance(b.get("enabled"), bool)), False)
    if not enabled:
        return None
    allow = next(
        (
            b["allowUnsandboxedCommands"]
            for _, b in ranked
            if isinstance(b.get("allowUnsandboxedCommands"), bool)
        ),
        True,
    )
    writable: list[Path] = []
    denied: list[Path] = []
    unreadable: list[Path] = []
    readable: list[Path] = []
    excluded: list[str] = []
    allowed_domains: list[str] = []
    denied_domains: list[str] = []
    managed_domains_only = any(
        source.kind == "managed" and _table(b, "network").get("allowManagedDomainsOnly") is True
        for source, b in blocks
    )
    managed_reads_only = any(
        source.kind == "managed"
        and _table(b, "filesystem").get("allowManagedReadPathsOnly") is True
        for source, b in blocks
    )
    for source, block in blocks:
        root = settings_root(source, project)
        fs = _table(block, "filesystem")
        denied += [_path(p, root, home) for p in _strings(fs.get("denyWrite"))]
        unreadable += [_path(p, root, home) for p in _strings(fs.get("denyRead"))]
        reads = _strings(fs.get("allowRead"))
        domains = _strings(_table(block, "network").get("allowedDomains"))
        widening = (
            _strings(fs.get("allowWrite")),
            _strings(block.get("excludedCommands")),
            reads,
            domains,
        )
        if source.kind == "project" and any(widening):
            denied_domains += _strings(_table(block, "network").get("deniedDomains"))
            diags.add(
                source,
                "warning",
                "ignored-field",
                "`sandbox.filesystem.allowWrite`, `sandbox.filesystem.allowRead`,"
                " `sandbox.network.allowedDomains` and `sandbox.excludedCommands` widen the"
                " sandbox: dsh does not take them from a project's shared settings (put them"
                " in .claude/settings.local.json or user settings)",
            )
            continue
        writable += [_path(p, root, home) for p in widening[0]]
        excluded += widening[1]
        if managed_reads_only and source.kind != "managed" and reads:
            diags.add(
                source,
                "warning",
                "ignored-field",
                "`sandbox.filesystem.allowRead` is ignored: managed settings set"
                " `allowManagedReadPathsOnly`",
            )
        else:
            readable += [_path(p, root, home) for p in reads]
        net = _table(block, "network")
        denied_domains += _strings(net.get("deniedDomains"))
        domains = _strings(net.get("allowedDomains"))
        if managed_domains_only and source.kind != "managed" and domains:
            diags.add(
                source,
                "warning",
                "ignored-field",
                "`sandbox.network.allowedDomains` is ignored: managed settings set"
                " `allowManagedDomainsOnly`",
            )
        else:
            allowed_domains += domains
    where = next(source for source, b in ranked if isinstance(b.get("enabled"), bool))
    network = _network_keys(ranked, managed_domains_only, diags)
    return SandboxPolicy(
        **network,
        mode="workspace-write",
        writable_roots=tuple(writable),
        write_denied=tuple(denied),
        unreadable=tuple(unreadable),
        readable=tuple(readable),
        allowed_domains=tuple(dict.fromkeys(allowed_domains)),
        denied_domains=tuple(dict.fromkeys(denied_domains)),
        excluded_commands=tuple(excluded),
        allow_unsandboxed=allow,
        source=f"Claude Code {where.kind} settings {where.path}",
    )
