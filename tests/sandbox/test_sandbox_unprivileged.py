"""The sandbox's unprivileged path: dsh without ``CAP_SYS_ADMIN``, so its namespace and the
command's mounts live in user namespaces, through the real loop.

When the tests run as root (CI), ``dsh run`` runs here as the unprivileged user ``nobody``
(``setpriv``), with an interpreter that user can run; where the tests already run
unprivileged, every other sandbox test takes this path and this one is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import dsh
from dsh.base._sandbox import sandbox_mechanism

_NOBODY = 65534
_SRC = str(Path(dsh.__file__).resolve().parents[1])
_SITE = sysconfig.get_paths()["purelib"]


def _as_nobody(argv: list[str], cwd: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    setpriv = ["setpriv", f"--reuid={_NOBODY}", f"--regid={_NOBODY}", "--clear-groups", "--"]
    return subprocess.run(
        [*setpriv, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def _environment(home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "PYTHONPATH": f"{_SRC}:{_SITE}",
        "NO_COLOR": "1",
        "COLUMNS": "200",
    }


def _interpreter(home: str) -> str | None:
    """A Python of this version that ``nobody`` can run and that imports dsh from here."""
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for cand in (f"/usr/bin/python{version}", f"/usr/local/bin/python{version}", sys.executable):
        if os.path.exists(cand):
            done = _as_nobody([cand, "-s", "-c", "import dsh, msgspec"], home, _environment(home))
            if done.returncode == 0:
                return cand
    return None


def _why_not() -> str | None:
    if sandbox_mechanism()[0] is None:
        return f"no sandbox here: {sandbox_mechanism()[1]}"
    if os.geteuid() != 0:
        return "the tests run unprivileged: every sandbox test takes this path already"
    if shutil.which("setpriv") is None:
        return "util-linux's setpriv is missing: cannot run dsh as an unprivileged user"
    return None


pytestmark = pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))


@pytest.fixture(scope="module")
def home() -> Iterator[str]:
    """A folder ``nobody`` owns, outside pytest's (root-only) temporary folders."""
    folder = tempfile.mkdtemp(prefix="dsh-unprivileged-")
    os.chown(folder, _NOBODY, _NOBODY)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("containment", ["namespace", "marks"])
def test_the_sandbox_holds_for_an_unprivileged_user(home: str, containment: str) -> None:
    python = _interpreter(home)
    if python is None:
        pytest.skip(f"no Python {sys.version_info[:2]} that uid {_NOBODY} can run here")
    if _as_nobody(["unshare", "-U", "-r", "true"], home, _environment(home)).returncode != 0:
        pytest.skip("the kernel refuses an unprivileged user a user namespace here")
    root = Path(home) / containment
    project, outside = root / "project", root / "outside"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (project / ".dsh").mkdir()
    (project / ".dsh" / "config.toml").write_text(
        'sandbox_mode = "workspace-write"\n[sandbox_workspace_write]\n'
        "exclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
    )
    outside.mkdir()
    (outside / "f").write_text("x\n")
    commands = [
        "cat /proc/self/uid_map",  # 0: a user namespace mapping nobody alone
        "echo in > in.txt && chmod 600 in.txt",  # 1: the project is writable
        f"echo x > {outside}/g",  # 2: outside is not
        f"chmod 600 {outside}/f",  # 3: nor its modes
        "echo x > .git/HEAD",  # 4: protected
        "mkdir .codex",  # 5: a placeholder stands for it
        "exec 3<>/dev/tcp/127.0.0.1/9",  # 6: no network (bash's own socket)
    ]
    calls = [[{"type": "tool_use", "name": "Bash", "input": {"command": c}}] for c in commands]
    script = root / "script.json"
    script.write_text(
        json.dumps(
            {"anthropic": {"rules": [{"responses": [*calls, [{"type": "text", "text": "."}]]}]}}
        )
    )
    subprocess.run(["chown", "-R", f"{_NOBODY}:{_NOBODY}", str(root)], check=True)
    env = _environment(home) | {"DSH_PROCESS_CONTAINMENT": containment}
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(root / "s"), "--permission-mode", "bypassPermissions"]
    done = _as_nobody([python, "-s", "-m", "dsh", *args], str(root), env)
    assert done.returncode == 0, done.stderr
    [log] = (root / "s").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    results = [e for e in events if e["type"] == "tool/result"]
    assert [r["is_error"] for r in results] == [False, False] + [True] * 5, results
    assert results[0]["content"].split()[:3] == [str(_NOBODY), str(_NOBODY), "1"]
    for result in results[2:5]:
        assert "Read-only file system" in result["content"]
    assert "File exists" in results[5]["content"]
    assert "Operation not permitted" in results[6]["content"]
    assert (project / "in.txt").read_text() == "in\n"
    assert oct((outside / "f").stat().st_mode & 0o777) == oct(0o644)
    assert sorted(p.name for p in outside.iterdir()) == ["f"]
    assert (project / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert sorted(p.name for p in project.iterdir()) == [".dsh", ".git", "in.txt"]
