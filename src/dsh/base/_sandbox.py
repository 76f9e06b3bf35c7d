"""The sandbox of the processes the model drives: its policy, and a spawn inside it.

A ``SandboxPolicy`` is Codex's vocabulary: a mode (``read-only``, ``workspace-write``,
``danger-full-access``), the writable roots beside the project, the temp directories
(``$TMPDIR`` and ``/tmp`` unless excluded), ``network_access``. ``sandbox_spawn`` turns it
into what ``subprocess`` needs for one spawn (``SandboxSpawn``: argv, ``preexec_fn``, the
descriptors to pass), built from the kernel calls of ``_sandbox_kernel``:

- **filesystem**: Landlock, reads anywhere, writes only beneath the writable roots (none
  in ``read-only``) and to ``/dev/null``; every path is resolved by the kernel, so a
  symlink, a ``/proc/self/root`` or ``/proc/PID/cwd`` path reaches only what its target
  allows (and another process's ``/proc`` entries not at all: Landlock forbids ptrace-like
  access to a process outside the sandbox);
- **outside the writable roots**: every mount read-only in the command's own mount
  namespace, the writable roots bound back (``_sandbox_mounts``), so what Landlock does not
  govern (``chmod``, times, owners) fails there with ``EROFS``, as under Codex's bubblewrap;
- **protected paths**: ``.git``, ``.agents``, ``.codex`` and ``.aws`` at the top of each
  writable root (what Codex 0.171 keeps read-only, seen with its binary), ``.dsh`` (dsh's
  project configuration), the Claude Code settings files, and dsh's own data and
  configuration directories: each one that exists is bound read-only in the command's own
  mount namespace, and each of the names missing yet has a placeholder bound so
  (``_sandbox_placeholders``);
- **unreadable paths** (Claude Code's ``denyRead``): each one that exists is covered there
  by an empty read-only mount (a ``tmpfs`` over a directory, ``/dev/null`` over a file),
  but where a **readable** path (``allowRead``, which takes precedence) re-opens it: one at
  or above it uncovers it, one beneath it is bound back in place inside the empty mount;
- **network**: the seccomp filter, unless ``network_access``;
- **privileges**: ``no_new_privs``, so a setuid binary runs with the caller's rights.

In dsh's namespace (``_namespace``) the child joins it itself before it restricts itself
(``setns``: user, then mount, then pid for its children), since a sandboxed ``nsenter``
could not open another process's namespaces, and ``unshare --fork`` (util-linux, beside
``nsenter``) forks the command into the pid namespace and waits for it as ``nsenter``
would. Hooks never come here: the sandbox is the model's.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal, TypeAlias, final, get_args

from dsh._frozen import frozen

if TYPE_CHECKING:
    from dsh.base._sandbox_mounts import MountPlan
    from dsh.base._sandbox_proxy import Asker, ProxyRules, ProxyServer

__all__ = [
    "PROTECTED_NAMES",
    "SANDBOX_MODES",
    "SandboxError",
    "SandboxMode",
    "SandboxPolicy",
    "SandboxSpawn",
    "sandbox_mechanism",
    "sandbox_spawn",
    "sandbox_status",
]

SandboxMode: TypeAlias = Literal["read-only", "workspace-write", "danger-full-access"]
SANDBOX_MODES: tuple[SandboxMode, ...] = get_args(SandboxMode)

PROTECTED_NAMES: Final = (
    ".git",
    ".agents",
    ".codex",
    ".aws",
    ".dsh",
    ".claude/settings.json",
    ".claude/settings.local.json",
)
"""Kept read-only at the top of every writable root: Codex 0.171's four, dsh's project
configuration and the Claude Code settings a command could otherwise rewrite its hooks with."""

_DEVICES: Final = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
_SYSTEM_PATH: Final = "/usr/bin:/bin:/usr/sbin:/sbin"
_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
_CLONE_NEWNET: Final = 0x40000000


class SandboxError(OSError):
    """A sandboxed mode cannot run a command here (no mechanism, or it failed to apply)."""


@final
@frozen(kw_only=True)
class SandboxPolicy:
    """Where a sandboxed command may write and whether it reaches the network.

    ``writable_roots`` are beside the project (absolute); ``protected`` are more paths kept
    read-only (dsh's own state); ``source`` says where the mode came from (``/status``).
    """

    mode: SandboxMode = "danger-full-access"
    writable_roots: tuple[Path, ...] = ()
    network_access: bool = False
    exclude_tmpdir_env_var: bool = False
    exclude_slash_tmp: bool = False
    exclude_project: bool = False
    """The project is not writable in ``workspace-write`` (a Codex permission profile whose
    rules give other roots but not the workspace roots themselves)."""
    protected: tuple[Path, ...] = field(default=())
    source: str = "default"
    excluded_commands: tuple[str, ...] = ()
    """Commands run outside the sandbox (Claude Code's ``excludedCommands``: ``git``, ``docker
    *``): a simple command whose words start with one of these."""
    write_denied: tuple[Path, ...] = ()
    """Paths a sandboxed command may not write (Claude Code's ``filesystem.denyWrite``): one
    that exists is kept read-only as ``protected`` is; one missing yet beneath a writable
    root gets a placeholder at its first missing component (``missing_denied``), so the
    command cannot create it."""
    unreadable: tuple[Path, ...] = ()
    """Paths a sandboxed command cannot read (Claude Code's ``filesystem.denyRead``): each one
    that exists is covered, in the command's own mount namespace, by an empty read-only
    mount (a ``tmpfs`` over a directory, ``/dev/null`` over a file)."""
    readable: tuple[Path, ...] = ()
    """Paths readable even under an ``unreadable`` one (Claude Code's ``filesystem.allowRead``,
    which takes precedence over ``denyRead``); one with ``*``, ``?`` or ``[`` is a pattern,
    standing for the paths it matches when a command starts."""
    allowed_domains: tuple[str, ...] = ()
    """Where the network reaches when it is otherwise off (Claude Code's
    ``network.allowedDomains``: ``example.com``, ``*.example.com``): through a filtering
    proxy, the only thing the command's own network namespace holds (``_sandbox_proxy``)."""
    denied_domains: tuple[str, ...] = ()
    """Domains the proxy refuses even when allowed (Claude Code's ``network.deniedDomains``)."""
    unix_sockets: bool = True
    """Whether a sandboxed command may make ``AF_UNIX`` sockets (Codex: always; Claude Code
    2.1.332 on Linux: only with ``network.allowAllUnixSockets``, its seccomp filter cannot
    allow one socket by path)."""
    ask_domains: bool = False
    """Whether a host none of ``allowed_domains`` matches is asked about (Claude Code's
    "Network request outside of sandbox", through the approval seam) rather than refused;
    it makes the proxy the network even without allowed domains."""
    http_proxy_port: int | None = None
    """The user's own HTTP proxy on the host's loopback (Claude Code's ``httpProxyPort``): the
    command's HTTP proxy port leads there, unfiltered, instead of to dsh's filter."""
    socks_proxy_port: int | None = None
    """The user's own SOCKS proxy on the host's loopback (``socksProxyPort``), likewise."""
    proxy_env: Literal["dsh", "claude"] = "dsh"
    """Which variables point a command at the proxy: dsh's (``HTTP_PROXY``, ``HTTPS_PROXY``,
    ``ALL_PROXY``) or Claude Code 2.1.332's Linux set (``_sandbox_proxy``)."""
    allow_unsandboxed: bool = False
    """Whether a call may ask to run outside the sandbox (Claude Code's Bash
    ``dangerouslyDisableSandbox`` under ``allowUnsandboxedCommands``; Codex's ``on-request``)."""

    def __post_init__(self) -> None:
        if self.mode not in SANDBOX_MODES:
            raise ValueError(f"sandbox mode {self.mode!r} is not one of {', '.join(SANDBOX_MODES)}")

    @property
    def sandboxed(self) -> bool:
        return self.mode != "danger-full-access"

    @property
    def proxied(self) -> bool:
        """Whether commands reach the network through the domain filter (and nothing else)."""
        if not self.sandboxed or self.network_access:
            return False
        ports = self.http_proxy_port is not None or self.socks_proxy_port is not None
        return bool(self.allowed_domains) or self.ask_domains or ports

    def writable(self, project: Path, env: Mapping[str, str]) -> list[Path]:
        """The roots a command may write beneath (none in ``read-only``)."""
        if self.mode != "workspace-write":
            return []
        roots = [*([] if self.exclude_project else [project]), *self.writable_roots]
        tmpdir = env.get("TMPDIR", "")
        if not self.exclude_tmpdir_env_var and os.path.isabs(tmpdir):
            roots.append(Path(tmpdir))
        if not self.exclude_slash_tmp:
            roots.append(Path("/tmp"))
        return roots

    def tops(self, project: Path) -> list[Path]:
        """The roots whose top holds the protected names: the project (when writable) and
        ``writable_roots`` (not the temp directories)."""
        return [*([] if self.exclude_project else [project]), *self.writable_roots]

    def protected_paths(self, project: Path, env: Mapping[str, str]) -> list[Path]:
        """The protected paths that exist and lie beneath a root the command may write: the
        protected names at the top of the project and each writable root (not the temp
        directories), and ``protected`` wherever a writable root holds it."""
        if self.mode != "workspace-write":
            return []
        tops = [r.resolve() for r in self.tops(project)]
        roots = [r.resolve() for r in self.writable(project, env)]
        found: list[Path] = []
        for root in tops:
            found += [root / name for name in PROTECTED_NAMES if os.path.lexists(root / name)]
        for path in (*self.protected, *self.write_denied):
            real = path.resolve()
            if real.exists() and any(real.is_relative_to(r) for r in roots):
                found.append(real)
        return found

    def missing_denied(self, project: Path, env: Mapping[str, str]) -> list[Path]:
        """Where placeholders stand for the ``write_denied`` paths missing yet: each one's
        first missing component (its parent exists), when a writable root holds it (as
        Claude Code's sandbox puts one at the first missing component of a path it
        protects)."""
        if self.mode != "workspace-write":
            return []
        roots = [r.resolve() for r in self.writable(project, env)]
        found: list[Path] = []
        for path in self.write_denied:
            first = path.resolve()  # the existing part's links followed
            if os.path.lexists(first):
                continue
            while not os.path.lexists(first.parent):
                first = first.parent
            if any(first.is_relative_to(r) for r in roots) and first not in found:
                found.append(first)
        return found

    def readable_paths(self) -> list[Path]:
        """The ``readable`` paths that exist (patterns expanded), resolved."""
        import glob  # patterns to expand: a sandboxed spawn's, not a policy's making

        found: set[Path] = set()
        for path in self.readable:
            text = os.fspath(path)
            names = glob.glob(text) if any(c in text for c in "*?[") else [text]
            found |= {Path(name).resolve() for name in names if os.path.exists(name)}
        return sorted(found)

    def unreadable_paths(self) -> list[Path]:
        """The ``unreadable`` paths that exist, resolved (any sandboxed mode), but those at or
        beneath a ``readable`` one (it takes precedence) or beneath another unreadable one
        (its empty mount hides them already)."""
        if not self.sandboxed:
            return []
        allowed = self.readable_paths()
        found = {p.resolve() for p in self.unreadable if p.exists()}
        found = {p for p in found if not any(p.is_relative_to(a) for a in allowed)}
        return sorted(p for p in found if not any(p != q and p.is_relative_to(q) for q in found))

    def reopened(self, hidden: Path) -> list[Path]:
        """The ``readable`` paths strictly beneath the unreadable directory ``hidden`` (not
        those beneath another of them): bound back in place inside its empty mount."""
        inside = [a for a in self.readable_paths() if a != hidden and a.is_relative_to(hidden)]
        return [a for a in inside if not any(a != b and a.is_relative_to(b) for b in inside)]

    def describe(self) -> str:
        """``workspace-write, network off (from --sandbox)``."""
        if not self.sandboxed:
            return f"{self.mode} (from {self.source})"
        net = "network on" if self.network_access else "network off"
        if self.proxied:
            listed = ", ".join(self.allowed_domains)
            if self.ask_domains:
                listed = f"{listed} and " * bool(listed) + "hosts the user allows"
            net = f"network to {listed} only (a proxy)"
        return f"{self.mode}, {net} (from {self.source})"


@final
@frozen
class SandboxSpawn:
    """One sandboxed spawn: what to run, the child's set-up, the descriptors it needs.
    ``close`` (after the spawn, whatever happened) closes dsh's copies of them."""

    argv: list[str]
    preexec: Callable[[], None]
    pass_fds: tuple[int, ...]
    fds: tuple[int, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables the command needs beside its own (the proxy's, when there is one)."""
    proxy: tuple[int, ProxyRules] | None = None
    """The socket the child hands the proxy's listening sockets over, and its rules."""

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)

    def serve(self, ask: Asker | None = None) -> ProxyServer | None:
        """After a spawn, in dsh's event loop: the domain filter on the listening sockets the
        child handed over (``None``: no proxy); ``close`` it when the command has ended.
        ``ask`` settles a host no rule lists, when the rules say to ask."""
        if self.proxy is None:
            return None
        import socket

        from dsh.base._sandbox_proxy import ProxyServer

        channel, rules = self.proxy
        with socket.socket(fileno=channel) as end:
            end.setblocking(False)
            try:
                _, fds, _, _ = socket.recv_fds(end, 1, 2)
            except (OSError, ValueError):
                return None  # the child failed before it handed them over (and did not run)
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            return None
        server = ProxyServer([socket.socket(fileno=fd) for fd in fds], rules, ask)
        server.start()
        return server


def sandbox_mechanism() -> tuple[str | None, str]:
    """The mechanism a sandboxed mode uses here (``None``: none, so it refuses commands),
    and how or why not: ``dsh config show`` and ``/status`` say it."""
    from dsh.base._sandbox_kernel import kernel_support, landlock_abi

    why = kernel_support()
    if why is not None:
        return None, why
    return "landlock+seccomp", (
        f"Landlock ABI {landlock_abi()} for files, a seccomp filter for the network,"
        " a mount namespace for what stays read-only"
    )


def sandbox_status(policy: SandboxPolicy | None) -> str:
    """One line for ``/status``: the session's mode and the mechanism that enforces it."""
    if policy is None or not policy.sandboxed:
        return f"sandbox: none ({'danger-full-access' if policy is None else policy.describe()})"
    mechanism, how = sandbox_mechanism()
    if mechanism is None:
        return f"sandbox: {policy.describe()}; no mechanism here ({how}): commands are refused"
    return f"sandbox: {policy.describe()} on {mechanism} ({how})"


def _find(program: str) -> str | None:
    import shutil  # finding a mechanism: a sandboxed spawn's (shutil imports bz2, lzma)

    return shutil.which(program, path=f"{os.environ.get('PATH', '')}:{_SYSTEM_PATH}")


def sandbox_spawn(
    policy: SandboxPolicy,
    argv: Sequence[str],
    *,
    cwd: Path,
    project: Path,
    env: Mapping[str, str],
    extra_writable: Sequence[Path] = (),
) -> SandboxSpawn:
    """How to spawn ``argv`` inside ``policy``'s sandbox; ``SandboxError`` when it cannot be."""
    from dsh.base._containment import sandbox_namespace
    from dsh.base._sandbox_kernel import KernelCalls, landlock_ruleset

    mechanism, why = sandbox_mechanism()
    if mechanism is None:
        raise SandboxError(f"the {policy.mode} sandbox cannot run commands here: {why}")
    space = sandbox_namespace()
    unshare = _find("unshare") if space is not None else None
    if space is not None and unshare is None:
        raise SandboxError(
            "util-linux's unshare is missing: a sandboxed command cannot join dsh's namespace"
        )
    roots = [*policy.writable(project, env), *extra_writable]
    writable = [str(p) for p in roots]
    plan = _mount_plan(policy, roots, cwd=cwd, project=project, env=env)
    fds: list[int] = []
    try:
        ruleset = landlock_ruleset(writable, _DEVICES)
        fds.append(ruleset)
        joins: list[tuple[int, int, str]] = []
        if space is not None:
            kinds = [("user", _CLONE_NEWUSER)] if space.kind == "user" else []
            kinds += [("mnt", _CLONE_NEWNS), ("pid", _CLONE_NEWPID)]
            for name, flag in kinds:
                fd = os.open(f"/proc/{space.init}/ns/{name}", os.O_RDONLY | os.O_CLOEXEC)
                fds.append(fd)
                joins.append((fd, flag, name))
    except OSError as exc:
        SandboxSpawn([], _nothing, (), tuple(fds)).close()
        raise SandboxError(f"the {policy.mode} sandbox could not be prepared: {exc}") from None
    calls = KernelCalls(_seccomp(policy))
    handover: int | None = None
    proxy: tuple[int, ProxyRules] | None = None
    if policy.proxied:  # the child makes its network namespace and hands the proxy sockets over
        import socket

        from dsh.base._sandbox_proxy import ProxyRules, child_network, proxy_environment

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        handover = theirs.detach()
        fds.append(handover)
        rules = ProxyRules(
            policy.allowed_domains,
            policy.denied_domains,
            policy.ask_domains,
            policy.http_proxy_port,
            policy.socks_proxy_port,
        )
        proxy = (ours.detach(), rules)
    where = os.fsencode(cwd)
    own_userns = space is None and os.geteuid() != 0
    ids = (os.getuid(), os.getgid())

    def enter() -> None:  # in the child, between fork and exec: no imports, no threads
        for fd, flag, name in joins:
            if name != "pid":
                calls.setns(fd, flag, name)
        if own_userns:
            calls.unshare(_CLONE_NEWUSER)
            _map_ids(*ids)
        calls.unshare(_CLONE_NEWNS)
        plan.apply(calls)
        if handover is not None:
            calls.unshare(_CLONE_NEWNET)
            child_network(handover)
        os.chdir(where)  # by path: the directory as this mount namespace shows it
        for fd, flag, name in joins:
            if name == "pid":
                calls.setns(fd, flag, name)  # for its children: unshare --fork's
        calls.restrict(ruleset)

    command = [unshare, "--fork", "--", *argv] if unshare is not None else list(argv)
    env_extra = (
        proxy_environment(policy.proxy_env, policy.http_proxy_port, policy.socks_proxy_port)
        if proxy is not None
        else {}
    )
    return SandboxSpawn(command, enter, (), tuple(fds), env_extra, proxy)


def _mount_plan(
    policy: SandboxPolicy, roots: list[Path], *, cwd: Path, project: Path, env: Mapping[str, str]
) -> MountPlan:
    """The command's mounts (``_sandbox_mounts``): its writable roots, the protected paths
    and placeholders, the unreadable paths and what re-opens them."""
    from dsh.base._sandbox_kernel import mount_flags
    from dsh.base._sandbox_mounts import MountPlan, Reopen, reopen

    protected = policy.protected_paths(project, env)
    if policy.mode == "workspace-write":  # the names missing yet: placeholders (for dsh's life)
        from dsh.base._sandbox_placeholders import hold_placeholders

        tops = [r.resolve() for r in policy.tops(project)]
        protected += [p for p in hold_placeholders(tops) if p not in protected]
        missing = policy.missing_denied(project, env)
        if missing:  # denyWrite paths missing yet: a placeholder at each first missing part
            from dsh.base._sandbox_placeholders import hold_paths

            protected += [p for p in hold_paths(missing) if p not in protected]
    binds = [(os.fsencode(p), mount_flags(str(p))) for p in protected]
    here = cwd.resolve()
    hidden: list[tuple[bytes, bool, list[Reopen]]] = []
    for path in policy.unreadable_paths():
        reopened = policy.reopened(path) if path.is_dir() else []
        # The command could not even enter its directory, unless re-opened.
        if here.is_relative_to(path) and not any(here.is_relative_to(a) for a in reopened):
            raise SandboxError(f"the working directory {cwd} is under a denyRead path ({path})")
        hidden.append((os.fsencode(path), path.is_dir(), [reopen(path, a) for a in reopened]))
    return MountPlan.of(roots, binds, hidden, mount_flags("/dev/null"))


def _seccomp(policy: SandboxPolicy) -> bytes | None:
    """The seccomp program of ``policy``'s commands (``None``: none): the network off (but
    the proxy's loopback), or on with Unix sockets blocked, or nothing."""
    from dsh.base._sandbox_kernel import network_filter, unix_socket_filter

    if not policy.network_access:
        return network_filter(inet=policy.proxied, unix=policy.unix_sockets)
    return None if policy.unix_sockets else unix_socket_filter()


def _nothing() -> None:
    return None


def _map_ids(uid: int, gid: int) -> None:
    for name, text in (
        ("setgroups", "deny"),
        ("uid_map", f"{uid} {uid} 1"),
        ("gid_map", f"{gid} {gid} 1"),
    ):
        fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
