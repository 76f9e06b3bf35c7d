"""Record how Codex 0.171 applies a permission profile's filesystem rules (issue 33).

usage: python benchmarks/record_codex_profile_fs.py CODEX OUT.json

Runs ``CODEX sandbox`` with ``HOME``, ``CODEX_HOME`` and ``TMPDIR`` in a temporary folder
whose ``config.toml`` selects the profile ``PROFILE`` (``extends = ":workspace"``, ``/tmp``
made read-only by ``":slash_tmp" = "read"``, an absolute ``write`` root, an absolute
``none``, and ``:workspace_roots`` rules: ``docs`` read, ``secret`` none), once per case in
a fresh project. Kept per case: the exit status and the error words its output holds; and
what Codex says of a relative path (it refuses to start). Never run by ``make test``; its
output is the fixture ``tests/fixtures/codex_profile_filesystem.json``, which
``tests/sandbox/test_codex_sandbox.py`` holds dsh's sandbox to.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

PROFILE = """default_permissions = "fs"
[permissions.fs]
extends = ":workspace"
[permissions.fs.filesystem]
":slash_tmp" = "read"
"{extra}" = "write"
"{hidden}" = "none"
[permissions.fs.filesystem.":workspace_roots"]
"docs" = "read"
"secret" = "none"
"""

CASES: dict[str, str] = {
    "workspace-root-write": "touch in.txt",
    "workspace-read": "touch docs/d.txt",
    "workspace-none": "cat secret/s.txt",
    "absolute-write": "touch {extra}/e.txt",
    "slash-tmp-read": "touch {kept}/k.txt",
    "absolute-none": "cat {hidden}/h.txt",
}

ERRORS = ("Permission denied", "Read-only file system", "No such file or directory")


def layout() -> dict[str, Path]:
    root = Path(tempfile.mkdtemp(prefix="rec-codex-profile-fs-"))
    places = {n: root / n for n in ("home", "project", "extra", "kept", "hidden")}
    for path in places.values():
        path.mkdir()
    (places["home"] / ".codex").mkdir()
    (places["project"] / "docs").mkdir()
    (places["project"] / "secret").mkdir()
    (places["project"] / "secret" / "s.txt").write_text("secret words\n")
    (places["hidden"] / "h.txt").write_text("hidden words\n")
    return places


def run(codex: str, places: dict[str, Path], config: str, command: str) -> tuple[int, str]:
    home = places["home"]
    (home / ".codex" / "config.toml").write_text(config)
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    env["TMPDIR"] = str(home)
    argv = [codex, "sandbox", "--", "sh", "-c", command]
    done = subprocess.run(
        argv, cwd=places["project"], env=env, capture_output=True, text=True, timeout=60
    )
    return done.returncode, done.stdout + done.stderr


def main() -> None:
    codex, out = sys.argv[1], Path(sys.argv[2])
    cases = {}
    for name, command in CASES.items():
        places = layout()
        config = PROFILE.format(extra=places["extra"], hidden=places["hidden"])
        text = command.format(**{k: str(v) for k, v in places.items()})
        code, output = run(codex, places, config, text)
        errors = [e for e in ERRORS if e in output]
        cases[name] = {"command": command, "exit": code, "errors": errors}
    places = layout()
    relative = PROFILE.format(extra=places["extra"], hidden=places["hidden"])
    relative = relative.replace(
        '":slash_tmp" = "read"', '":slash_tmp" = "read"\n"relative/x" = "write"'
    )
    code, output = run(codex, places, relative, "true")
    said = next((line for line in output.splitlines() if "relative/x" in line), "")
    cases["relative-path"] = {"command": "true", "exit": code, "says": said}
    kept = {"codex": "0.171", "profile": PROFILE, "error_words": ERRORS, "cases": cases}
    out.write_text(json.dumps(kept, indent=2) + "\n")


if __name__ == "__main__":
    main()
