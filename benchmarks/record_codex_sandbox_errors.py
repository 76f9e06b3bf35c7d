"""Record which error Codex 0.171's own sandbox gives each refused operation (issue 33).

usage: python benchmarks/record_codex_sandbox_errors.py CODEX OUT.json

Runs ``CODEX sandbox -c sandbox_mode="workspace-write"`` (``/tmp`` and ``$TMPDIR`` not
writable, so a folder beside the project is outside the sandbox) with ``HOME`` and
``CODEX_HOME`` in a temporary folder, once per case, each in a fresh project (with a
``.git`` holding ``config``, no ``.codex``) beside a folder ``outside`` holding a file ``f``.
Kept per case: the exit status and the error words (``strerror``) its output holds. Never
run by ``make test``; its output is the fixture ``tests/fixtures/codex_sandbox_errors.json``,
which ``tests/sandbox/test_sandbox_errors.py`` holds dsh's sandbox to.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CASES: dict[str, str] = {
    "create-outside": "echo y > ../outside/g",
    "write-outside": "echo y > ../outside/f",
    "chmod-outside": "chmod 600 ../outside/f",
    "times-outside": "touch -d 2000-01-01 ../outside/f",
    "chown-outside": "chown $(id -u) ../outside/f",
    "write-in-git": "echo x > .git/config",
    "create-in-git": "touch .git/new",
    "remove-git": "rm -rf .git",
    "mkdir-missing-codex": "mkdir .codex",
    "write-in-missing-codex": "mkdir -p .codex && echo x > .codex/config.toml",
    "socket": "python3 -c 'import socket; socket.socket()'",
    "chmod-inside": "echo x > in.txt && chmod 600 in.txt",
}

ERRORS = (
    "Permission denied",
    "Read-only file system",
    "Operation not permitted",
    "Device or resource busy",
    "File exists",
    "Invalid cross-device link",
)


def words(output: str) -> list[str]:
    """The error words ``output`` holds, in ``ERRORS``'s order."""
    return [error for error in ERRORS if error in output]


def record(codex: str, command: str) -> dict[str, object]:
    root = Path(tempfile.mkdtemp(prefix="rec-codex-sandbox-"))
    project, home = root / "project", root / "home"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text("kept\n")
    (root / "outside").mkdir()
    (root / "outside" / "f").write_text("x\n")
    (home / ".codex").mkdir(parents=True)
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    argv = [codex, "sandbox", "-c", 'sandbox_mode="workspace-write"']
    argv += ["-c", "sandbox_workspace_write.exclude_slash_tmp=true"]
    argv += ["-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true", "--", "sh", "-c", command]
    done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=60)
    return {"command": command, "exit": done.returncode, "errors": words(done.stdout + done.stderr)}


def main() -> None:
    codex, out = sys.argv[1], Path(sys.argv[2])
    cases = {name: record(codex, command) for name, command in CASES.items()}
    out.write_text(json.dumps({"codex": "0.171", "cases": cases}, indent=2) + "\n")


if __name__ == "__main__":
    main()
