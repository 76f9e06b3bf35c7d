"""``@frozen``/``@slotted`` declare, without ``dataclass``, the class ``dataclass`` declares.

Generated class shapes (annotations as strings and objects, ``ClassVar``, ``InitVar``,
``KW_ONLY`` written every way ``dataclasses`` recognises and some it does not, defaults,
``field()`` specs, factories, class bodies that define what ``dataclass`` would add, and
bases of every kind) are declared by ``dsh._frozen`` and by the standard library; the two
must refuse alike (same error, same words) or be observably the same class.
"""

from __future__ import annotations

import abc
import copy
import dataclasses
import inspect
import types
import typing
import typing as t
import weakref
from dataclasses import KW_ONLY, MISSING, InitVar, dataclass, field
from typing import Any, ClassVar
from unittest import mock

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

import dsh._frozen
from dsh._frozen import _FACTORY, STDLIB_DATACLASSES, frozen, slotted

CV = ClassVar  # a module-level alias: dataclass reads "CV[int]" as a ClassVar
# The names string annotations are looked up by (as dataclass does, in this module).
LOOKED_UP = (typing, t, dataclasses, ClassVar, CV, InitVar, KW_ONLY)

# Annotations as written in a class body under `from __future__ import annotations`
# (strings), and as objects.
ANNOTATIONS: tuple[Any, ...] = (
    "int",
    "str | None",
    "list[int]",
    "ClassVar[int]",
    "ClassVar",
    "typing.ClassVar[int]",
    " t . ClassVar[int]",
    "CV[int]",
    "ClassVarX",
    "list[ClassVar[int]]",
    "InitVar[int]",
    "dataclasses.InitVar[int]",
    "KW_ONLY",
    "dataclasses.KW_ONLY",
    "typing.KW_ONLY",
    "nowhere.ClassVar[int]",
    "",
    int,
    ClassVar[int],
    InitVar[int],
    KW_ONLY,
)
NAMES = ("a", "b", "c", "x", "self")

field_specs = st.fixed_dictionaries(
    {},
    optional={
        "init": st.booleans(),
        "repr": st.booleans(),
        "compare": st.booleans(),
        "hash": st.sampled_from([None, True, False]),
        "kw_only": st.booleans(),
        "metadata": st.just({"k": 1}),
    },
)
values = st.one_of(
    st.just(("none",)),
    st.tuples(st.just("value"), st.integers(0, 3)),
    st.just(("mutable",)),
    st.tuples(st.just("field"), field_specs),
    st.tuples(st.just("default"), st.integers(0, 3), field_specs),
    st.tuples(st.just("factory"), field_specs),
)
entries = st.tuples(st.sampled_from(NAMES), st.sampled_from(ANNOTATIONS), values)
body_extras = st.sets(
    st.sampled_from(
        [
            "doc",
            "eq",
            "hash-none",
            "hash-fn",
            "repr",
            "post-init",
            "match-args",
            "stray-field",
            "slots",
            "setattr",
            "init",
            "set-name",
            "class-attr-x",
            "implements-m",
            "foreign-module",
        ]
    ),
    max_size=3,
)
# A base: (kind, its own entries). Kinds: ours or the standard library's dataclasses,
# frozen or not, slotted or not, a plain class (with a class attribute `x = 9`, or a slot
# `x`, or an __init_subclass__ that counts).
BASE_KINDS = (
    "frozen",
    "frozen-kw",
    "slotted",
    "std-frozen-slots",
    "std-frozen",
    "std-mutable",
    "plain-attr",
    "plain-slot",
    "plain-counting",
    "abstract",
    "generic",
)
# (kind, entries, whether it subclasses the base before it or stands beside it).
bases = st.lists(
    st.tuples(st.sampled_from(BASE_KINDS), st.lists(entries, max_size=2), st.booleans()),
    max_size=2,
)
T = typing.TypeVar("T")


def _value(spec: tuple[Any, ...]) -> Any:
    kind = spec[0]
    if kind == "value":
        return spec[1]
    if kind == "mutable":
        return []
    if kind == "field":
        return field(**spec[1])
    if kind == "default":
        return field(default=spec[1], **spec[2])
    if kind == "factory":
        return field(default_factory=list, **spec[1])
    return MISSING


class Named:
    """A class attribute that records ``__set_name__`` calls (as ``type()`` makes them)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __set_name__(self, owner: type, name: str) -> None:
        self.calls.append(owner.__name__)


def _namespace(entry_list: list[Any], extras: set[str], record: list[str]) -> dict[str, Any]:
    ns: dict[str, Any] = {"__module__": __name__, "__annotations__": {}}
    for name, annotation, spec in entry_list:
        ns["__annotations__"][name] = annotation
        value = _value(spec)
        if value is not MISSING:
            ns[name] = value
    if "doc" in extras:
        ns["__doc__"] = "A documented shape."
    if "eq" in extras:
        ns["__eq__"] = lambda self, other: True
        ns["__hash__"] = None  # what a class body with __eq__ gets
    if "hash-none" in extras:
        ns["__hash__"] = None
    if "hash-fn" in extras:
        ns["__hash__"] = lambda self: 7
    if "repr" in extras:
        ns["__repr__"] = lambda self: "custom"
    if "post-init" in extras:
        ns["__post_init__"] = lambda self, *args: record.append(f"post{args}")
    if "match-args" in extras:
        ns["__match_args__"] = ("zz",)
    if "stray-field" in extras:
        ns["stray"] = field(default=1)
    if "slots" in extras:
        ns["__slots__"] = ()
    if "setattr" in extras:
        ns["__setattr__"] = lambda self, name, value: None
    if "init" in extras:
        ns["__init__"] = lambda self, *args, **kwargs: record.append("own init")
    if "set-name" in extras:
        ns["named"] = Named()
    if "class-attr-x" in extras:
        ns["x"] = 9
    if "implements-m" in extras:
        ns["m"] = lambda self: None
    if "foreign-module" in extras:
        ns["__module__"] = "not.a.loaded.module"
    return ns


def _make(name: str, parents: tuple[Any, ...], ns: dict[str, Any]) -> type:
    ns = dict(ns, __qualname__=name)
    return types.new_class(name, parents, {}, lambda space: space.update(ns))


def _base(kind: str, entry_list: list[Any], parents: tuple[type, ...], record: list[str]) -> type:
    ns = _namespace(entry_list, set(), record)
    if kind == "plain-attr":
        return _make("Base", parents, {"__module__": __name__, "x": 9})
    if kind == "plain-slot":
        return _make("Base", parents, {"__module__": __name__, "__slots__": ("x",)})
    if kind == "plain-counting":

        def init_subclass(cls: type, /, **kwargs: Any) -> None:
            record.append(f"init_subclass {cls.__qualname__}")

        space = {"__module__": __name__, "__init_subclass__": classmethod(init_subclass)}
        return _make("Base", parents, space)
    if kind == "abstract":
        abstract = {"__module__": __name__, "m": abc.abstractmethod(lambda self: None)}
        return _make("Base", (*parents, abc.ABC), abstract)
    if kind == "generic":
        generic: Any = typing.Generic
        return _make("Base", (*parents, generic[T]), {"__module__": __name__})
    decorate: Any = {
        "frozen": frozen,
        "frozen-kw": frozen(kw_only=True),
        "slotted": slotted,
        "std-frozen-slots": dataclass(frozen=True, slots=True),
        "std-frozen": dataclass(frozen=True),
        "std-mutable": dataclass,
    }[kind]
    return decorate(_make("Base", parents, ns))  # type: ignore[no-any-return]


def _declared(decorate: Any, parents: tuple[type, ...], ns: dict[str, Any]) -> Any:
    try:
        return decorate(_make("Shape", parents, ns))
    except (TypeError, ValueError, AttributeError) as exc:
        return (type(exc).__name__, str(exc))


def _field_facts(cls: type) -> list[tuple[Any, ...]]:
    return [
        (
            key,
            f.name,
            f.type,
            repr(f.default) if f.default is not MISSING else MISSING,
            f.default_factory,
            f.init,
            f.repr,
            f.hash,
            f.compare,
            dict(f.metadata),
            f.kw_only,
            f._field_type,
        )
        for key, f in cls.__dataclass_fields__.items()  # type: ignore[attr-defined]
    ]


# What each declares for itself: compared by behaviour below, not by identity.
_METHODS = {
    "__init__",
    "__repr__",
    "__eq__",
    "__hash__",
    "__setattr__",
    "__delattr__",
    "__getstate__",
    "__setstate__",
    "__dataclass_fields__",
    "__dataclass_params__",
}
_OURS_ONLY = {"__doc__", "__frozen_compare__", "__frozen_hash__", "__frozen_repr__"}


def _describe(value: Any) -> str:
    if isinstance(value, Named):
        return "Named"
    if callable(value) or hasattr(type(value), "__get__"):
        return f"{type(value).__name__} {getattr(value, '__name__', '')}"
    shown = repr(value)
    return f"<{type(value).__name__}>" if " at 0x" in shown else shown


def _class_facts(cls: type) -> dict[str, Any]:
    body = cls.__dict__
    skip = _METHODS | _OURS_ONLY
    return {
        "fields": _field_facts(cls),
        "params": repr(cls.__dataclass_params__),  # type: ignore[attr-defined]
        "attributes": {k: _describe(v) for k, v in body.items() if k not in skip},
        "mro": [b.__qualname__ for b in cls.__mro__],
        "qualname": cls.__qualname__,
        "weakref": hasattr(cls, "__weakref__"),
        "dict": "__dict__" in dir(cls),
        "hashable": cls.__hash__ is not None,
        "methods": sorted(k for k in body if k in _METHODS),
        "body init": getattr(body.get("__init__"), "__name__", None) == "<lambda>",
        "is_dataclass": dataclasses.is_dataclass(cls),
    }


_FACTORIES = (_FACTORY, getattr(dataclasses, "_HAS_DEFAULT_FACTORY"))  # noqa: B009


def _signature(cls: type) -> list[tuple[str, Any, Any]]:
    params = inspect.signature(cls).parameters.values()
    return [(p.name, p.kind, "<factory>" if p.default in _FACTORIES else p.default) for p in params]


def _outcome(call: Any) -> tuple[str, Any]:
    try:
        return ("ok", call())
    except Exception as exc:  # whatever one raises, the other must
        return (type(exc).__name__, None)


def _built(cls: type, args: list[Any], kwargs: dict[str, Any]) -> list[tuple[str, Any]]:
    one = _outcome(lambda: cls(*args, **kwargs))
    two = _outcome(lambda: cls(*args, **kwargs))
    if one[0] != "ok" or two[0] != "ok":
        return [(one[0], two[0])]
    a, b = one[1], two[1]
    names = [f.name for f in dataclasses.fields(a)]
    return [
        ("values", [getattr(a, n, "<unset>") for n in names]),
        ("repr", _outcome(lambda: repr(a))),
        ("eq", _outcome(lambda: a == b)),
        ("hash", _outcome(lambda: hash(a) == hash(b))),
        ("copy", _outcome(lambda: copy.deepcopy(a) == a)),
        ("asdict", _outcome(lambda: dataclasses.asdict(a))),
        ("replace", _outcome(lambda: dataclasses.replace(a) == a)),
        ("weakref", _outcome(lambda: weakref.ref(a) is not None)),
        ("assign", _outcome(lambda: setattr(a, names[0], 0) if names else None)),
    ]


def _instances(cls: type) -> list[tuple[str, Any]]:
    """Built with each parameter given (by position or keyword, as its kind says), then
    with only the required ones: what each holds, its repr, equality, hash and copies."""
    params = list(inspect.signature(cls).parameters.values())
    seen: list[tuple[str, Any]] = []
    for every in (True, False):
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for i, p in enumerate(params):
            if p.kind is p.VAR_POSITIONAL or p.kind is p.VAR_KEYWORD:
                continue
            if not every and p.default is not p.empty:
                continue
            if p.kind is p.KEYWORD_ONLY:
                kwargs[p.name] = 10 + i
            else:
                args.append(10 + i)
        seen += _built(cls, args, kwargs)
    return seen


def _subclassed(cls: type, immutable: bool, ours: bool) -> Any:
    space = {"__module__": __name__, "__annotations__": {"extra": "int"}, "extra": 0}
    if ours:
        decorate: Any = frozen if immutable else slotted
    else:
        decorate = dataclass(frozen=immutable, slots=True)
    made = _declared(decorate, (cls,), space)
    return made if isinstance(made, tuple) else _field_facts(made)


@pytest.mark.skipif(STDLIB_DATACLASSES, reason="frozen is the standard library's here")
@pytest.mark.parametrize("immutable", [True, False], ids=["frozen", "slotted"])
@settings(max_examples=150)
@given(
    bases=bases,
    own=st.lists(entries, max_size=5),
    extras=body_extras,
    kw_only=st.booleans(),
)
def test_a_declared_class_is_the_one_dataclass_declares(
    immutable: bool, bases: list[Any], own: list[Any], extras: set[str], kw_only: bool
) -> None:
    _compare(immutable, bases, own, extras, kw_only, same_refusals=True)


def _compare(
    immutable: bool,
    bases: list[Any],
    own: list[Any],
    extras: set[str],
    kw_only: bool,
    *,
    same_refusals: bool,
) -> None:
    # What __init_subclass__, __set_name__ and __post_init__ did, in order.
    record: list[str] = []
    parents: tuple[type, ...] = ()
    try:
        for kind, entry_list, beside in bases:
            made = _base(kind, entry_list, () if beside else parents, record)
            parents = (*parents, made) if beside else (made,)
            if kind == "generic" and beside:
                parents = (*parents[:-1], made[int])  # type: ignore[index]
    except (TypeError, ValueError):
        return  # a base that cannot be declared: nothing to compare
    ours: Any = (frozen if immutable else slotted)(kw_only=kw_only)
    reference = dataclass(frozen=immutable, slots=True, kw_only=kw_only)
    start = len(record)
    mine = _declared(ours, parents, _namespace(own, extras, record))
    mine_log, start = record[start:], len(record)
    ref = _declared(reference, parents, _namespace(own, extras, record))
    if isinstance(ref, tuple) or isinstance(mine, tuple):
        event("refused")
        if same_refusals:
            assert mine == ref
            assert record[start:] == mine_log
        else:  # which of two faults is named first may differ
            assert isinstance(mine, tuple)
            assert isinstance(ref, tuple)
        return
    assert record[start:] == mine_log
    event("declared by frozen" if "__frozen_repr__" in mine.__dict__ else "by dataclass")
    assert _class_facts(mine) == _class_facts(ref)
    if "doc" in extras:
        assert mine.__doc__ == ref.__doc__
    if "set-name" in extras:
        assert mine.__dict__["named"].calls == ref.__dict__["named"].calls
    assert _signature(mine) == _signature(ref)
    start = len(record)
    built = _instances(mine)
    mine_log, start = record[start:], len(record)
    assert _instances(ref) == built
    assert record[start:] == mine_log
    assert _subclassed(mine, immutable, ours=True) == _subclassed(ref, immutable, ours=False)
    assert _subclassed(mine, immutable, ours=False) == _subclassed(ref, immutable, ours=False)


# What the other way (Pythons past those dsh._frozen_fields copies) is asked: no InitVar
# (whose __init__ parameter it does not make), no body __slots__ or __setattr__ (which it
# refuses before dataclass would).
plain_annotations = st.sampled_from([a for a in ANNOTATIONS if "InitVar" not in str(a)])
plain_entries = st.tuples(st.sampled_from(NAMES), plain_annotations, values)
FROZEN_KINDS = {"frozen", "frozen-kw", "std-frozen-slots", "std-frozen"}
plain_extras = body_extras.map(lambda chosen: chosen - {"slots", "setattr"})


@pytest.mark.skipif(STDLIB_DATACLASSES, reason="frozen is the standard library's here")
@pytest.mark.parametrize("immutable", [True, False], ids=["frozen", "slotted"])
@settings(max_examples=50)
@given(
    bases=st.lists(
        st.tuples(st.sampled_from(BASE_KINDS), st.lists(plain_entries, max_size=2), st.booleans()),
        max_size=2,
    ),
    own=st.lists(plain_entries, max_size=5),
    extras=plain_extras,
    kw_only=st.booleans(),
)
def test_on_other_pythons_dataclass_collects_the_fields_and_frozen_finishes(
    immutable: bool, bases: list[Any], own: list[Any], extras: set[str], kw_only: bool
) -> None:
    kinds = {kind for kind, _, _ in bases}
    # Frozen and mutable dataclass bases together: refused or not by version (3.13 refuses).
    assume(not (kinds & {"slotted", "std-mutable"} and kinds & FROZEN_KINDS))
    with mock.patch.object(dsh._frozen, "SUPPORTED", False):
        _compare(immutable, bases, own, extras, kw_only, same_refusals=False)
