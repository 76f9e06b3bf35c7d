"""The built wheel: distribution ``dsh-harness``, import package and command ``dsh``.

The wheel is built from this checkout (no build isolation: the dev extras bring setuptools
and wheel), installed by pip without its dependencies into a fresh venv, and the ``dsh`` console
script pip made run there, its dependencies coming from this environment's site-packages on
``PYTHONPATH`` (not processed for ``.pth`` files, so the editable install stays out). That is
what ``pipx install``/``uv tool install`` of the wheel do, less the network.

Then the real ``pipx install`` and ``uv tool install`` of the wheel, each in its own temp
home and bin dir, offline: the wheel's dependencies are first fetched by ``pip download``
(through pip's configured index) into a directory, and each installer is given only that
(no index, no pip or uv configuration), as a fresh machine without network would install it.
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

import pytest

from dsh import __version__

ROOT = Path(__file__).resolve().parents[2]


VERSION_LINE = f"dsh {__version__} (Claude Code hooks: 2.1.332; Codex hooks: 0.171)"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout, once for the module's tests."""
    tmp_path = tmp_path_factory.mktemp("wheel")
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
    [built_wheel] = dist.glob("*.whl")
    return built_wheel


def test_the_wheel_installs_a_dsh_command_that_names_the_versions(
    wheel: Path, tmp_path: Path
) -> None:
    # Pure Python, for every Python 3 (why CI builds and installs it on one interpreter only).
    assert wheel.name == f"dsh_harness-{__version__}-py3-none-any.whl"
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
    assert done.stdout.strip() == VERSION_LINE
    where = subprocess.run(
        [str(python), "-c", "import dsh; print(dsh.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert where.startswith(site)  # the wheel's copy, not this checkout's


@pytest.fixture(scope="module")
def dependencies(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the wheel and every distribution it needs, for offline installs."""
    found = tmp_path_factory.mktemp("deps")
    fetched = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(found), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert fetched.returncode == 0, fetched.stderr[-2000:]
    return found


def _version_of(command: Path) -> str:
    # Nothing of this checkout on the path: the command runs from the installer's own venv.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        [str(command), "--version"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _offline_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "PIPX_"))}
    return {**env, "PIP_CONFIG_FILE": os.devnull, **extra}


def test_pipx_installs_the_wheel_offline_and_its_dsh_runs(
    wheel: Path, dependencies: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    env = _offline_env(
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(bin_dir),
        PIPX_MAN_DIR=str(tmp_path / "man"),
    )
    pip_args = f"--no-index --find-links {dependencies}"
    installed = subprocess.run(
        [sys.executable, "-m", "pipx", "install", str(wheel), f"--pip-args={pip_args}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    assert _version_of(bin_dir / "dsh") == VERSION_LINE
    assert (tmp_path / "pipx" / "venvs" / "dsh-harness").is_dir()


def test_uv_tool_install_installs_the_wheel_offline_and_its_dsh_runs(
    wheel: Path, dependencies: Path, tmp_path: Path
) -> None:
    uv = shutil.which("uv", path=str(Path(sys.executable).parent))
    assert uv is not None, "uv comes with the dev extras"
    bin_dir = tmp_path / "bin"
    env = _offline_env(
        UV_TOOL_DIR=str(tmp_path / "tools"),
        UV_TOOL_BIN_DIR=str(bin_dir),
        UV_CACHE_DIR=str(tmp_path / "cache"),
        UV_PYTHON_DOWNLOADS="never",
        UV_NO_CONFIG="1",
    )
    args = ["tool", "install", "--offline", "--no-index", "--find-links", str(dependencies)]
    installed = subprocess.run(
        [uv, *args, "--python", sys.executable, str(wheel)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    assert _version_of(bin_dir / "dsh") == VERSION_LINE
    assert (tmp_path / "tools" / "dsh-harness").is_dir()
