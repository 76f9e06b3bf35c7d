"""HookCommand, HookOrigin and the argv helpers: validation and deduplication keys."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.hook_protocol import HookCommand, HookOrigin, exec_argv, shell_argv

ORIGIN = HookOrigin(
    source="/p/.claude/settings.json", plugin="fmt", event="PostToolUse", group=1, index=2
)


def test_shell_and_exec_forms() -> None:
    assert shell_argv("echo hi") == ("sh", "-c", "echo hi")
    assert shell_argv("echo hi", shell="bash") == ("bash", "-c", "echo hi")
    assert exec_argv("node", ["hook.js", "--x"]) == ("node", "hook.js", "--x")
    assert exec_argv("true") == ("true",)


@pytest.mark.parametrize("bad", ["", "   "])
def test_shell_form_rejects_an_empty_command(bad: str) -> None:
    with pytest.raises(ValueError, match="non-empty"):
        shell_argv(bad)


def test_exec_form_rejects_a_string_for_args() -> None:
    with pytest.raises(TypeError, match="list of strings"):
        exec_argv("node", "hook.js")


def test_origin_describes_where_a_hook_was_declared() -> None:
    assert ORIGIN.describe() == "PostToolUse[1][2] in /p/.claude/settings.json (plugin fmt)"


def test_a_command_is_a_hashable_value() -> None:
    cmd = HookCommand(argv=["sh", "-c", "x"], timeout=5, origin=ORIGIN, env={"A": "1"})  # type: ignore[arg-type]
    assert cmd.argv == ("sh", "-c", "x")
    assert isinstance(cmd.timeout, float)
    assert hash(cmd) == hash(
        HookCommand(argv=("sh", "-c", "x"), timeout=5, origin=ORIGIN, env={"A": "1"})
    )
    with pytest.raises(TypeError):
        cmd.env["B"] = "2"  # type: ignore[index]


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10)))
def test_timeout_must_be_finite_and_positive(timeout: float) -> None:
    if math.isfinite(timeout) and timeout > 0:
        assert HookCommand(argv=("true",), timeout=timeout, origin=ORIGIN).timeout == timeout
    else:
        with pytest.raises(ValueError, match=r"PostToolUse\[1\]\[2\].*timeout"):
            HookCommand(argv=("true",), timeout=timeout, origin=ORIGIN)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"argv": ()}, ValueError, "argv is empty"),
        ({"argv": "sh -c x"}, TypeError, "tuple of str"),
        ({"argv": ("sh", 3)}, TypeError, r"argv\[1\]"),
        ({"argv": ("",)}, ValueError, "program"),
        ({"argv": ("a\0b",)}, ValueError, "NUL"),
        ({"timeout": True}, ValueError, "timeout"),
        ({"on_failure": "continue"}, ValueError, "on_failure"),
        ({"cwd": "/tmp"}, TypeError, "pathlib.Path"),
        ({"env": {"A": 1}}, TypeError, "env entries"),
        ({"env": {"A=B": "1"}}, ValueError, "invalid env entry"),
    ],
)
def test_bad_declarations_name_the_problem_and_the_hook(
    kwargs: dict[str, object], error: type[Exception], match: str
) -> None:
    fields: dict[str, object] = {"argv": ("true",), "timeout": 1.0, "origin": ORIGIN, **kwargs}
    with pytest.raises(error, match=match) as info:
        HookCommand(**fields)  # type: ignore[arg-type]
    assert "settings.json" in str(info.value)


def test_origin_validation() -> None:
    with pytest.raises(ValueError, match="event name is empty"):
        HookOrigin(source="x", event="")
    with pytest.raises(ValueError, match="group and index"):
        HookOrigin(source="x", event="Stop", index=-1)


def test_default_key_is_argv_env_and_cwd() -> None:
    a = HookCommand(argv=("x",), timeout=1, origin=ORIGIN)
    b = HookCommand(argv=("x",), timeout=9, origin=HookOrigin(source="other", event="PostToolUse"))
    assert a.key == b.key  # the same handler, declared elsewhere with another timeout
    assert a.key != HookCommand(argv=("x",), timeout=1, origin=ORIGIN, cwd=Path("/")).key
    assert a.key != HookCommand(argv=("x",), timeout=1, origin=ORIGIN, env={"A": "1"}).key
    assert a.key != HookCommand(argv=("x", "y"), timeout=1, origin=ORIGIN).key


def test_an_explicit_dedup_key_replaces_the_default() -> None:
    a = HookCommand(argv=("x",), timeout=1, origin=ORIGIN, dedup_key=("p1", "x"))
    b = HookCommand(argv=("x",), timeout=1, origin=ORIGIN, dedup_key=("p2", "x"))
    assert a.key == ("p1", "x")
    assert a.key != b.key
