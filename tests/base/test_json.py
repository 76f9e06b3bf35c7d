"""The one JSON freezer: exact classes fast, scalar subclasses made plain, the rest checked."""

from __future__ import annotations

import enum
import json
import math
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.base import FrozenDict, NotJSONError, freeze_json, thaw_json
from dsh.base._json import freeze_loaded

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=20,
)


class Colour(enum.StrEnum):
    RED = "red"


class Size(enum.IntEnum):
    BIG = 3


class View(Mapping[str, Any]):
    """A mapping that is not a dict."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


def _exact(value: object) -> bool:
    """Made only of FrozenDict, tuples and scalars of their exact class."""
    if type(value) is FrozenDict:
        return all(type(k) is str and _exact(v) for k, v in value.items())
    if type(value) is tuple:
        return all(_exact(v) for v in value)
    return value is None or type(value) in (bool, int, float, str)


@given(json_values)
def test_freezing_round_trips_through_thawing_and_json(value: Any) -> None:
    frozen = freeze_json(value)
    assert _exact(frozen)
    assert thaw_json(frozen) == value
    assert json.loads(json.dumps(frozen)) == json.loads(json.dumps(value))
    assert freeze_json(frozen) == frozen
    assert freeze_loaded(json.loads(json.dumps(value))) == frozen


def test_scalar_subclasses_and_foreign_containers_freeze_plain() -> None:
    frozen = freeze_json(
        {"c": Colour.RED, "n": Size.BIG, "v": View({"k": (1, [2])}), "o": OrderedDict(a=1)}
    )
    assert frozen == {"c": "red", "n": 3, "v": {"k": (1, (2,))}, "o": {"a": 1}}
    assert _exact(frozen)
    assert _exact(freeze_json({Colour.RED: 1}))


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"a": [1, {"b": math.nan}]}, r"^\$\.a\[1\]\.b: nan is not a JSON number$"),
        ({"a": {1: "x"}}, r"^\$\.a: key 1 is not a string$"),
        ({"a": b"x"}, r"^\$\.a: bytes is not JSON$"),
        ([{1, 2}], r"^\$\[0\]: set is not JSON$"),
    ],
)
def test_refusals_name_the_first_offending_place(value: object, where: str) -> None:
    with pytest.raises(NotJSONError, match=where):
        freeze_json(value)


def test_a_cycle_is_named_not_a_recursion_error() -> None:
    loop: dict[str, Any] = {"x": 1}
    loop["self"] = [loop]
    with pytest.raises(NotJSONError, match=r"^\$\.self\[0\]: contains a reference cycle$"):
        freeze_json(loop, "$")


def test_the_caller_names_the_root_of_the_path() -> None:
    with pytest.raises(NotJSONError) as caught:
        freeze_json({"a": object()}, "tool/result.output")
    assert caught.value.path == "tool/result.output.a"
    assert caught.value.problem == "object is not JSON"


def test_a_loaded_nan_is_kept_as_json_loads_gave_it() -> None:
    frozen = freeze_loaded(json.loads('{"a": [NaN]}'))
    assert math.isnan(frozen["a"][0])


def test_frozen_dicts_refuse_mutation() -> None:
    frozen = freeze_json({"a": [1]})
    with pytest.raises(TypeError, match="frozen"):
        frozen["b"] = 2
    with pytest.raises(TypeError, match="frozen"):
        frozen.update(b=2)
