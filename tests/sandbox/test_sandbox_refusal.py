"""A sandboxed mode with no mechanism refuses to run commands: never silently unsandboxed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from dsh.base import _sandbox_kernel, freeze_json
from dsh.base._sandbox import SandboxPolicy, sandbox_status
from dsh.tools import ToolInvocation, ToolResult, Workspace
from dsh.tools.builtin import BASH_TOOL


def _bash(workspace: Workspace, command: str, background: bool = False) -> ToolResult:
    args = {"command": command, "run_in_background": background}

    async def run() -> ToolResult:
        return await BASH_TOOL.run(ToolInvocation("Bash", freeze_json(args), workspace))

    return asyncio.run(run())


@pytest.mark.parametrize("background", [False, True])
def test_no_mechanism_refuses_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, background: bool
) -> None:
    monkeypatch.setattr(_sandbox_kernel, "kernel_support", lambda: "no Landlock in this test")
    policy = SandboxPolicy(mode="workspace-write", source="a test")
    workspace = Workspace(cwd=tmp_path, sandbox=policy)
    result = _bash(workspace, "touch ran.txt", background)
    assert result.is_error
    assert "cannot run commands here: no Landlock in this test" in result.text
    assert not (tmp_path / "ran.txt").exists()
    assert "commands are refused" in sandbox_status(policy)


def test_danger_full_access_runs_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_sandbox_kernel, "kernel_support", lambda: "no Landlock in this test")
    workspace = Workspace(cwd=tmp_path, sandbox=SandboxPolicy(mode="danger-full-access"))
    result = _bash(workspace, "touch ran.txt")
    assert not result.is_error
    assert (tmp_path / "ran.txt").exists()
