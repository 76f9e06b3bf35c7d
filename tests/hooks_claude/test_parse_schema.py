"""The hook files' one decoder: any JSON gives a value or refusals in the diagnostics' words.

For generated settings, matcher groups, handlers and plugin files (the known
keys with values of the right type and of wrong ones, nulls, bounds, extra
keys), ``decode`` gives the schema's value or raises ``SchemaRefusal`` (nothing
else), and each refusal is worded for a diagnostic; then the shapes real files
use and the words users see.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh._schema import SchemaRefusal, decode
from dsh.hooks.claude.settings._models import (
    AgentHandler,
    CommandHandler,
    HttpHandler,
    MatcherGroup,
    McpToolHandler,
    PluginHooksFileModel,
    PluginManifestModel,
    PromptHandler,
    Settings,
    describe_validation_error,
    extra,
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


_SETTINGS_KEYS = [
    "hooks",
    "disableAllHooks",
    "allowManagedHooksOnly",
    "enabledPlugins",
    "strictPluginOnlyCustomization",
    "permissions",
]


def _check(data: dict[str, Any], schema: type[msgspec.Struct]) -> None:
    try:
        value = decode(data, schema)
    except SchemaRefusal as exc:
        described = describe_validation_error(exc)
        assert described, data
        for field, _kind, reason in described:
            assert reason.startswith("`"), reason
            assert field == "" or field in data or reason.endswith("is required"), (data, field)
        return
    assert isinstance(value, schema)
    assert set(extra(data, schema)) <= set(data)


@settings(max_examples=500, deadline=None)
@given(_objects(_SETTINGS_KEYS))
def test_settings(data: dict[str, Any]) -> None:
    _check(data, Settings)


@settings(max_examples=500, deadline=None)
@given(_objects(["matcher", "hooks", "extra"]))
def test_groups(data: dict[str, Any]) -> None:
    _check(data, MatcherGroup)


@settings(max_examples=300, deadline=None)
@given(_objects(["name", "hooks", "description", "extra"]))
def test_plugin_files(data: dict[str, Any]) -> None:
    _check(data, PluginManifestModel)
    _check(data, PluginHooksFileModel)


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
    _check(data, CommandHandler)
    try:
        handler = decode(data, CommandHandler)
    except SchemaRefusal:
        return
    assert handler.timeout is None or (handler.timeout > 0 and math.isfinite(handler.timeout))
    assert handler.command


def test_the_common_shapes() -> None:
    handler = {"type": "command", "command": "./hook.sh", "timeout": 5, "async": False, "x": 1}
    read = decode(handler, CommandHandler)
    assert read.timeout == 5.0
    assert isinstance(read.timeout, float)
    assert (read.command, read.async_, read.onFailure) == ("./hook.sh", False, "continue")
    assert extra(handler, CommandHandler) == {"x": 1}
    group = {"matcher": "Bash", "hooks": [handler], "y": 2}
    assert decode(group, MatcherGroup) == MatcherGroup(matcher="Bash", hooks=[handler])
    assert extra(group, MatcherGroup) == {"y": 2}
    file: dict[str, Any] = {"hooks": {"PreToolUse": [group]}, "disableAllHooks": False}
    file["permissions"] = {}
    assert decode(file, Settings) == Settings(hooks=file["hooks"], disableAllHooks=False)


def _reasons(data: dict[str, Any], schema: type[msgspec.Struct]) -> list[tuple[str, str, str]]:
    with pytest.raises(SchemaRefusal) as caught:
        decode(data, schema)
    return describe_validation_error(caught.value)


def test_refusals_in_the_words_users_see() -> None:
    ok = {"type": "command", "command": "x"}
    assert _reasons({**ok, "timeout": True}, CommandHandler) == [
        ("timeout", "float_type", "`timeout`: Input should be a valid number (got True)")
    ]
    assert _reasons({**ok, "timeout": math.inf}, CommandHandler) == [
        ("timeout", "finite_number", "`timeout`: Input should be a finite number (got inf)")
    ]
    assert _reasons({**ok, "timeout": 0}, CommandHandler) == [
        ("timeout", "greater_than", "`timeout`: Input should be greater than 0 (got 0)")
    ]
    assert _reasons({"type": "command", "command": "", "shell": "sh"}, CommandHandler) == [
        (
            "command",
            "string_too_short",
            "`command`: String should have at least 1 character (got '')",
        ),
        ("shell", "literal_error", "`shell`: Input should be 'bash' or 'powershell' (got 'sh')"),
    ]
    assert _reasons({"matcher": 3}, MatcherGroup) == [
        ("matcher", "string_type", "`matcher`: Input should be a valid string (got 3)"),
        ("hooks", "missing", "`hooks` is required"),
    ]
    assert _reasons({"strictPluginOnlyCustomization": [1]}, Settings) == [
        (
            "strictPluginOnlyCustomization",
            "bool_type",
            "`strictPluginOnlyCustomization.bool`: Input should be a valid boolean (got [1])",
        ),
        (
            "strictPluginOnlyCustomization",
            "string_type",
            "`strictPluginOnlyCustomization.list[str].0`: Input should be a valid string (got 1)",
        ),
    ]
    assert _reasons({"hooks": 3}, PluginManifestModel)[2] == (
        "hooks",
        "dict_type",
        "`hooks.dict[str,any]`: Input should be a valid dictionary (got 3)",
    )


_EVERY_SHARED_FIELD_BAD = {"timeout": 0, "statusMessage": 1, "once": "x", "if": 2}


@pytest.mark.parametrize(
    ("schema", "own", "order"),
    [
        (
            CommandHandler,
            {"type": "command", "command": "", "args": [1], "shell": "sh", "onFailure": "x"},
            ["command", "args", "timeout", "shell", "onFailure"],
        ),
        (
            HttpHandler,
            {"type": "http", "url": "", "headers": 1, "onFailure": "x"},
            ["url", "headers", "timeout", "onFailure"],
        ),
        (
            PromptHandler,
            {"type": "prompt", "continueOnBlock": 1},
            ["prompt", "continueOnBlock", "timeout"],
        ),
        (AgentHandler, {"type": "agent", "prompt": "", "model": 1}, ["prompt", "model", "timeout"]),
        (
            McpToolHandler,
            {"type": "mcp_tool", "tool": "", "input": 1},
            ["server", "tool", "input", "timeout"],
        ),
    ],
)
def test_a_handlers_problems_are_named_in_its_own_field_order(
    schema: type[msgspec.Struct], own: dict[str, Any], order: list[str]
) -> None:
    # The shared fields live on one base struct (msgspec puts them first); the problems
    # are still named content fields, timeout, run options, then statusMessage, once, if.
    data = dict(reversed([*own.items(), *_EVERY_SHARED_FIELD_BAD.items()]))
    with pytest.raises(SchemaRefusal) as caught:
        decode(data, schema)
    named = [field for field, _kind, _reason in describe_validation_error(caught.value, schema)]
    assert named == [*order, "statusMessage", "once", "if"]
