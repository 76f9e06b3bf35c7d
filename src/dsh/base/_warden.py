"""The watchdog's keeper in dsh's process (``dsh.base._containment``'s state): the watchdog
started at the first need and fed the contained pids, dsh's namespace opened from its hello,
and a forked child let go of both (``Warden.let_go``) so that they still end with dsh.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Final, Literal

from dsh.base._namespace import ContainmentName, Namespace, find_nsenter, open_namespace

__all__ = ["HookHelpers", "Warden"]

_HELLO_BOUND: Final = 10.0  # seconds to say whether it made a namespace that nsenter joins
# The watchdog's start (``python -I -S``): ``dsh`` and ``dsh.base`` made bare packages (their
# ``__init__``, the harness, not run) so that ``dsh.base._watchdog`` is imported from its
# compiled bytecode, nothing else of dsh with it (a script would be compiled at every start).
_LAUNCH: Final = """import sys
base = sys.argv.pop(1)
for name, path in (("dsh", base.rpartition("/")[0]), ("dsh.base", base)):
    sys.modules[name] = package = type(sys)(name)
    package.__path__ = [path]
from dsh.base._watchdog import main
main(sys.argv[1:])
"""

HookHelpers = Literal["hook", "session"]
"""How long what a hook leaves running after a normal exit lives: until the hook's end
(ended then, the default) or until the session's end (helpers a suite starts on purpose)."""


class Warden:
    def __init__(self) -> None:
        self.helpers: HookHelpers = "hook"
        self.wanted: ContainmentName = "namespace"
        self.fresh()

    def fresh(self) -> None:
        """Nothing started, contained or made yet (the configuration kept)."""
        self.lock = threading.Lock()
        # Held while the watchdog's hello is awaited, apart from ``lock``: a thread settling
        # in the background (``prepare_containment``) keeps no one from setting the warden up.
        self.hello = threading.Lock()
        self.token = os.urandom(8).hex()
        self.count = 0
        self.contained: set[int] = set()
        self.spawned: set[int] = set()
        self.lingering: set[int] = set()
        self.marks: dict[int, bytes] = {}
        self.watchdog: subprocess.Popen[bytes] | None = None
        self.pipe: IO[bytes] | None = None
        self.subreaper = False  # a fork is no subreaper: prctl's setting is not inherited
        self.tried = False
        self.namespace: Namespace | None = None
        self.why = ""  # why there is no namespace
        self.pending: tuple[IO[bytes] | None, int, str] | None = None  # hello not read yet

    def tell(self, line: str) -> None:
        if not self.tried:
            self.tried = True
            self.start_watchdog()
        if self.pipe is not None:
            try:
                self.pipe.write(line.encode() + b"\n")
                self.pipe.flush()
            except (OSError, ValueError):
                self.pipe = None  # the watchdog is gone: groups and sweeps still work

    def start_watchdog(self) -> None:
        nsenter = find_nsenter() if self.wanted == "namespace" else None
        if self.wanted == "namespace" and nsenter is None:
            self.why = "nsenter not found"
        life = os.pipe() if nsenter is not None else None
        # -B where dsh writes no bytecode either (a read-only install, PYTHONDONTWRITEBYTECODE)
        python = [sys.executable, "-I", "-S", *(["-B"] if sys.dont_write_bytecode else [])]
        here = str(Path(__file__).parent)
        try:
            self.watchdog = subprocess.Popen(
                [*python, "-c", _LAUNCH, here, self.token]
                + ([str(life[0]), nsenter] if life and nsenter else []),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE if life else subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(life[0],) if life else (),
                start_new_session=True,  # Ctrl-C at the terminal is dsh's, not the watchdog's
            )
        except OSError as exc:
            self.why = f"the watchdog did not start: {exc}"
            return  # no watchdog: groups and sweeps still work
        finally:
            if life:
                os.close(life[0])
        self.pipe = self.watchdog.stdin
        if life and nsenter is not None:  # its hello is read when a spawn needs the namespace
            self.pending = (self.watchdog.stdout, life[1], nsenter)

    def settle(self) -> None:
        """Read the started watchdog's hello and open the namespace it names, once (or wait
        for the thread that is at it)."""
        with self.hello:
            if self.pending is not None:
                out, life, nsenter = self.pending
                self.pending = None
                self.namespace_from(out, life, nsenter)

    def namespace_from(self, out: IO[bytes] | None, life: int, nsenter: str) -> None:
        """Open the namespace the watchdog's first line names (it says so within seconds)."""
        hello = ""
        if out is not None:
            with contextlib.suppress(OSError, ValueError):
                if select.select([out], [], [], _HELLO_BOUND)[0]:
                    hello = out.readline(200).decode(errors="replace")
                out.close()
        opened = open_namespace(hello, life, nsenter)
        if isinstance(opened, str):
            os.close(life)
            self.why = opened
        else:
            self.namespace = opened

    def entry(self) -> Namespace | None:
        """dsh's namespace, made at the first call, if it is wanted and alive."""
        if self.wanted != "namespace":
            return None
        if not self.tried:
            self.tried = True
            self.start_watchdog()
        self.settle()
        space = self.namespace
        if space is None:
            return None
        if not space.alive():
            self.namespace = None
            self.why = "its namespace ended (its init was killed)"
            space.close()
            return None
        return space

    def mine(self, mark: bytes) -> bool:
        return mark.startswith(self.token.encode() + b".")

    def let_go(self) -> None:
        """In a child this process forked (and that may never exec): hold none of dsh's
        pipes, so the watchdog and the namespace still end with dsh, and start afresh (a
        watchdog, a namespace and a token of its own, at its first need)."""
        held = [self.pipe, self.pending[0] if self.pending else None]
        lives = [self.pending[1] if self.pending else -1]
        if self.namespace is not None:
            lives.append(self.namespace.life)
            self.namespace.close()
        # 0-2 only when dsh had no stdio of its own: a spawn's child has its own there now.
        streams = [stream for stream in held if stream is not None and stream.fileno() > 2]
        with contextlib.suppress(OSError):
            null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC) if streams else -1
            for stream in streams:  # /dev/null in their place: what the objects flush goes there
                with contextlib.suppress(OSError, ValueError):
                    os.dup2(null, stream.fileno(), inheritable=False)
            if null >= 0:
                os.close(null)
        for life in lives:
            if life > 2:
                with contextlib.suppress(OSError):
                    os.close(life)
        self.fresh()
