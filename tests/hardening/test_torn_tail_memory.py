"""A huge torn tail is recovered in bounded memory, through the real ``dsh log`` and resume.

A log whose last line is 256 MiB without a newline (sparse: a crash artifact, or
planted) is read by ``dsh log`` and by ``--resume`` looking through the tail, never
holding it; resume moves it to the sidecar keeping its first and last MiB with a
note, not the whole of it.
"""

from __future__ import annotations

import json
from pathlib import Path

from dsh.session._jsonl_format import TAIL_KEPT
from tests.cli.support import run_dsh
from tests.hardening.test_bounded_readers import peak_rss_kib

TAIL = 256 << 20
PREFIX = b'{"type": "tool/result", "torn": "'


def _session_with_a_torn_tail(tmp_path: Path) -> tuple[Path, Path]:
    script = tmp_path / "script.json"
    reply = [{"type": "text", "text": "ok"}]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": [reply, reply]}]}}))
    (tmp_path / "project").mkdir()
    sessions = tmp_path / "sessions"
    done = run_dsh(
        "run", "hi", "--model", f"scripted:{script}", "--project", str(tmp_path / "project"),
        "--session-dir", str(sessions), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [log] = sessions.glob("*.jsonl")
    with log.open("ab") as f:
        f.write(PREFIX)
        f.flush()
        f.truncate(log.stat().st_size + TAIL)  # zeros to the end, no newline
    return log, script


def test_dsh_log_reads_past_a_huge_torn_tail_in_bounded_memory(tmp_path: Path) -> None:
    log, _script = _session_with_a_torn_tail(tmp_path)
    args = ["log", log.stem, "--session-dir", str(log.parent)]
    rc, peak = peak_rss_kib(args, tmp_path)
    assert rc == 0
    assert peak < 120 * 1024  # was over twice the tail (2 GiB for a 1 GiB tail)
    shown = run_dsh(*args, cwd=tmp_path)
    assert "turn/end" in shown.stdout
    assert log.stat().st_size > TAIL  # dsh log changes nothing


def test_resume_moves_a_huge_torn_tail_keeping_its_ends(tmp_path: Path) -> None:
    log, script = _session_with_a_torn_tail(tmp_path)
    args = ["run", "again", "--resume", log.stem, "--model", f"scripted:{script}"]
    args += ["--session-dir", str(log.parent), "--project", str(tmp_path / "project")]
    rc, peak = peak_rss_kib(args, tmp_path)
    assert rc == 0
    assert peak < 120 * 1024
    sidecar = log.with_name(log.name + ".corrupt")
    kept = sidecar.read_bytes()
    assert len(kept) < 2 * TAIL_KEPT + 200  # was the whole tail
    assert kept.startswith(PREFIX)
    torn = len(PREFIX) + TAIL
    assert (
        f"[dsh: {torn - 2 * TAIL_KEPT:,} bytes of this {torn:,}-byte tail left out]".encode()
        in kept
    )
    assert log.read_bytes().endswith(b"\n")
    shown = run_dsh("log", log.stem, "--session-dir", str(log.parent), cwd=tmp_path)
    assert shown.stdout.count("turn/end") == 2, shown.stdout + shown.stderr
