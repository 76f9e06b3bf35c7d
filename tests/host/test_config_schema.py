"""The configuration's one schema: any layer gives its values or a ``ConfigError``, nothing else."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from unittest import mock

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.host import ConfigError, load_config
from dsh.host._config import CONFIG_KEYS
from dsh.host._config_schema import Settings

_VALUES = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["", "=", "A\x00", "default", "plan", "json", "text", "stream-json", "m:f"]),
    st.sampled_from(["acceptEdits", "bypassPermissions", "Plan", "JSON", "KEY", "a:b, c:d"]),
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.lists(st.one_of(st.text(max_size=3), st.integers()), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
_LAYERS = st.dictionaries(st.sampled_from([*CONFIG_KEYS, "other"]), _VALUES, max_size=4)


def test_the_keys_are_the_schemas_fields() -> None:
    assert tuple(f.name for f in msgspec.structs.fields(Settings)) == CONFIG_KEYS


@settings(max_examples=600, deadline=None)
@given(_LAYERS)
def test_any_flag_layer_gives_its_values_or_a_config_error(values: dict[str, Any]) -> None:
    given_flags = {k: v for k, v in values.items() if v is not None and v != ()}
    try:
        config = load_config(Path("/nonexistent"), flags=values, user_file=Path("/none.toml"))
    except ConfigError as exc:
        refused = str(exc)
        assert refused.startswith("command line: --"), refused
        return
    for key in given_flags:
        assert config.sources[key] == f"flag --{key.replace('_', '-')}"


def test_the_flags_of_an_ordinary_run() -> None:
    flags = {"model": "m", "base_url": "http://127.0.0.1:1/v1", "permission_mode": "plan"}
    config = load_config(Path("/nonexistent"), flags={**flags, "plugins": "a:b, c:d"})
    assert (config.model, config.base_url, config.permission_mode) == tuple(flags.values())
    assert config.plugins == ("a:b", "c:d")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            {"api_key_env": "A=B"},
            "command line: --api_key_env: 'A=B' is not an environment variable name",
        ),
        (
            {"model": 3, "output_format": "yaml"},
            "command line: --model: Input should be a valid string",
        ),
        (
            {"output_format": "yaml"},
            "command line: --output_format: Input should be 'text', 'json' or 'stream-json'",
        ),
        ({"plugins": 3}, "command line: --plugins: Input should be a valid tuple"),
        ({"plugins": ["a:b", "x"]}, "command line: --plugins: plugin 'x' is not module:function"),
    ],
)
def test_refusals_in_the_words_users_see(flags: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(Path("/nonexistent"), flags=flags, user_file=Path("/none.toml"))
    assert str(caught.value) == message


def test_the_environment_is_read_case_insensitively_without_empty_values() -> None:
    clean = {k: v for k, v in os.environ.items() if not k.lower().startswith("dsh_")}
    env = {**clean, "dsh_model": "m", "DSH_PLUGINS": "a:b,c:d", "DSH_BASE_URL": ""}
    with mock.patch.dict(os.environ, env, clear=True):
        config = load_config(Path("/nonexistent"), user_file=Path("/none.toml"))
    assert (config.model, config.plugins, config.base_url) == ("m", ("a:b", "c:d"), None)
    assert config.sources["model"] == "env DSH_MODEL"
