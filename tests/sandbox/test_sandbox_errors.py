"""Which error a refused write shows, and that the on-failure guess (Codex's
``is_likely_sandbox_denied``) takes each for the sandbox's doing (docs/sandbox.md).

Outside the writable roots every mount is read-only in the command's mount namespace, so a
write, ``chmod``, ``chown`` or ``touch`` there fails with ``EROFS`` (``Read-only file
system``), as under Codex's bubblewrap (Landlock, beneath, would say ``EACCES``); a
protected path is a read-only bind mount (``EROFS``); a protected name missing yet is a
placeholder (``File exists``); the network filter says ``EPERM``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.base import freeze_json
from dsh.base._sandbox import SandboxPolicy, sandbox_mechanism
from dsh.base._sandbox_placeholders import release_placeholders
from dsh.tools import ToolInvocation, ToolResult, Workspace
from dsh.tools.builtin import BASH_TOOL

pytestmark = pytest.mark.skipif(
    sandbox_mechanism()[0] is None, reason=f"no sandbox here: {sandbox_mechanism()[1]}"
)

_ERRORS = (
    "Permission denied",
    "Read-only file system",
    "Operation not permitted",
    "Device or resource busy",
    "File exists",
    "Invalid cross-device link",
)


def _bash(workspace: Workspace, command: str) -> ToolResult:
    args = {"command": command}

    async def run() -> ToolResult:
        return await BASH_TOOL.run(ToolInvocation("Bash", freeze_json(args), workspace))

    return asyncio.run(run())


_RECORDED = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "codex_sandbox_errors.json").read_text()
)
_CASES: dict[str, dict[str, Any]] = _RECORDED["cases"]


@pytest.mark.parametrize("case", sorted(_CASES))
def test_each_refusal_gives_codex_s_error_and_is_taken_for_the_sandbox(
    tmp_path: Path, case: str
) -> None:
    """Each operation as Codex 0.171's own sandbox refused it (recorded with its binary:
    ``benchmarks/record_codex_sandbox_errors.py``): the same error words, and the on-failure
    guess takes each for the sandbox's doing; nothing changed outside or beneath ``.git``."""
    recorded = _CASES[case]
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text("kept\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "f").write_text("x\n")
    before = (tmp_path / "outside" / "f").stat()
    policy = SandboxPolicy(
        mode="workspace-write", exclude_slash_tmp=True, exclude_tmpdir_env_var=True
    )
    command = recorded["command"].replace("python3", sys.executable)
    try:
        result = _bash(Workspace(cwd=project, sandbox=policy), command)
    finally:
        release_placeholders()
    assert result.is_error is (recorded["exit"] != 0), result.text
    assert [e for e in _ERRORS if e in result.text] == recorded["errors"], result.text
    # On-failure offers a rerun for a denial's words (Codex's guess), not for "File exists".
    denied = set(recorded["errors"]) - {"File exists"}
    assert result.info == ({"sandbox": "workspace-write"} if denied else None)
    assert (project / ".git" / "config").read_text() == "kept\n"
    assert sorted(p.name for p in (project / ".git").iterdir()) == ["config"]
    assert [p.name for p in (tmp_path / "outside").iterdir()] == ["f"]
    after = (tmp_path / "outside" / "f").stat()
    assert (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)
    assert not (project / ".codex").exists()


def test_a_working_directory_under_deny_read_is_refused(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    policy = SandboxPolicy(mode="workspace-write", unreadable=(tmp_path,))
    result = _bash(Workspace(cwd=tmp_path / "project", sandbox=policy), "touch ran.txt")
    assert result.is_error
    assert f"the working directory {tmp_path / 'project'} is under a denyRead path" in result.text
    assert not (tmp_path / "project" / "ran.txt").exists()
