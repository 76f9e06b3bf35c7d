"""``@frozen`` behaves as ``@dataclass(frozen=True, slots=True)`` in every observable way."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh._frozen import frozen


@frozen
class Point:
    x: Any
    y: Any = 0
    note: str = field(default="", compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class RefPoint:
    x: Any
    y: Any = 0
    note: str = field(default="", compare=False, repr=False)


@frozen(kw_only=True)
class Base:
    id: str = "b"


@frozen(kw_only=True)
class Child(Base):
    extra: int


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5), st.tuples()
)


@given(scalars, scalars, scalars, scalars, st.text(max_size=3), st.text(max_size=3))
def test_eq_hash_and_repr_match_dataclass(a: Any, b: Any, c: Any, d: Any, n1: str, n2: str) -> None:
    mine1, mine2 = Point(a, b, n1), Point(c, d, n2)
    ref1, ref2 = RefPoint(a, b, n1), RefPoint(c, d, n2)
    assert (mine1 == mine2) == (ref1 == ref2)
    assert (mine1 != mine2) == (ref1 != ref2)
    assert (mine1 == mine1) == (ref1 == ref1)  # an identical NaN is equal to itself
    assert hash(mine1) == hash(ref1)
    assert repr(mine1) == repr(ref1).replace("RefPoint", "Point")


def test_it_is_a_frozen_slotted_dataclass() -> None:
    p = Point(1, 2)
    assert dataclasses.is_dataclass(p)
    assert Point.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert "__slots__" in Point.__dict__
    assert not hasattr(p, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 3  # type: ignore[misc]
    assert dataclasses.replace(p, y=5) == Point(1, 5)
    assert pickle.loads(pickle.dumps(p)) == p
    assert Point(1, 2, "a") == Point(1, 2, "b")  # compare=False is left out


def test_kw_only_and_inheritance() -> None:
    child = Child(extra=1)
    assert child == Child(id="b", extra=1)
    assert repr(child) == "Child(id='b', extra=1)"
    # Different classes never compare equal, as with dataclass.
    assert Base() != Child(extra=1)
    assert (Base() == Child(extra=1)) is False
    with pytest.raises(TypeError):
        Child(1)  # type: ignore[call-arg, arg-type]


def test_what_the_class_body_defines_wins() -> None:
    @frozen
    class Loud:
        x: int

        def __repr__(self) -> str:
            return "LOUD"

        def __eq__(self, other: object) -> bool:
            return True

    assert repr(Loud(1)) == "LOUD"
    assert Loud(1) == Loud(2)
    # A body __eq__ alone still gets the field hash, as dataclass(frozen=True) gives it.
    assert hash(Loud(1)) == hash((1,))

    @frozen
    class Unhashable:
        x: int
        __hash__ = None  # type: ignore[assignment]

    with pytest.raises(TypeError):
        hash(Unhashable(1))
