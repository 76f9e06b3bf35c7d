"""The plain readers of hook files agree with the pydantic models wherever they answer.

For generated settings, matcher groups and handlers (the known keys with values
of the right type and of wrong ones, nulls, bounds, extra keys): when a plain
reader gives a value, the model validates the same input to the same value;
when the model refuses the input, the plain reader gives nothing. And the plain
shapes real files use are read plainly.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from dsh.hooks.claude.settings._models import CommandHandlerModel, GroupModel, SettingsModel
from dsh.hooks.claude.settings._plain import (
    CommandHandler,
    MatcherGroup,
    Settings,
    plain_group,
    plain_handler,
    plain_settings,
)

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["", "command", "bash", "powershell", "continue", "block", "x"]),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def _objects(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(keys) | st.text(max_size=6), _JSON, max_size=len(keys))


def _same(plain: Any, view: Any) -> bool:
    # NaN never reaches a view (the plain reader and the model both refuse it); compare values.
    return bool(plain == view)


def _check(
    data: dict[str, Any], plain: Any, model: type[Any], view: Any, *, ignore_type: bool = False
) -> None:
    try:
        validated = model.model_validate(data)
    except ValidationError:
        assert plain is None, f"the model refuses {data!r} but the plain reader gave {plain!r}"
        return
    if plain is not None:
        expected = view.of(validated)
        assert _same(plain, expected), (data, plain, expected)


_SETTINGS_KEYS = [
    "hooks",
    "disableAllHooks",
    "allowManagedHooksOnly",
    "enabledPlugins",
    "strictPluginOnlyCustomization",
    "permissions",
]


@settings(max_examples=500, deadline=None)
@given(_objects(_SETTINGS_KEYS))
def test_settings(data: dict[str, Any]) -> None:
    _check(data, plain_settings(data), SettingsModel, Settings)


@settings(max_examples=500, deadline=None)
@given(_objects(["matcher", "hooks", "extra"]))
def test_groups(data: dict[str, Any]) -> None:
    _check(data, plain_group(data), GroupModel, MatcherGroup)


_HANDLER_KEYS = [
    "type",
    "command",
    "args",
    "timeout",
    "async",
    "async_",
    "asyncRewake",
    "shell",
    "onFailure",
    "statusMessage",
    "once",
    "if",
    "if_",
]


_TIMEOUTS = st.one_of(
    st.sampled_from([0, 0.0, -0.0, -1, 1, 0.5, 2**53, 2**53 + 1, 2**60, True, False]),
    st.sampled_from([math.inf, -math.inf, math.nan, 1e308, 5e-324]),
    st.integers(-3, 2**54),
    st.floats(),
)
# Values each key plausibly has, right or nearly.
_PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "args": st.lists(st.one_of(st.text(max_size=3), st.integers()), max_size=3),
    "async": st.one_of(st.booleans(), st.integers(0, 1)),
    "asyncRewake": st.one_of(st.booleans(), st.integers(0, 1)),
    "once": st.one_of(st.booleans(), st.sampled_from(["true", 1])),
    "shell": st.sampled_from(["bash", "powershell", "sh", "Bash", ""]),
    "onFailure": st.sampled_from(["continue", "block", "stop", ""]),
    "statusMessage": st.one_of(st.text(max_size=4), st.integers()),
    "if": st.one_of(st.text(max_size=4), st.booleans()),
    "async_": st.booleans(),
    "if_": st.text(max_size=3),
    "other": _JSON,
}


@st.composite
def _handlers(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        data = draw(_objects(_HANDLER_KEYS))
    else:  # most real handlers: known keys with (nearly) right values
        keys = draw(st.lists(st.sampled_from(sorted(_PLAUSIBLE)), unique=True, max_size=5))
        data = {key: draw(_PLAUSIBLE[key]) for key in keys}
    if draw(st.booleans()):
        data["type"] = draw(st.sampled_from(["command", "command", "prompt", "Command"]))
        data["command"] = draw(st.text(max_size=8))
    if draw(st.booleans()):
        data["timeout"] = draw(_TIMEOUTS)
    return data


@settings(max_examples=800, deadline=None)
@given(_handlers())
def test_handlers(data: dict[str, Any]) -> None:
    _check(data, plain_handler(data), CommandHandlerModel, CommandHandler)


def test_the_common_shapes_are_read_plainly() -> None:
    handler = {"type": "command", "command": "./hook.sh", "timeout": 5, "async": False}
    read = plain_handler(handler)
    assert read is not None
    assert read.timeout == 5.0
    assert isinstance(read.timeout, float)
    assert not math.isnan(read.timeout)
    assert read == CommandHandler.of(CommandHandlerModel.model_validate(handler))
    group = {"matcher": "Bash", "hooks": [handler]}
    assert plain_group(group) == MatcherGroup.of(GroupModel.model_validate(group))
    file = {"hooks": {"PreToolUse": [group]}, "disableAllHooks": False, "permissions": {}}
    assert plain_settings(file) == Settings.of(SettingsModel.model_validate(file))
    # What only the model may judge: a null, an empty command, a bool timeout.
    assert plain_handler({**handler, "statusMessage": None}) is None
    assert plain_handler({**handler, "command": ""}) is None
    assert plain_handler({**handler, "timeout": True}) is None
