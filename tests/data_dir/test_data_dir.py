"""``user_data_dir`` and ``user_config_dir`` are where ``platformdirs`` would put dsh's on this
platform."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from dsh._data_dir import user_config_dir, user_data_dir


@pytest.mark.parametrize("home", ["tmp", "relative/home", ""])
@pytest.mark.parametrize("xdg", [None, "", "   ", "/srv/data", "relative/data"])
def test_it_agrees_with_platformdirs(
    xdg: str | None, home: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path) if home == "tmp" else home)
    for variable in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        if xdg is None:
            monkeypatch.delenv(variable, raising=False)
        else:
            monkeypatch.setenv(variable, xdg)
    assert user_data_dir() == Path(platformdirs.user_data_dir("dsh", appauthor=False))
    assert user_config_dir() == Path(platformdirs.user_config_dir("dsh", appauthor=False))


def test_sessions_and_transcripts_live_under_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from dsh.hooks.claude.transcript._projection import default_transcript_dir
    from dsh.session import default_data_dir
    from dsh.session._store import DATA_DIR_ENV

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    assert default_data_dir() == tmp_path / "dsh" / "sessions"
    assert default_transcript_dir() == tmp_path / "dsh" / "claude-transcripts"
