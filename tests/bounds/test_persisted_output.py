"""A tool result over its tool's limit is saved to a private file; the model sees a preview.

Claude Code 2.1.332's ``<persisted-output>``: Grep's limit is 20,000 characters.
"""

from __future__ import annotations

import re
import stat
from pathlib import Path

from tests.bounds.support import of_type, run, script, text, tool_use

_PERSISTED = re.compile(
    r"<persisted-output>\nOutput too large \((?P<size>[0-9.]+KB)\)\. Full output saved to: "
    r"(?P<path>\S+)\n\nPreview \(first 2KB\):\n(?P<preview>.*)\n\.\.\.\n</persisted-output>",
    re.DOTALL,
)


def test_grep_over_its_limit_is_persisted_with_a_preview(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    names = [f"{n:04d}_" + "long_name_" * 18 + ".txt" for n in range(300)]
    for name in names:
        (project / name).write_text("needle\n")
    model = script(
        tmp_path,
        tool_use("Grep", "toolu_grep1", pattern="needle", path=str(project)),
        text("done"),
    )
    done = run(tmp_path, project, model)
    assert done.returncode == 0, done.stderr
    [result] = of_type(tmp_path, "tool/result")
    content = result["content"]
    assert isinstance(content, str)
    match = _PERSISTED.fullmatch(content)
    assert match is not None, content[:300]
    assert len(content) < 2_300
    saved = Path(match["path"])
    assert saved.name == "toolu_grep1.txt"
    assert saved.parent.name == "tool-results"
    assert saved.parent.parent.parent == tmp_path / "sessions"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
    whole = saved.read_text()
    assert all(name in whole for name in names)
    assert whole.startswith(match["preview"])
    assert 1_000 < len(match["preview"]) <= 2_000
    assert not match["preview"].endswith("\n")


def test_a_result_under_the_limit_is_shown_whole(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("needle\n")
    model = script(
        tmp_path, tool_use("Grep", "toolu_g", pattern="needle", path=str(project)), text("ok")
    )
    done = run(tmp_path, project, model)
    assert done.returncode == 0, done.stderr
    [result] = of_type(tmp_path, "tool/result")
    assert "a.txt" in result["content"]
    assert "persisted-output" not in result["content"]
