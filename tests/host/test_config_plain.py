"""The configuration's plain path gives what its pydantic schema gives, wherever it answers."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from dsh.host._config import CONFIG_KEYS
from dsh.host._config_plain import plain_layer
from dsh.host._config_schema import Settings

_VALUES = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["", "=", "A\x00", "default", "plan", "json", "text", "stream-json", "m:f"]),
    st.sampled_from(["acceptEdits", "bypassPermissions", "Plan", "JSON", "KEY", "OPENAI_KEY"]),
    st.none(),
    st.booleans(),
    st.integers(),
    st.lists(st.text(max_size=3), max_size=2),
)
_LAYERS = st.dictionaries(st.sampled_from([*CONFIG_KEYS, "other"]), _VALUES, max_size=4)


def test_the_keys_are_the_schemas_fields() -> None:
    assert tuple(Settings.model_fields) == CONFIG_KEYS


@settings(max_examples=600, deadline=None)
@given(_LAYERS)
def test_plain_layers_validate_as_the_schema_does(values: dict[str, Any]) -> None:
    plain = plain_layer(values)
    try:
        validated = Settings.model_validate(values)
    except ValidationError:
        assert plain is None, values
        return
    if plain is not None:
        assert plain == {key: getattr(validated, key) for key in validated.model_fields_set}


def test_the_flags_of_an_ordinary_run_are_plain() -> None:
    flags = {"model": "m", "base_url": "http://127.0.0.1:1/v1", "permission_mode": "plan"}
    assert plain_layer(flags) == flags
    assert plain_layer({"plugins": "a:b"}) is None  # the schema splits it
    assert plain_layer({"api_key_env": "A=B"}) is None  # the schema refuses it
