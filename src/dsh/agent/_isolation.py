"""A subagent in its own git worktree: an agent type's ``isolation: worktree``.

As 2.1.332 runs one (recorded: ``benchmarks/record_claude_worktree.py``,
``tests/fixtures/claude_worktree.json``, ``subagent-native`` and ``-changed``): before the
child starts, ``git worktree add`` at ``<repository>/.claude/worktrees/agent-<agent id>`` on
a new branch ``worktree-agent-<agent id>``; the child works there (its tools and hooks, whose
``CLAUDE_PROJECT_DIR`` stays the project). When it ends, a worktree with no change is
removed with its branch; one with changes is kept, and the caller's result names it
(``worktreePath:``, ``worktreeBranch:`` after the ``agentId:`` line). The settings'
``worktree`` (``WORKTREE_SETTINGS``) shape it as they shape ``--worktree``'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dsh.base._worktree import Worktree, WorktreeSettings, create_worktree, remove_if_unchanged
from dsh.messages import Content, TextBlock
from dsh.tools import ToolResult

__all__ = ["isolated_worktree", "named_result", "settled_result"]


def isolated_worktree(
    project: Path, agent_id: str, settings: WorktreeSettings | None = None
) -> Worktree:
    """The worktree of the subagent ``agent_id``, following the ``worktree`` ``settings`` as
    ``--worktree`` does (2.1.332 makes both with one function: ``baseRef``, ``sparsePaths``,
    then ``symlinkDirectories``); ``WorktreeError`` when it cannot be made."""
    return create_worktree(project, f"agent-{agent_id}", settings)


def named_result(result: ToolResult, path: Path) -> ToolResult:
    """``result`` naming a worktree a ``WORKTREE_MAKER`` made (``worktreePath:`` alone, as
    2.1.332's result names one its WorktreeCreate hook made: ``worktree-subagent``)."""
    if result.is_error:
        return result
    text = _with_lines(result.text, f"worktreePath: {path}")
    return ToolResult.ok(
        _shaped(result, text), output=_with_keys(result.output, worktreePath=str(path))
    )


def _with_keys(output: Any, **keys: str) -> Any:
    """The call's record with ``keys`` before its ``canContinueAgent`` (2.1.332's order)."""
    if not isinstance(output, dict):
        return output
    last = {k: v for k, v in output.items() if k == "canContinueAgent"}
    return {**{k: v for k, v in output.items() if k not in last}, **keys, **last}


def _with_lines(text: str, lines: str) -> str:
    """``text`` with ``lines`` before its ``<usage>`` block (at its end when it has none)."""
    head, usage, tail = text.rpartition("\n<usage>")
    return f"{head}\n{lines}{usage}{tail}" if usage else f"{text}\n{lines}"


def settled_result(result: ToolResult, worktree: Worktree) -> ToolResult:
    """``result`` once the child's ``worktree`` is settled: removed when unchanged, else
    named in the result's text, before its ``<usage>`` block."""
    if remove_if_unchanged(worktree) or result.is_error:
        return result
    lines = f"worktreePath: {worktree.path}\nworktreeBranch: {worktree.branch}"
    output = _with_keys(
        result.output, worktreePath=str(worktree.path), worktreeBranch=worktree.branch
    )
    return ToolResult.ok(_shaped(result, _with_lines(result.text, lines)), output=output)


def _shaped(result: ToolResult, text: str) -> Content:
    """``text`` in ``result``'s shape: one text block when the result was one (2.1.332's
    Agent result), else plain text."""
    return (TextBlock(text),) if isinstance(result.content, tuple) else text
