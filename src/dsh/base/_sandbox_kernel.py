"""The kernel's own sandbox calls, through ctypes: Landlock, a seccomp filter, mounts, setns.

Nothing here needs privileges. **Landlock** (Linux 5.13+, its ABI version read at run
time) limits what files a process and all it starts may write: a ruleset that handles
every filesystem right the running kernel knows, read and execute granted beneath ``/``,
every right beneath each writable root, and (ABI 6+) signals and abstract Unix sockets
scoped to the sandbox, so a sandboxed command cannot signal dsh. The ruleset is built in
dsh (``landlock_ruleset``: the paths opened, the rules added) and only enforced in the
child (``landlock_restrict_self`` in its ``preexec_fn``), so the child runs a few system
calls and no path walk. **seccomp** (``network_filter``) turns the network off as Codex
0.171's own filter does: ``socket`` for anything but ``AF_UNIX`` fails with ``EPERM``,
``io_uring_setup`` too (io_uring could open sockets past the filter), and a system call
of another architecture's numbering kills the process. ``no_new_privs`` comes first, so a
setuid binary gains nothing. **Mounts** (``bind_read_only``) make a protected path inside
a writable root read-only in the command's own mount namespace: Landlock grants only, it
cannot take a subtree back out of a writable root.

Linux on x86-64 and AArch64 only; elsewhere ``kernel_support`` says why not.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import sys
from collections.abc import Iterable
from functools import cache
from typing import Final

__all__ = [
    "KernelCalls",
    "kernel_support",
    "landlock_abi",
    "landlock_ruleset",
    "mount_flags",
    "network_filter",
    "unix_socket_filter",
]

_SYS_LANDLOCK_CREATE: Final = 444  # the same number on every architecture (generic table)
_SYS_LANDLOCK_ADD_RULE: Final = 445
_SYS_LANDLOCK_RESTRICT: Final = 446
_SYS_OPEN_TREE: Final = 428  # the generic table's numbers again (Linux 5.2+)
_SYS_MOVE_MOUNT: Final = 429
_SYS_MOUNT_SETATTR: Final = 442  # Linux 5.12+
_MOUNT_ATTR_RDONLY: Final = 0x1
_AT_FDCWD: Final = -100
_OPEN_TREE_CLONE, _AT_RECURSIVE, _MOVE_MOUNT_F_EMPTY_PATH = 1, 0x8000, 0x4
_CREATE_RULESET_VERSION: Final = 1
_RULE_PATH_BENEATH: Final = 1
_PR_SET_NO_NEW_PRIVS: Final = 38
_PR_SET_SECCOMP: Final = 22
_SECCOMP_MODE_FILTER: Final = 2

# Landlock's filesystem rights, and the ABI that brought each.
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1, 2, 4, 8
_FILE_RIGHTS_V1: Final = _EXECUTE | _WRITE_FILE | _READ_FILE
_ALL_V1: Final = (1 << 13) - 1  # EXECUTE .. MAKE_SYM
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1, 2
READ_RIGHTS: Final = _EXECUTE | _READ_FILE | _READ_DIR

# seccomp: (audit arch, socket, io_uring_setup, x32 bit or 0)
_ARCHES: Final = {
    "x86_64": (0xC000003E, 41, 425, 0x40000000),
    "aarch64": (0xC00000B7, 198, 425, 0),
}
_AF_UNIX, _AF_INET, _AF_INET6, _AF_VSOCK = 1, 2, 10, 40
_EPERM: Final = 1
_RET_ALLOW: Final = 0x7FFF0000
_RET_ERRNO: Final = 0x00050000
_RET_KILL_PROCESS: Final = 0x80000000
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06

_MS: Final = {
    os.ST_NOSUID: 0x2,
    os.ST_NODEV: 0x4,
    os.ST_NOEXEC: 0x8,
    os.ST_NOATIME: 0x400,
    os.ST_NODIRATIME: 0x800,
    os.ST_RELATIME: 0x200000,
}


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class _MountAttr(ctypes.Structure):
    _fields_ = (
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    )


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


@cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _failed(what: str) -> OSError:
    errno = ctypes.get_errno()
    return OSError(errno, f"{what}: {os.strerror(errno)}")


@cache
def landlock_abi() -> int:
    """The running kernel's Landlock ABI version (0: none, or disabled at boot)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        abi = _libc().syscall(
            _SYS_LANDLOCK_CREATE, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION
        )
    except (OSError, AttributeError):
        return 0
    return max(int(abi), 0)


def kernel_support() -> str | None:
    """``None`` when Landlock and the seccomp filter can both be used here, else why not."""
    if not sys.platform.startswith("linux"):
        return f"no sandbox mechanism on {sys.platform} (Landlock and seccomp are Linux's)"
    if platform.machine() not in _ARCHES:
        return f"dsh's seccomp filter knows no {platform.machine()} system call numbers"
    if landlock_abi() < 1:
        return "the kernel has no Landlock (Linux 5.13+, enabled in the lsm= boot list)"
    return None


def _fs_rights(abi: int) -> int:
    rights = _ALL_V1
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV
    return rights


def _file_rights(abi: int) -> int:
    return _FILE_RIGHTS_V1 | (_TRUNCATE if abi >= 3 else 0) | (_IOCTL_DEV if abi >= 5 else 0)


def landlock_ruleset(writable: Iterable[str], writable_files: Iterable[str]) -> int:
    """A ruleset fd (close-on-exec): read and execute beneath ``/``, everything beneath each
    directory of ``writable``, reading and writing each file of ``writable_files`` (``/dev/null``).
    A path that does not exist is left out."""
    abi = landlock_abi()
    libc = _libc()
    attr = _RulesetAttr(
        _fs_rights(abi), 0, (_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL) if abi >= 6 else 0
    )
    size = 24 if abi >= 6 else 8
    fd = int(libc.syscall(_SYS_LANDLOCK_CREATE, ctypes.byref(attr), ctypes.c_size_t(size), 0))
    if fd < 0:
        raise _failed("landlock_create_ruleset")
    try:
        _add(fd, "/", READ_RIGHTS)
        for path in writable:
            _add(fd, path, _fs_rights(abi))
        for path in writable_files:
            _add(fd, path, _file_rights(abi))
    except OSError:
        os.close(fd)
        raise
    return fd


def _add(ruleset: int, path: str, rights: int) -> None:
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not os.path.isdir(f"/proc/self/fd/{target}"):
            rights &= _file_rights(landlock_abi())
        rule = _PathBeneath(rights, target)
        if _libc().syscall(
            _SYS_LANDLOCK_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0
        ):
            raise _failed(f"landlock_add_rule {path}")
    finally:
        os.close(target)


def network_filter(*, inet: bool = False, unix: bool = True) -> bytes:
    """The seccomp program (``struct sock_filter`` array) that turns the network off:
    ``socket`` for anything but ``AF_UNIX`` (and, with ``inet``, ``AF_INET``/``AF_INET6``:
    in a network namespace holding only the proxy's loopback) fails with ``EPERM``; without
    ``unix``, ``AF_UNIX`` too (Claude Code 2.1.332's Unix-socket blocking, lifted by its
    ``allowAllUnixSockets``)."""
    families = (*((_AF_UNIX,) if unix else ()), *((_AF_INET, _AF_INET6) if inet else ()))
    return _socket_filter(families, allow_listed=True)


def unix_socket_filter() -> bytes:
    """The seccomp program that refuses ``AF_UNIX`` (and ``AF_VSOCK``) sockets only: the
    network on, Unix sockets blocked (Claude Code 2.1.332 without ``allowAllUnixSockets``)."""
    return _socket_filter((_AF_UNIX, _AF_VSOCK), allow_listed=False)


def _socket_filter(families: tuple[int, ...], *, allow_listed: bool) -> bytes:
    """``socket`` (and ``io_uring_setup``) filtered by address family: with ``allow_listed``,
    only ``families`` may be made; without it, every family but those."""
    arch, socket_nr, uring_nr, x32 = _ARCHES[platform.machine()]
    deny = _RET_ERRNO | _EPERM
    code = [
        (_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (_JEQ_K, 1, 0, arch),
        (_RET_K, 0, 0, _RET_KILL_PROCESS),
        (_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if x32:
        code += [(_JGE_K, 0, 1, x32), (_RET_K, 0, 0, _RET_KILL_PROCESS)]
    code += [
        (_JEQ_K, 0, 1, uring_nr),
        (_RET_K, 0, 0, deny),
    ]
    n = len(families)
    listed, other = (_RET_ALLOW, deny) if allow_listed else (deny, _RET_ALLOW)
    code += [
        (_JEQ_K, 0, n + 3, socket_nr),
        (_LD_W_ABS, 0, 0, 16),  # seccomp_data.args[0], its low half (little-endian)
        *((_JEQ_K, n - i, 0, family) for i, family in enumerate(families)),
        (_RET_K, 0, 0, other),
        (_RET_K, 0, 0, listed),
        (_RET_K, 0, 0, _RET_ALLOW),
    ]
    return b"".join(struct.pack("=HBBI", *op) for op in code)


def mount_flags(path: str) -> int:
    """The ``MS_*`` flags ``path``'s mount has that a read-only remount must keep (a user
    namespace may not clear them)."""
    try:
        flags = os.statvfs(path).f_flag
    except OSError:
        return 0
    return sum(ms for st, ms in _MS.items() if flags & st)


class KernelCalls:
    """The calls a sandboxed child makes between ``fork`` and ``exec``, bound beforehand so
    the child imports nothing and allocates little."""

    def __init__(self, seccomp: bytes | None) -> None:
        libc = _libc()
        self._syscall = libc.syscall
        self._prctl = libc.prctl
        self._setns = libc.setns
        self._unshare = libc.unshare
        self._mount = libc.mount
        self._program = ctypes.create_string_buffer(seccomp or b"", len(seccomp or b""))
        self._fprog = _SockFprog(len(seccomp or b"") // 8, ctypes.addressof(self._program))
        self.seccomp = seccomp is not None
        self._rdonly = _MountAttr(_MOUNT_ATTR_RDONLY, 0, 0, 0)

    def setns(self, fd: int, kind: int, what: str) -> None:
        if self._setns(fd, kind) != 0:
            raise _failed(f"setns {what}")

    def unshare(self, flags: int) -> None:
        if self._unshare(flags) != 0:
            raise _failed("unshare")

    def mount(
        self,
        source: bytes | None,
        target: bytes,
        flags: int,
        fstype: bytes | None = None,
        data: bytes | None = None,
    ) -> None:
        if self._mount(source, target, fstype, flags, data) != 0:
            raise _failed(f"mount {os.fsdecode(target)}")

    def open_tree(self, path: bytes) -> int:
        """A detached copy of the mounts at ``path`` (and beneath), to ``move_mount`` elsewhere."""
        flags = _OPEN_TREE_CLONE | _AT_RECURSIVE | os.O_CLOEXEC
        fd = int(self._syscall(_SYS_OPEN_TREE, _AT_FDCWD, path, flags))
        if fd < 0:
            raise _failed(f"open_tree {os.fsdecode(path)}")
        return fd

    def read_only_everywhere(self) -> bool:
        """Make every mount of this mount namespace read-only (``mount_setattr``, recursive
        from ``/``); ``False`` where the kernel has no ``mount_setattr`` (nothing changed)."""
        if self._syscall(
            _SYS_MOUNT_SETATTR, _AT_FDCWD, b"/", _AT_RECURSIVE, ctypes.byref(self._rdonly), 32
        ):
            if ctypes.get_errno() in (errno.ENOSYS, errno.EINVAL):
                return False
            raise _failed("mount_setattr /")
        return True

    def move_mount(self, tree: int, target: bytes) -> None:
        """Attach the detached mount ``tree`` at ``target``."""
        flags = _MOVE_MOUNT_F_EMPTY_PATH
        if self._syscall(_SYS_MOVE_MOUNT, tree, b"", _AT_FDCWD, target, flags) != 0:
            raise _failed(f"move_mount {os.fsdecode(target)}")

    def restrict(self, ruleset: int) -> None:
        """``no_new_privs``, then the Landlock ruleset and the seccomp filter, in this thread."""
        if self._prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise _failed("no_new_privs")
        if self._syscall(_SYS_LANDLOCK_RESTRICT, ruleset, 0) != 0:
            raise _failed("landlock_restrict_self")
        if self.seccomp and self._prctl(
            _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(self._fprog), 0, 0
        ):
            raise _failed("seccomp")
