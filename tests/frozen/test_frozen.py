"""``@frozen`` behaves as ``@dataclass(frozen=True, slots=True)`` in every observable way."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dsh._frozen_inits
from dsh._frozen import STDLIB_DATACLASSES, frozen, render_templates, slotted


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


# The __init__ dataclass would write, field kind by field kind, against the reference.
@frozen
class Shapes:
    a: int
    b: list[int] = field(default_factory=list)
    c: str = "c"
    d: int = field(default=4, kw_only=True)
    e: dict[str, int] = field(default_factory=dict, kw_only=True)
    f: int = field(default=6, init=False)
    g: list[int] = field(default_factory=lambda: [7], init=False, repr=False)


@dataclass(frozen=True, slots=True)
class RefShapes:
    a: int
    b: list[int] = field(default_factory=list)
    c: str = "c"
    d: int = field(default=4, kw_only=True)
    e: dict[str, int] = field(default_factory=dict, kw_only=True)
    f: int = field(default=6, init=False)
    g: list[int] = field(default_factory=lambda: [7], init=False, repr=False)


def _params(cls: type) -> list[tuple[str, Any, Any]]:
    sig = inspect.signature(cls)
    return [
        (p.name, p.kind, "<factory>" if repr(p.default).endswith("_FACTORY>") else p.default)
        for p in sig.parameters.values()
    ]


def test_the_generated_init_matches_dataclass() -> None:
    got = _params(Shapes)
    want = _params(RefShapes)
    # dataclass's factory sentinel and ours print differently; both stand for "not given".
    assert [(n, k) for n, k, _ in got] == [(n, k) for n, k, _ in want]
    assert [d for *_, d in got][2:4] == [d for *_, d in want][2:4]
    mine, ref = Shapes(1), RefShapes(1)
    assert [getattr(mine, f.name) for f in dataclasses.fields(mine)] == [
        getattr(ref, f.name) for f in dataclasses.fields(ref)
    ]
    assert Shapes(1).b is not Shapes(1).b  # a fresh factory value each time
    assert Shapes(1, [2], "x", d=5, e={"k": 1}).e == {"k": 1}
    assert Shapes.__match_args__ == RefShapes.__match_args__ == ("a", "b", "c")
    with pytest.raises(TypeError, match="unexpected keyword argument 'f'"):
        Shapes(1, f=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Shapes(1, [], "c", 4)  # type: ignore[call-arg]


def test_post_init_runs_after_the_fields_are_set() -> None:
    seen: list[tuple[int, int]] = []

    @frozen
    class Checked:
        x: int
        y: int = 2

        def __post_init__(self) -> None:
            seen.append((self.x, self.y))
            if self.x < 0:
                raise ValueError("x must not be negative")

    Checked(1)
    assert seen == [(1, 2)]
    with pytest.raises(ValueError, match="negative"):
        Checked(-1)


def test_assignment_errors_read_as_dataclass_writes_them() -> None:
    for obj in (Point(1), RefPoint(1)):
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'x'"):
            obj.x = 2  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'x'"):
            del obj.x


def test_declaration_errors_match_dataclass() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @frozen
        class Bad:
            a: int = 1
            b: int  # type: ignore[misc]

    @dataclass(slots=True)
    class Thawed:
        x: int

    with pytest.raises(TypeError, match="frozen dataclass from a non-frozen one"):

        @frozen
        class FrozenOnThawed(Thawed):  # type: ignore[misc]
            y: int

    with pytest.raises(TypeError, match="Cannot overwrite attribute __setattr__"):

        @frozen
        class Settable:
            x: int

            def __setattr__(self, name: str, value: Any) -> None: ...


def test_subclasses_of_every_kind_work() -> None:
    @dataclass(frozen=True, slots=True, kw_only=True)
    class StdChild(Base):
        more: int = 0

    class PlainChild(Child):
        pass

    assert StdChild(id="s", more=1).id == "s"
    assert PlainChild(extra=2) != Child(extra=2)  # a different class
    assert PlainChild(extra=2).extra == 2
    assert Base.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert Child.__dataclass_params__.frozen  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        StdChild().more = 2  # type: ignore[misc]


def test_undocumented_classes_get_a_docstring_naming_their_fields() -> None:
    if STDLIB_DATACLASSES:
        # The standard library's docstring: the annotated signature.
        assert Child.__doc__ is not None
        assert Child.__doc__ == "Child(*, id: 'str' = 'b', extra: 'int')"
    else:
        assert Child.__doc__ == "Child(id, extra)"

    @frozen
    class Documented:
        """Says what it is."""

        x: int

    assert Documented.__doc__ == "Says what it is."


@given(st.lists(st.sampled_from(["a", "b", "c"]), max_size=3), st.booleans())
def test_pickle_and_replace_round_trip(items: list[str], flag: bool) -> None:
    s = Shapes(len(items), [len(i) for i in items], "".join(items), d=int(flag))
    assert pickle.loads(pickle.dumps(s)) == s
    assert dataclasses.replace(s, c="z").c == "z"
    assert copy.deepcopy(s) == s


# One field of a generated class: (kind, kw_only); kinds as dataclass sees them.
_KINDS = ("plain", "default", "factory", "no-init-default", "no-init-factory")


def _listing(i: int) -> Callable[[], list[int]]:
    return lambda: [i]


def _declare(decorator: Any, spec: list[tuple[str, bool]]) -> type:
    namespace: dict[str, Any] = {"__annotations__": {}}
    for i, (kind, kw_only) in enumerate(spec):
        name = f"f{i}"
        namespace["__annotations__"][name] = "int"
        if kind == "default":
            namespace[name] = field(default=i, kw_only=kw_only)
        elif kind == "factory":
            namespace[name] = field(default_factory=_listing(i), kw_only=kw_only)
        elif kind == "no-init-default":
            namespace[name] = field(default=i, init=False)
        elif kind == "no-init-factory":
            namespace[name] = field(default_factory=_listing(i), init=False)
        else:
            namespace[name] = field(kw_only=kw_only)
    return decorator(type("Shape", (), namespace))  # type: ignore[no-any-return]


def _build(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, Any]:
    try:
        obj = cls(*args, **kwargs)
    except TypeError:
        return ("TypeError", None)
    return ("ok", [getattr(obj, f.name, "<unset>") for f in dataclasses.fields(obj)])


@pytest.mark.parametrize(
    ("ours", "reference"),
    [(frozen, dataclass(frozen=True, slots=True)), (slotted, dataclass(slots=True))],
    ids=["frozen", "slotted"],
)
@given(
    st.lists(st.tuples(st.sampled_from(_KINDS), st.booleans()), max_size=5),
    st.lists(st.tuples(st.sampled_from(["positional", "keyword", "omitted"]), st.integers())),
)
def test_any_shape_declares_and_builds_as_dataclass_does(
    ours: Any, reference: Any, spec: list[tuple[str, bool]], choices: list[tuple[str, int]]
) -> None:
    def declared(decorator: Any) -> tuple[str, Any]:
        try:
            return ("ok", _declare(decorator, spec))
        except (TypeError, ValueError) as exc:
            return (type(exc).__name__, str(exc))

    mine = declared(ours)
    ref = declared(reference)
    assert mine[0] == ref[0]
    if mine[0] != "ok":
        assert mine[1] == ref[1]
        return
    mine_cls, ref_cls = mine[1], ref[1]
    assert [(p.name, p.kind) for p in inspect.signature(mine_cls).parameters.values()] == [
        (p.name, p.kind) for p in inspect.signature(ref_cls).parameters.values()
    ]
    assert mine_cls.__match_args__ == ref_cls.__match_args__
    # Arguments for the init fields, each passed by position, by keyword or not at all
    # (some combinations are wrong calls: both must then raise TypeError).
    args: list[int] = []
    kwargs: dict[str, int] = {}
    for (how, value), (i, (kind, _)) in zip(choices, enumerate(spec), strict=False):
        if kind.startswith("no-init"):
            continue
        if how == "positional":
            args.append(value)
        elif how == "keyword":
            kwargs[f"f{i}"] = value
    assert _build(mine_cls, tuple(args), kwargs) == _build(ref_cls, tuple(args), kwargs)


@slotted
class Counter:
    name: str
    hits: list[int] = field(default_factory=list)
    seen: int = field(default=0, compare=False)


@dataclass(slots=True)
class RefCounter:
    name: str
    hits: list[int] = field(default_factory=list)
    seen: int = field(default=0, compare=False)


@given(st.text(max_size=4), st.lists(st.integers(), max_size=3), st.integers(), st.integers())
def test_slotted_is_a_mutable_slotted_dataclass(
    name: str, hits: list[int], seen: int, other: int
) -> None:
    mine, ref = Counter(name, list(hits), seen), RefCounter(name, list(hits), seen)
    assert repr(mine) == repr(ref).replace("RefCounter", "Counter")
    same = mine == Counter(name, list(hits), other)
    assert same == (ref == RefCounter(name, list(hits), other))
    mine.seen = other
    mine.hits.append(1)
    assert mine.seen == other
    assert mine.hits == [*hits, 1]
    assert Counter.__hash__ is None
    assert RefCounter.__hash__ is None
    assert not Counter.__dataclass_params__.frozen
    assert not hasattr(mine, "__dict__")
    assert pickle.loads(pickle.dumps(mine)) == mine
    assert copy.deepcopy(mine) == mine
    assert dataclasses.replace(mine, name="x").name == "x"


def test_slotted_and_frozen_do_not_mix_as_dataclass_refuses() -> None:
    with pytest.raises(TypeError, match="non-frozen dataclass from a frozen one"):

        @slotted
        class Thawed(Base):  # type: ignore[misc]
            more: int = 0

    @slotted
    class Loose:
        x: int

    with pytest.raises(TypeError, match="frozen dataclass from a non-frozen one"):

        @frozen
        class Stiff(Loose):  # type: ignore[misc]
            y: int = 0


_PROBE = """
import dsh._frozen as f

@f.frozen(kw_only=True)
class A:
    x: int = 0

@f.slotted
class B:
    y: int = 0

mine = A.__setattr__ is f._setattr, B.__eq__ is f._eq
print(f.STDLIB_DATACLASSES, *mine, A.__dataclass_params__.frozen, A(x=1) == A(x=1))
"""


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, "False True True True True"), ("1", "True False False True True")],
)
def test_the_environment_switch_falls_back_to_the_standard_dataclasses(
    value: str | None, expected: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DSH_STDLIB_DATACLASSES"}
    if value is not None:
        env["DSH_STDLIB_DATACLASSES"] = value
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == expected.split()


def test_the_precompiled_init_templates_are_what_frozen_renders() -> None:
    # dsh._frozen_inits is generated; regenerate it with
    # `python -c "from dsh._frozen import render_templates as r; print(r(), end='')"`.
    path = Path(dsh._frozen_inits.__file__)
    assert path.read_text() == render_templates()


def test_a_shape_past_the_precompiled_ones_builds_as_dataclass_does() -> None:
    names = [f"f{i}" for i in range(30)]
    space: dict[str, Any] = {"__annotations__": dict.fromkeys(names, "int"), "f29": 7}
    mine = frozen(type("Wide", (), dict(space, __annotations__=dict(space["__annotations__"]))))
    ref: Any = dataclass(frozen=True, slots=True)(type("Wide", (), space))
    args = tuple(range(29))
    assert [getattr(mine(*args), n) for n in names] == [getattr(ref(*args), n) for n in names]
    assert [(p.name, p.kind, p.default) for p in inspect.signature(mine).parameters.values()] == [
        (p.name, p.kind, p.default) for p in inspect.signature(ref).parameters.values()
    ]
    with pytest.raises(TypeError, match=r"Wide.__init__\(\) missing 1 required positional"):
        mine(*args[:-1])
