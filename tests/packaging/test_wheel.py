"""The built wheel: distribution ``dsh-harness``, import package and command ``dsh``.

The wheel is built from this checkout (no build isolation: the dev extras bring setuptools
and wheel), installed by pip without its dependencies into a fresh venv, and the ``dsh`` console
script pip made run there, its dependencies coming from this environment's site-packages on
``PYTHONPATH`` (not processed for ``.pth`` files, so the editable install stays out). That is
what ``pipx install``/``uv tool install`` of the wheel do, less the network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

from dsh import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_installs_a_dsh_command_that_names_the_versions(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    tree = tmp_path / "tree"  # a copy: a build writes build/ and *.egg-info beside its sources
    skip = shutil.ignore_patterns("*.egg-info", "__pycache__")
    shutil.copytree(ROOT / "src", tree / "src", ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(dist),
            str(tree),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    [wheel] = dist.glob("*.whl")
    assert wheel.name.startswith(f"dsh_harness-{__version__}-")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        text = z.read(metadata).decode()
        entry = z.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "Name: dsh-harness" in text
    assert "pydantic-settings" in text
    assert "dsh = dsh.cli:main" in entry
    assert "dsh/cli/demo/.claude/settings.json" in names  # package data ships
    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(target)
    python = target / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    script = target / "bin" / "dsh"  # the console script pip made from the entry point
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    done = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        f"dsh {__version__} (Claude Code hooks: 2.1.332; Codex hooks: 0.171)"
    )
    where = subprocess.run(
        [str(python), "-c", "import dsh; print(dsh.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert where.startswith(site)  # the wheel's copy, not this checkout's
