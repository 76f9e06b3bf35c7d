"""Files from outside read without blocking and within a bound, through the real ``dsh``.

A FIFO named where a file is expected (``--settings``, the project's
``.dsh/config.toml``, a plugin's hook file, a model script) is refused by name at
once, never opened for a blocking read; a device (``/dev/zero``) is refused, never
read; a file over its bound is refused from its size, before a byte is read (peak
memory stays that of a plain run). A trust record grows with the hooks it covers and
is read within a bound that grows with them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dsh.base import UnreadableFileError, read_bounded, read_head
from tests.cli.support import run_dsh

SCRIPT = {"anthropic": {"rules": [{"responses": [[{"type": "text", "text": "ok"}]]}]}}


def _script(tmp_path: Path) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(SCRIPT))
    return path


def _run(
    tmp_path: Path, *extra: str, project: Path | None = None
) -> subprocess.CompletedProcess[str]:
    project = project or tmp_path / "project"
    project.mkdir(exist_ok=True)
    return run_dsh(
        "run",
        "hi",
        "--model",
        f"scripted:{_script(tmp_path)}",
        "--project",
        str(project),
        "--session-dir",
        str(tmp_path / "sessions"),
        *extra,
        cwd=tmp_path,
    )


def peak_rss_kib(args: list[str], cwd: Path) -> tuple[int, int]:
    """``dsh ARGS``' exit code and peak resident memory (KiB), measured in a parent of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    probe = (
        "import resource, subprocess, sys;"
        "rc = subprocess.run([sys.executable, '-m', 'dsh', *sys.argv[1:]],"
        " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode;"
        "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    rc, peak = done.stdout.split()
    return int(rc), int(peak)


def test_settings_naming_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done = _run(tmp_path, "--settings", str(fifo))
    assert done.returncode == 2, done.stderr
    assert (
        done.stderr
        == f"dsh: --settings {fifo}: cannot read the file: is a FIFO, not a regular file\n"
    )


def test_settings_naming_a_device_is_refused_unread(tmp_path: Path) -> None:
    rc, peak = peak_rss_kib(
        ["run", "hi", "--project", str(tmp_path), "--settings", "/dev/zero", "--init-only"],
        tmp_path,
    )
    assert rc == 2
    assert peak < 200 * 1024  # a plain run is ~30 MiB; reading the device grew past 1 GiB
    done = _run(tmp_path, "--settings", "/dev/zero")
    assert "/dev/zero: cannot read the file: is a character device" in done.stderr


def test_a_huge_settings_file_is_refused_from_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as f:  # sparse: 200 MB that take no disk
        f.truncate(200_000_000)
    rc, peak = peak_rss_kib(
        ["run", "hi", "--project", str(tmp_path), "--settings", str(big), "--init-only"], tmp_path
    )
    assert rc == 2
    assert peak < 100 * 1024  # was 428 MiB: the file read whole, then the bound applied
    done = _run(tmp_path, "--settings", str(big))
    assert "is 200,000,000 bytes, over the 8,388,608-byte bound" in done.stderr


def test_a_config_file_that_is_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".dsh").mkdir(parents=True)
    os.mkfifo(project / ".dsh" / "config.toml")
    done = _run(tmp_path, project=project)
    assert done.returncode == 2, done.stderr
    assert "config.toml: cannot read the config file: is a FIFO, not a regular file" in done.stderr


def test_a_model_script_that_is_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "script.fifo"
    os.mkfifo(fifo)
    done = run_dsh(
        "run", "hi", "--model", f"scripted:{fifo}", "--project", str(tmp_path), cwd=tmp_path
    )
    assert done.returncode == 2, done.stderr
    assert "cannot read the script" in done.stderr
    assert "FIFO" in done.stderr


def test_the_reader_refuses_before_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableFileError, match="is a FIFO") as info:
        read_bounded(fifo, 10, "settings file")
    assert info.value.path == fifo
    assert isinstance(info.value, OSError)
    (tmp_path / "f").write_bytes(b"x" * 11)
    with pytest.raises(UnreadableFileError, match="over the 10-byte bound"):
        read_bounded(tmp_path / "f", 10, "settings file")
    assert read_bounded(tmp_path / "f", 11, "settings file") == b"x" * 11
    head = read_head(tmp_path / "f", 4, "instructions file")
    assert (head.data, head.size, head.cut) == (b"xxxx", 11, True)
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "missing", 10, "settings file")
    (tmp_path / "link").symlink_to(tmp_path / "f")
    with pytest.raises(OSError):
        read_bounded(tmp_path / "link", 20, "trust record", follow=False)


def test_a_trust_record_over_the_base_bound_stays_trusted(tmp_path: Path) -> None:
    # 10,000 widening allow rules (the cap) of ~500 characters: a 6.7 MB record, over the
    # 4 MiB a record was read within whatever it covered (its entries were then untrusted).
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    rules = [f"Bash(echo tool{i}_{'y' * 500} *)" for i in range(10_000)]
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": rules}})
    )
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path / "home")}
    trusted = run_dsh("hooks", "trust", "--project", str(project), cwd=tmp_path, env=env)
    assert trusted.returncode == 0, trusted.stderr
    [record] = (tmp_path / "data" / "dsh" / "trust" / "claude").glob("*.json")
    assert record.stat().st_size > 4 << 20
    done = run_dsh(
        "run",
        "hi",
        "--model",
        f"scripted:{_script(tmp_path)}",
        "--project",
        str(project),
        "--session-dir",
        str(tmp_path / "sessions"),
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "has not been trusted" not in done.stdout + done.stderr
    assert "unreadable" not in done.stdout + done.stderr
