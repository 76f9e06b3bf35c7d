"""``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`` through ``dsh run``: a Stop hook that always blocks is
obeyed as many times in a row as 2.1.332 would (read as its ``H.int()`` reads it, default 8,
0 or below no cap), then the turn ends with 2.1.332's notice; with no cap the step limit ends
it. The recorded default (8, the ninth block overridden) is the ``stop-cap`` replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh.hooks.claude._block_cap import stop_block_cap
from tests.cli.support import run_dsh

BLOCK = 'echo \'{"decision": "block", "reason": "again"}\''


def notice(blocks: int) -> str:
    """2.1.332's notice when the cap overrides the ``blocks``-th block in a row."""
    return (
        f"A hook blocked the turn from ending {blocks} consecutive times\u2014overriding and"
        " ending turn. For Stop/SubagentStop hooks, check stop_hook_active in the input and"
        " return success while it's true. Set CLAUDE_CODE_STOP_HOOK_BLOCK_CAP to raise this"
        " limit."
    )


def run_blocked(
    tmp_path: Path, cap: str, *extra: str, status: int = 0, in_settings: bool = False
) -> str:
    """One turn of ``dsh run`` whose Stop hook always blocks, the variable set to ``cap`` (in
    the process's environment, or the settings' ``env``): its output, stdout then stderr (its
    exit status ``status``)."""
    project = tmp_path / "project"
    project.mkdir()
    settings = tmp_path / "settings.json"
    hooks = {"Stop": [{"hooks": [{"type": "command", "command": BLOCK}]}]}
    variable = {"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": cap}
    env = variable if in_settings else {}
    settings.write_text(json.dumps({"hooks": hooks, "env": env}))
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"default": [{"type": "text", "text": "Done."}]}))
    done = run_dsh(
        "run",
        "--project",
        str(project),
        "--settings",
        str(settings),
        "--model",
        f"scripted:{script}",
        *extra,
        "go",
        cwd=project,
        env={"HOME": str(tmp_path / "home"), **({} if in_settings else variable)},
    )
    assert done.returncode == status, done.stderr
    return done.stdout + done.stderr


def test_a_cap_of_three_obeys_three_blocks_and_overrides_the_fourth(tmp_path: Path) -> None:
    out = run_blocked(tmp_path, "3")
    assert out.count("● Done.") == 4  # the first reply and three continuations
    assert out.count("Stop hook feedback:") == 3
    assert notice(4) in out
    assert "turn ended: completed" in out


def test_the_settings_env_sets_the_cap_as_2_1_332_applies_it(tmp_path: Path) -> None:
    out = run_blocked(tmp_path, "1", in_settings=True)
    assert out.count("Stop hook feedback:") == 1
    assert notice(2) in out


def test_a_cap_of_zero_is_no_cap_until_the_step_limit(tmp_path: Path) -> None:
    # Past the default 8: the loop's own continuation cap follows the variable too.
    out = run_blocked(tmp_path, "0", "--max-steps", "11", status=3)
    assert out.count("● Done.") == 11
    assert "consecutive times" not in out
    assert "continuation cap reached" not in out
    assert "turn ended: max_steps" in out


def test_an_unreadable_cap_is_the_default_eight(tmp_path: Path) -> None:
    out = run_blocked(tmp_path, "abc", "--max-steps", "20")
    assert out.count("Stop hook feedback:") == 8
    assert notice(9) in out
    assert "turn ended: completed" in out


@pytest.mark.parametrize(
    ("value", "cap"),
    [
        (None, None),
        ("3", 3),
        (" 5 ", 5),
        ("+2", 2),
        ("0", 0),
        ("-1", -1),
        ("3abc", 3),  # parseInt's leading integer
        ("2.9", 2),
        ("1e1", 10),  # a whole exponent form
        ("1.5e0", None),  # an exponent form that is no integer: NaN, the default
        ("1e400", None),  # infinity
        ("1,000", 1000),  # thousands, one separator throughout
        ("1_000", 1000),
        ("1,000_000", 1),  # mixed separators: parseInt's leading integer
        ("abc", None),
        ("", None),
        ("0x10", 0),
        ("\u0663", None),  # not an ASCII digit
    ],
)
def test_the_cap_is_read_as_2_1_332_reads_it(value: str | None, cap: int | None) -> None:
    env = {} if value is None else {"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": value}
    assert stop_block_cap(env) == cap
