"""Which error a refused write shows, and that the on-failure guess (Codex's
``is_likely_sandbox_denied``) takes each for the sandbox's doing (docs/sandbox.md).

Landlock refuses a write outside the writable roots with ``EACCES`` (``Permission denied``);
a protected path is a read-only bind mount, so a write beneath it fails with ``EROFS``
(``Read-only file system``), as under Codex's bubblewrap; the network filter says ``EPERM``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from dsh.base import freeze_json
from dsh.base._sandbox import SandboxPolicy, sandbox_mechanism
from dsh.tools import ToolInvocation, ToolResult, Workspace
from dsh.tools.builtin import BASH_TOOL

pytestmark = pytest.mark.skipif(
    sandbox_mechanism()[0] is None, reason=f"no sandbox here: {sandbox_mechanism()[1]}"
)

_CONNECT = f"{sys.executable} -c 'import socket; socket.socket()'"


def _bash(workspace: Workspace, command: str) -> ToolResult:
    args = {"command": command}

    async def run() -> ToolResult:
        return await BASH_TOOL.run(ToolInvocation("Bash", freeze_json(args), workspace))

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("echo x > ../outside/f", "Permission denied"),  # Landlock: EACCES
        ("echo x > .git/config", "Read-only file system"),  # a protected path: EROFS
        ("touch .git/new", "Read-only file system"),
        (_CONNECT, "Operation not permitted"),  # the network filter: EPERM
    ],
)
def test_each_refusal_is_taken_for_the_sandbox(tmp_path: Path, command: str, error: str) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text("kept\n")
    (tmp_path / "outside").mkdir()
    policy = SandboxPolicy(
        mode="workspace-write", exclude_slash_tmp=True, exclude_tmpdir_env_var=True
    )
    result = _bash(Workspace(cwd=project, sandbox=policy), command)
    assert result.is_error
    assert error in result.text
    assert result.info == {"sandbox": "workspace-write"}  # on-failure would offer a rerun
    assert (project / ".git" / "config").read_text() == "kept\n"
    assert sorted(p.name for p in (project / ".git").iterdir()) == ["config"]
    assert list((tmp_path / "outside").iterdir()) == []


def test_a_working_directory_under_deny_read_is_refused(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    policy = SandboxPolicy(mode="workspace-write", unreadable=(tmp_path,))
    result = _bash(Workspace(cwd=tmp_path / "project", sandbox=policy), "touch ran.txt")
    assert result.is_error
    assert f"the working directory {tmp_path / 'project'} is under a denyRead path" in result.text
    assert not (tmp_path / "project" / "ran.txt").exists()
