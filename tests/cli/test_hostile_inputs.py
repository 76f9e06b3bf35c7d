"""Hostile input to the command's own parsers: stream-json stdin lines and config files.

Anything is either used or refused with the parser's own error naming the place: never
another exception (which the command would report as an internal error).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.cli._stream_input import ControlLine, StreamInputError, UserLine, parse_stream_line
from dsh.host import ConfigError, DshConfig, load_config

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
USERISH = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "control_request", 3])},
    optional={
        "message": JSONISH
        | st.fixed_dictionaries({"role": st.text(max_size=9), "content": JSONISH})
    },
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(max_size=60) | USERISH.map(json.dumps) | JSONISH.map(json.dumps), max_size=6)
)
def test_stream_input_is_prompts_or_an_error_naming_the_line(lines: list[str]) -> None:
    for n, line in enumerate(lines, 1):
        problem = ""
        try:
            parsed = parse_stream_line(line, n)
        except StreamInputError as exc:
            problem = str(exc)
        else:
            assert parsed is None or isinstance(parsed, UserLine | ControlLine)
        assert not problem or problem.startswith(f"stdin line {n}: ")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_a_config_file_is_used_or_a_config_error_naming_it(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / ".dsh").mkdir()
        (project / ".dsh" / "config.toml").write_bytes(data)
        problem = ""
        try:
            config = load_config(project, user_file=project / "none.toml")
        except ConfigError as exc:
            problem = str(exc)
        else:
            assert isinstance(config, DshConfig)
        assert not problem or "config.toml" in problem
