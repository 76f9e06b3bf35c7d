"""The Codex trust fixture: a ``$CODEX_HOME`` whose hook hashes the real Codex 0.171.0 computed.

``fixtures/codex-trust/`` (README there): ``codex-home/`` (a ``hooks.json``
and a ``config.toml`` with inline hooks, a stale trust record and a disabled
hook), ``hooks-list.json`` (what ``codex app-server`` answered to
``hooks/list`` for that home: each hook's key, the hash Codex computed, its
trust status, Codex's warnings), ``config-trusted.toml`` (the ``config.toml``
after dsh's ``dsh hooks trust`` code recorded trust) and
``hooks-list-trusted.json`` (Codex's answer for that trusted home), and
``config-codex-trusted.toml``: the ``config.toml`` Codex itself wrote when its
TUI's start-up review was answered "Trust all and continue" (driven in a
pseudo-terminal). Paths are written as ``${CODEX_HOME}`` and ``${PROJECT_DIR}``.

Regenerate with the real binary (``DSH_CODEX`` names it, or ``make bench-tools``):
``.venv/bin/python -m tests.hooks_codex.codex_trust_fixture``.
"""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from dsh.hooks.codex import CodexProfile

FIXTURE: Final = Path(__file__).parent / "fixtures" / "codex-trust"
HOME: Final = "${CODEX_HOME}"
PROJECT: Final = "${PROJECT_DIR}"
BENCHMARKS: Final = Path(__file__).resolve().parents[2] / "benchmarks"


def materialize(root: Path, *, config: str = "codex-home/config.toml") -> tuple[Path, Path]:
    """The fixture's home under ``root``, with ``config`` (a fixture file) as its
    ``config.toml``: ``(home, project)``."""
    home = root / "home" / ".codex"
    project = root / "project"
    home.mkdir(parents=True)
    project.mkdir()
    shutil.copy(FIXTURE / "codex-home" / "hooks.json", home / "hooks.json")
    text = (FIXTURE / config).read_text(encoding="utf-8")
    (home / "config.toml").write_text(text.replace(HOME, str(home)), encoding="utf-8")
    return home, project


def with_placeholders(value: Any, home: Path, project: Path) -> Any:
    """``value`` (JSON) with this run's paths written as the fixture's placeholders."""
    text = json.dumps(value, ensure_ascii=False)
    text = text.replace(str(home), HOME).replace(str(project), PROJECT)
    return json.loads(text)


def recorded(name: str) -> dict[str, Any]:
    """A recorded ``hooks/list`` answer (``hooks-list.json``, ``hooks-list-trusted.json``)."""
    data: dict[str, Any] = json.loads((FIXTURE / name).read_text(encoding="utf-8"))
    return data


def trust_as_dsh(home: Path, project: Path) -> list[str]:
    """``dsh hooks trust`` for the fixture's home (no system layer)."""
    profile = CodexProfile(home=home, system_dir=None, trust_dir=home.parent / "dsh-trust")
    return list(profile.trust(project))


def codex_listing(codex: str, home: Path, project: Path) -> dict[str, Any]:
    """The real Codex's ``hooks/list`` for ``home``, paths as placeholders."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    from _codex_side import hooks_list

    return dict(with_placeholders(hooks_list(codex, home, project), home, project))


# What the TUI asks a terminal at start-up, and answers that let it go on.
_TERMINAL_ANSWERS: Final = {
    b"\x1b[6n": b"\x1b[1;1R",
    b"\x1b]10;?": b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\",
    b"\x1b]11;?": b"\x1b]11;rgb:0000/0000/0000\x1b\\",
    b"$p": b"\x1b[?1007;2$y",
    b"\x1b[c": b"\x1b[?62;22c",
    b"\x1b[?u": b"\x1b[?0u",
}
_DOWN_ENTER: Final = (b"\x1b[B", b"\r")


def tui_trust_all(codex: str, home: Path, project: Path, *, timeout: float = 60) -> str:
    """Start Codex's TUI in a pseudo-terminal, answer its hook review "Trust all and
    continue", and return the ``config.toml`` it then wrote (paths as placeholders)."""
    sys.path.insert(0, str(BENCHMARKS))
    from _codex_side import codex_env

    config = home / "config.toml"
    records = config.read_text(encoding="utf-8").count("trusted_hash")
    env = {**codex_env(home), "TERM": "xterm-256color"}
    # A model provider that is never asked (nothing is sent), so no sign-in screen comes
    # first; given as overrides, so the file holds only what the review writes.
    provider = (
        'model_providers.none={name="none", base_url="http://127.0.0.1:9/v1",'
        ' wire_api="responses", env_key="DSH_MOCK_API_KEY"}'
    )
    argv = [codex, "--no-alt-screen", "-c", 'model_provider="none"', "-c", provider]
    argv += ["-c", 'model="mock-model"', "-C", str(project)]
    pid, fd = pty.fork()
    if pid == 0:  # the child: Codex in the project
        os.chdir(project)
        os.execve(codex, argv, env)
    import fcntl
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 140, 0, 0))
    screen = b""
    keys = list(_DOWN_ENTER)
    deadline = time.monotonic() + timeout
    try:
        while (
            time.monotonic() < deadline
            and config.read_text(encoding="utf-8").count("trusted_hash") <= records
        ):
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            data = os.read(fd, 65536)
            screen += data
            for query, answer in _TERMINAL_ANSWERS.items():
                if query in data:
                    os.write(fd, answer)
            if keys and b"Trust all and continue" in screen.replace(b" ", b"").replace(
                b"Trustallandcontinue", b"Trust all and continue"
            ):
                time.sleep(0.5)
                while keys:
                    os.write(fd, keys.pop(0))
                    time.sleep(0.3)
        time.sleep(1)  # let it finish writing
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    written = config.read_text(encoding="utf-8")
    if written.count("trusted_hash") <= records:
        shown = screen.decode("utf-8", "replace")[-3000:]
        raise RuntimeError(f"Codex's TUI wrote no trust in time; its screen: {shown}")
    return written.replace(str(home), HOME).replace(str(project), PROJECT)


def regenerate(codex: str) -> None:
    """Ask the real Codex for the fixture's listings, before and after dsh records trust,
    and have its TUI record trust for the same home itself."""
    with tempfile.TemporaryDirectory(prefix="dsh-codex-trust-") as tmp:
        home, project = materialize(Path(tmp).resolve())
        before = codex_listing(codex, home, project)
        trust_as_dsh(home, project)
        trusted = (home / "config.toml").read_text(encoding="utf-8").replace(str(home), HOME)
        after = codex_listing(codex, home, project)
    with tempfile.TemporaryDirectory(prefix="dsh-codex-tui-") as tmp:
        home, project = materialize(Path(tmp).resolve())
        by_codex = tui_trust_all(codex, home, project)
    (FIXTURE / "config-trusted.toml").write_text(trusted, encoding="utf-8")
    (FIXTURE / "config-codex-trusted.toml").write_text(by_codex, encoding="utf-8")
    for name, listing in (("hooks-list.json", before), ("hooks-list-trusted.json", after)):
        text = json.dumps(listing, ensure_ascii=False, indent=1) + "\n"
        (FIXTURE / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(BENCHMARKS))
    from _codex_side import codex_path

    found = codex_path()
    if found is None:
        sys.exit("no codex: set DSH_CODEX or run `make bench-tools`")
    regenerate(found)
    print(f"wrote {FIXTURE}")
