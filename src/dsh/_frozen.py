"""``frozen`` and ``slotted``: how every dsh value, event, decision and record type is declared.

``@frozen`` is ``@dataclass(frozen=True, slots=True)`` (``@frozen(kw_only=True)``
adds ``kw_only``), observably the same: the same ``__init__`` (parameters,
defaults, ``__post_init__``), equality, hash, repr, ``FrozenInstanceError`` on
assignment, pickling, ``__dataclass_params__``, ``dataclasses.fields`` and
``replace``, and subclassing by ``@frozen`` or by ``@dataclass(frozen=True)``.

What differs is what declaring a class costs, which every ``dsh run`` pays at
start-up for ~170 classes. CPython 3.11's ``dataclass`` compiles each
generated method of each class (``__init__``, and for a frozen class
``__setattr__`` and ``__delattr__``, ~0.1 ms each) and builds a docstring
with ``inspect.signature`` (~0.07 ms): ~0.46 ms a class. Here:

- ``dataclass`` is not called: ``dsh._frozen_fields`` finds the fields and the
  slotted namespace as it would (~70 us a class in ``dataclass``, ~35 here),
  and the one slotted class is made from that namespace with the methods in
  it. A shape it leaves to the standard library (a declaration ``dataclass``
  refuses, an ``InitVar``, a body ``__slots__``: see there) is declared by
  ``dataclass(frozen=..., slots=True)`` itself, so its errors are word for
  word the standard library's. On a Python whose ``dataclasses`` it does
  not copy (past 3.13), ``dataclass(init=False, eq=False, repr=False,
  slots=True)`` collects the fields and makes the slots, and the rest is
  added as below;
- equality, hash, repr, the frozen ``__setattr__``/``__delattr__`` and the
  pickle state are shared functions over the class's field names;
- ``__init__`` is made when the class is first instantiated (or its
  ``__init__`` first looked up), so a class a run never builds never pays;
  its code is one template per shape, renamed to the class's fields: for
  the common shapes precompiled in ``dsh._frozen_inits`` (loaded as
  bytecode), else compiled once;
- a class without a docstring gets ``Name(field, ...)``, not the full
  annotated signature.

``@slotted`` is the same for a mutable ``@dataclass(slots=True)`` (an
unhashable class whose fields can be assigned), for the few records that
change after they are built.

Setting the environment variable ``DSH_STDLIB_DATACLASSES=1`` before dsh is
imported (it is read once, at import of this module) makes both fall back to
the standard library: ``@frozen`` is then exactly
``dataclass(frozen=True, slots=True)`` and ``@slotted`` exactly
``dataclass(slots=True)``, with the same ``kw_only``. CI runs the suite once
that way, so a difference between the two is a failing test, not a surprise.
"""

from __future__ import annotations

import abc
import os
import sys
import threading
import types
from collections.abc import Callable, Sequence
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, field, fields
from typing import Any, Final, TypeVar, cast, dataclass_transform, overload

from dsh._frozen_fields import SUPPORTED, dataclass_parts

__all__ = ["frozen", "slotted"]

_C = TypeVar("_C", bound=type)

# Stands for "not given" in a generated __init__ whose field has a default factory.
_FACTORY = object()
_object_setattr = object.__setattr__
# Compiled __init__ code by shape (`_init_template`), with placeholder names.
_INIT_CODES: dict[tuple[int, bool, str, bool], types.CodeType] = {}
# Serialises the moment a subclass's frozen bases are shown to dataclass as
# not frozen (`_declare_through_dataclass`, the way past 3.13), so two
# declarations here never see each other's. A plain @dataclass(frozen=True)
# subclassing the same base in another thread at that instant would be refused;
# dsh declares its classes at import, under the import lock of their module.
_DECLARING = threading.Lock()
# The standard-library switch (see the module docstring), read once.
STDLIB_DATACLASSES = os.environ.get("DSH_STDLIB_DATACLASSES", "") not in ("", "0")


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names: tuple[str, ...] = self.__class__.__frozen_compare__
    # As dataclass: tuples, so an identical NaN compares equal.
    return tuple([getattr(self, n) for n in names]) == tuple([getattr(other, n) for n in names])


def _hash(self: Any) -> int:
    names: tuple[str, ...] = self.__class__.__frozen_hash__
    return hash(tuple([getattr(self, n) for n in names]))


def _repr(self: Any) -> str:
    names: tuple[str, ...] = self.__class__.__frozen_repr__
    inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
    return f"{self.__class__.__qualname__}({inner})"


def _setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(fields(self), state, strict=True):
        _object_setattr(self, f.name, value)


def _init_source(params: int, factories: bool, later: str, post_init: bool, name: str) -> str:
    """The text of an ``__init__`` of this shape, one line, parameters ``_f0``...

    ``later`` has a letter per field that is not a parameter (``d``: its default, ``f``:
    its factory called), set after the parameters; ``factories``: a parameter given as
    ``FACTORY`` (its default) is replaced by its factory's value.
    """
    body = []
    for i in range(params):
        value = f"_d{i}() if _f{i} is FACTORY else _f{i}" if factories else f"_f{i}"
        body.append(f"setattr(self, '_f{i}', {value})")
    for i, kind in enumerate(later, start=params):
        body.append(f"setattr(self, '_f{i}', _d{i}{'()' if kind == 'f' else ''})")
    if post_init:
        body.append("self.__post_init__()")
    names = "".join(f", _f{i}" for i in range(params))
    return f"def {name}(self{names}): {'; '.join(body) or 'pass'}\n"


def _template_name(params: int, factories: bool, post_init: bool) -> str:
    return f"t_{params}_{int(factories)}_{int(post_init)}"


_TEMPLATE_PARAMS: Final = 25
"""``dsh._frozen_inits`` holds the shapes of up to this many parameters and no other field."""


def render_templates() -> str:
    """The text of ``dsh._frozen_inits`` (``tests/frozen`` checks the file is this)."""
    lines = [
        '"""Precompiled ``__init__`` templates for ``dsh._frozen``: generated, do not edit.\n\n'
        "Written by ``dsh._frozen.render_templates()`` (a test checks the file is its text).\n"
        "Loaded from bytecode, so a class's ``__init__`` costs no compile at start-up.\n"
        '"""\n\n\n'
        "# mypy: ignore-errors\n# ruff: noqa\n# fmt: off\n",
    ]
    for params in range(_TEMPLATE_PARAMS):
        for factories in (False, True):
            for post_init in (False, True):
                name = _template_name(params, factories, post_init)
                lines.append(_init_source(params, factories, "", post_init, name))
    return "".join(lines)


def _init_template(params: int, factories: bool, later: str, post_init: bool) -> types.CodeType:
    """The code of an ``__init__`` of this shape: from ``dsh._frozen_inits`` if it has it
    (bytecode, no compile), else compiled once."""
    key = (params, factories, later, post_init)
    code = _INIT_CODES.get(key)
    if code is not None:
        return code
    from dsh import _frozen_inits  # on the first class built

    name = _template_name(params, factories, post_init)
    made = getattr(_frozen_inits, name, None) if not later else None
    if made is not None:
        code = made.__code__.replace(co_name="__init__")
    else:
        source = _init_source(params, factories, later, post_init, "__init__")
        module = compile(source, "<string>", "exec")  # our own text, as dataclass does
        code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    _INIT_CODES[key] = code
    return code


def _compile_init(cls: type[Any]) -> Callable[..., None]:
    """``cls.__init__`` as ``dataclass(frozen=True)`` writes it.

    Compiling a new ``__init__`` for each class a run builds (~50, nearly all of a
    different shape) was ~8% of a ``dsh run``'s instructions. So the code is one per
    shape (``_init_template``: how many parameters, whether any takes a factory, the
    fields that are not parameters, ``__post_init__``) with placeholder names, given the
    class's names (``code.replace``: the parameters' names, positional and keyword-only
    counts, the field names it sets); the defaults are the function's.
    """
    params: list[Field[Any]] = []
    later: list[Field[Any]] = []
    for f in fields(cls):
        if f.init:
            params.append(f)
        elif f.default is not MISSING or f.default_factory is not MISSING:
            later.append(f)
    # Keyword-only parameters come last, as dataclass orders them.
    params = [f for f in params if not f.kw_only] + [f for f in params if f.kw_only]
    ordered = params + later
    # As dataclass assigns: past a frozen class's __setattr__, a mutable one's through it.
    assign = _object_setattr if cls.__dataclass_params__.frozen else setattr
    values: dict[str, Any] = {"setattr": assign, "FACTORY": _FACTORY}
    defaults: list[Any] = []
    keyword_defaults: dict[str, Any] = {}
    for i, f in enumerate(ordered):
        if f.default_factory is not MISSING:
            values[f"_d{i}"], default = f.default_factory, _FACTORY
        elif f.default is not MISSING:
            values[f"_d{i}"] = default = f.default
        else:
            continue
        if f.init and f.kw_only:
            keyword_defaults[f.name] = default
        elif f.init:
            defaults.append(default)
    template = _init_template(
        len(params),
        any(f.default_factory is not MISSING for f in params),
        "".join("f" if f.default_factory is not MISSING else "d" for f in later),
        hasattr(cls, "__post_init__"),
    )
    rename = {f"_f{i}": f.name for i, f in enumerate(ordered)}
    own = "__dataclass_self__" if "self" in rename.values() else "self"  # as dataclass names it
    keyword = sum(1 for f in params if f.kw_only)
    code = template.replace(
        co_argcount=1 + len(params) - keyword,
        co_kwonlyargcount=keyword,
        co_varnames=tuple(own if n == "self" else rename.get(n, n) for n in template.co_varnames),
        co_consts=tuple(rename.get(c, c) if isinstance(c, str) else c for c in template.co_consts),
    )
    init = types.FunctionType(code, values, "__init__", tuple(defaults) or None)
    if keyword_defaults:
        init.__kwdefaults__ = keyword_defaults
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


class _LazyInit:
    """A class's ``__init__`` until first looked up: then compiled and put in its place.

    Instantiation looks ``__init__`` up on the class too, so the first instance
    compiles it; so does introspection (``inspect.signature``).
    """

    __slots__ = ("owner",)

    def __init__(self, owner: type[Any] | None) -> None:
        self.owner = owner  # None while the class that holds it is being made

    def __get__(self, instance: object, owner: type[Any] | None = None) -> Any:
        # Looked up while its class is being made (an __init_subclass__), it is that class's.
        cls = self.owner or owner
        assert cls is not None
        init = _compile_init(cls)
        cls.__init__ = init
        return init if instance is None else init.__get__(instance, owner)


def _check_init_order(cls: type[Any]) -> None:
    # dataclass raises this when it builds __init__; ours is built later.
    seen_default: Field[Any] | None = None
    for f in fields(cls):
        if not f.init or f.kw_only:
            continue
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = f
        elif seen_default is not None:
            message = f"non-default argument {f.name!r} follows default argument"
            if sys.version_info >= (3, 13):  # which dataclass names since 3.13
                message += f" {seen_default.name!r}"
            raise TypeError(message)


def _methods(body: Any, own: Sequence[Field[Any]], *, immutable: bool) -> dict[str, Any]:
    """What a class gets besides its fields and ``__init__``: equality, hash, repr, the
    frozen ``__setattr__``/``__delattr__`` and the field names they read."""
    compare, hashed, shown = [], [], []
    for f in own:
        if f.compare:
            compare.append(f.name)
        if f.compare if f.hash is None else f.hash:
            hashed.append(f.name)
        if f.repr:
            shown.append(f.name)
    added: dict[str, Any] = {
        "__frozen_compare__": tuple(compare),
        "__frozen_hash__": tuple(hashed),
        "__frozen_repr__": tuple(shown),
    }
    if immutable:
        added["__setattr__"] = _setattr
        added["__delattr__"] = _delattr
    # What the class body defines wins, as with dataclass. A body `__eq__` alone
    # leaves `__hash__ = None` in the body; dataclass still adds a field hash then
    # to a frozen class. A mutable one is unhashable unless its body says otherwise.
    if "__eq__" not in body:
        added["__eq__"] = _eq
    explicit_hash = body.get("__hash__", MISSING)
    if explicit_hash is MISSING or (explicit_hash is None and "__eq__" in body):
        added["__hash__"] = _hash if immutable else None
    if "__repr__" not in body:
        added["__repr__"] = _repr
    return added


def _doc(name: str, own: Sequence[Field[Any]]) -> str:
    return f"{name}({', '.join([f.name for f in own if f.init])})"


def _declare_directly(c: _C, *, kw_only: bool, immutable: bool) -> _C | None:
    """``c`` declared without ``dataclass``: its fields and slotted namespace from
    ``dataclass_parts``, the methods in that namespace, and one class made from it as
    ``dataclass`` makes its slotted copy (``type(c)(name, bases, namespace)``, so
    ``__init_subclass__`` and ``__set_name__`` run as there, once). ``None`` where
    ``dataclass`` is to decide.

    ``__qualname__`` and the pickle state functions are in the namespace, where
    ``dataclass`` sets them on the class once made: an ``__init_subclass__`` sees
    them already, and the class is not changed after it is made.
    """
    body = c.__dict__
    if immutable and ("__setattr__" in body or "__delattr__" in body):
        return None  # dataclass refuses it ("Cannot overwrite attribute")
    parts = dataclass_parts(c, kw_only=kw_only, immutable=immutable)
    if parts is None:
        return None
    own, space = parts
    init = None
    if "__init__" not in body:
        init = space["__init__"] = _LazyInit(None)
    space.update(_methods(body, own, immutable=immutable))
    if not c.__doc__:
        space["__doc__"] = _doc(c.__name__, own)
    if immutable:
        space.setdefault("__getstate__", _getstate)
        space.setdefault("__setstate__", _setstate)
    space["__qualname__"] = c.__qualname__
    made = type(c)(c.__name__, c.__bases__, space)
    if init is not None:
        init.owner = made
    if "__abstractmethods__" in made.__dict__:  # what abc.update_abstractmethods reads
        abc.update_abstractmethods(made)
    return made


def _finish(cls: _C, body: dict[str, Any], documented: bool, *, immutable: bool) -> _C:
    if immutable:
        for name in ("__setattr__", "__delattr__"):
            if name in body:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    _check_init_order(cls)
    own = fields(cls)
    if "__init__" not in body:  # a body's own wins, as with dataclass
        cls.__init__ = _LazyInit(cls)  # type: ignore[misc]
    if immutable:
        if "__getstate__" not in body:
            cls.__getstate__ = _getstate  # type: ignore[method-assign, assignment]
        if "__setstate__" not in body:
            cls.__setstate__ = _setstate  # type: ignore[attr-defined]
    if not documented:
        cls.__doc__ = _doc(cls.__name__, own)
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    params.init = params.eq = params.repr = True
    params.frozen = immutable
    for name, value in _methods(body, own, immutable=immutable).items():
        setattr(cls, name, value)
    return cls


def _declare_through_dataclass(c: _C, *, kw_only: bool, immutable: bool) -> _C:
    """``c`` declared by ``dataclass`` asked for fields and slots only, then finished
    here: on a Python whose ``dataclasses`` ``dsh._frozen_fields`` does not copy."""
    body = dict(c.__dict__)
    documented = bool(c.__doc__)
    if not documented:
        # Else dataclass builds one with inspect.signature; _finish writes it.
        c.__doc__ = c.__name__
    with _DECLARING:
        bases = [b.__dict__.get("__dataclass_params__") for b in c.__mro__[1:-1]]
        frozen_bases = [p for p in bases if p is not None and p.frozen]
        if immutable and len(frozen_bases) != len([p for p in bases if p is not None]):
            raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
        if not immutable and frozen_bases:
            raise TypeError("cannot inherit non-frozen dataclass from a frozen one")
        # dataclass is asked for fields and slots only (frozen=False, so it
        # compiles nothing), and refuses a non-frozen subclass of a frozen
        # base: so the bases read as not frozen for the length of the call.
        for params in frozen_bases:
            params.frozen = False
        try:
            made: type[Any] = dataclass(
                init=False, eq=False, repr=False, slots=True, kw_only=kw_only
            )(c)
        finally:
            for params in frozen_bases:
                params.frozen = True
    return _finish(cast(_C, made), body, documented, immutable=immutable)


def _declare(c: _C, *, kw_only: bool, immutable: bool) -> _C:
    if not SUPPORTED:
        return _declare_through_dataclass(c, kw_only=kw_only, immutable=immutable)
    made = _declare_directly(c, kw_only=kw_only, immutable=immutable)
    if made is None:
        # A shape the standard library decides (an error, an InitVar, ...: see
        # dsh._frozen_fields): its class, exactly, as DSH_STDLIB_DATACLASSES makes it.
        return cast(_C, dataclass(frozen=immutable, slots=True, kw_only=kw_only)(c))
    return made


@overload
def frozen(cls: _C, /) -> _C: ...


@overload
def frozen(*, kw_only: bool = False) -> Callable[[_C], _C]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def frozen(cls: _C | None = None, /, *, kw_only: bool = False) -> _C | Callable[[_C], _C]:
    """Declare a frozen, slotted dataclass with field-wise ``==``, ``hash`` and ``repr``."""

    def wrap(c: _C) -> _C:
        if STDLIB_DATACLASSES:
            return cast(_C, dataclass(frozen=True, slots=True, kw_only=kw_only)(c))
        return _declare(c, kw_only=kw_only, immutable=True)

    return wrap if cls is None else wrap(cls)


@overload
def slotted(cls: _C, /) -> _C: ...


@overload
def slotted(*, kw_only: bool = False) -> Callable[[_C], _C]: ...


@dataclass_transform(field_specifiers=(field, Field))
def slotted(cls: _C | None = None, /, *, kw_only: bool = False) -> _C | Callable[[_C], _C]:
    """Declare a mutable slotted dataclass (``@dataclass(slots=True)``) as cheaply as ``frozen``."""

    def wrap(c: _C) -> _C:
        if STDLIB_DATACLASSES:
            return cast(_C, dataclass(slots=True, kw_only=kw_only)(c))
        return _declare(c, kw_only=kw_only, immutable=False)

    return wrap if cls is None else wrap(cls)
