"""The fields and slotted namespace of a ``@frozen`` or ``@slotted`` class, without ``dataclass``.

``dataclass(frozen=..., slots=True, kw_only=...)`` spends most of what declaring a
class costs on finding its fields (``_process_class``: a ``Field`` per annotation,
three regex reads of each string annotation for ``KW_ONLY``, ``ClassVar`` and
``InitVar``, lookups in ``sys.modules``), then copies the class into a slotted one.
``dataclass_parts`` does the same finding once per annotation (one read of a string
annotation answers the three questions, the same way ``dataclasses._is_type`` does:
the leading name, looked up in the class's module, or in ``typing``/``dataclasses``
when written ``typing.ClassVar``/``dataclasses.KW_ONLY`` through the module's own
name for it) and gives what ``dataclass`` would put in the slotted class's namespace:
``__dataclass_fields__`` (the same ``Field`` objects, with the same ``_field_type``,
``kw_only``, defaults and inherited fields in MRO order), ``__dataclass_params__``,
``__slots__`` of the fields no base's slots hold, without the fields' defaults and
the old class's ``__dict__``/``__weakref__``, ``__match_args__`` and (3.13)
``__replace__``.

It answers ``None`` where the standard library is to decide: every declaration
``dataclass`` refuses (its errors, word for word, come from it), an ``InitVar``
(its ``__init__`` parameter and ``__post_init__`` argument are not made here), a
body ``__slots__``, a field named ``__dict__`` or ``__weakref__``, mixed frozen and
non-frozen dataclass bases, a module missing from ``sys.modules`` and annotations
that are not a dict. The class given is not changed (``dataclass`` writes the
fields into it before copying it; nothing reads it after). It reads the standard
library's private ``Field`` kinds, ``_DataclassParams`` and identifier regex, which
is why ``SUPPORTED`` names the versions whose ``dataclasses`` this copies (3.11 to
3.13); ``dsh._frozen`` calls ``dataclass`` on any other.
"""

from __future__ import annotations

import dataclasses
import sys
import types
from dataclasses import KW_ONLY, MISSING, Field, InitVar
from typing import Any, Final

__all__ = ["SUPPORTED", "dataclass_parts"]

SUPPORTED: Final = (3, 11) <= sys.version_info[:2] <= (3, 13)
"""The versions whose ``dataclasses`` ``dataclass_parts`` copies (diff the next one first)."""

# The standard library's private names this reads (present in the versions SUPPORTED names).
_FIELD: Final[Any] = getattr(dataclasses, "_FIELD", None)
_CLASSVAR: Final[Any] = getattr(dataclasses, "_FIELD_CLASSVAR", None)
_INITVAR: Final[Any] = getattr(dataclasses, "_FIELD_INITVAR", None)
_PARAMS: Final[Any] = getattr(dataclasses, "_DataclassParams", None)
_IDENTIFIER: Final[Any] = getattr(dataclasses, "_MODULE_IDENTIFIER_RE", None)
# What 3.13's dataclass sets as __replace__ (copy.replace); none before.
_REPLACE: Final[Any] = (
    getattr(dataclasses, "_replace", None) if sys.version_info >= (3, 13) else None
)
_KW_ONLY: Final = object()  # the annotation kind of a KW_ONLY marker
_PARAMS_312: Final = sys.version_info >= (3, 12)  # _DataclassParams takes 10 arguments


def _is_classvar(obj: Any, typing: Any) -> bool:
    return obj is typing.ClassVar or (
        type(obj) is typing._GenericAlias and obj.__origin__ is typing.ClassVar
    )


# The (module name, name) a string annotation starts with, by annotation: dsh's
# classes repeat a few ("str", "int", "str | None"); bounded for classes made at run time.
_LEADING: dict[str, tuple[str | None, str] | None] = {}
_LEADING_MAX: Final = 4096


def _leading(annotation: str) -> tuple[str | None, str] | None:
    found = _LEADING.get(annotation, _LEADING)
    if found is _LEADING:
        match = _IDENTIFIER.match(annotation)
        found = None if match is None else match.groups()
        if len(_LEADING) < _LEADING_MAX:
            _LEADING[annotation] = found
    return found  # type: ignore[return-value]


def _kind(annotation: Any, module: dict[str, Any], typing: Any) -> object:
    """``KW_ONLY``, ``ClassVar``, ``InitVar`` or a field, in the order ``dataclass`` asks."""
    if isinstance(annotation, str):
        # dataclasses._is_type, asked three times there, answered from one match here.
        leading = _leading(annotation)
        if leading is None:
            return _FIELD
        prefix, name = leading
        if not prefix:
            obj = module.get(name)
            where = None
        else:
            where = module.get(prefix)
            if where is not dataclasses and (typing is None or where is not typing):
                return _FIELD
            obj = where.__dict__.get(name)
        if where is not typing and obj is KW_ONLY:
            return _KW_ONLY
        if typing is not None and where is not dataclasses and _is_classvar(obj, typing):
            return _CLASSVAR
        if where is not typing and (obj is InitVar or type(obj) is InitVar):
            return _INITVAR
        return _FIELD
    if annotation is KW_ONLY:
        return _KW_ONLY
    if typing is not None and _is_classvar(annotation, typing):
        return _CLASSVAR
    if annotation is InitVar or type(annotation) is InitVar:
        return _INITVAR
    return _FIELD


def _base_fields(c: type[Any], immutable: bool) -> dict[str, Field[Any]] | None:
    """The fields of ``c``'s dataclass bases in reverse MRO order, as ``dataclass`` gathers them;
    ``None`` unless every such base is as frozen as ``c`` will be."""
    fields: dict[str, Field[Any]] = {}
    for b in c.__mro__[-2:0:-1]:  # not object, which has no attributes to add
        base_fields = getattr(b, "__dataclass_fields__", None)
        if base_fields is None:
            continue
        params = getattr(b, "__dataclass_params__", None)
        if params is None or bool(params.frozen) is not immutable:
            return None
        for f in base_fields.values():
            fields[f.name] = f
    return fields


def _add_own_fields(
    c: type[Any],
    annotations: dict[str, Any],
    kw_only: bool,
    fields: dict[str, Field[Any]],
    space: dict[str, Any],
) -> bool:
    """Add the class's own fields to ``fields`` and their class attributes to ``space`` as
    ``_process_class`` does; ``False`` where it would refuse one (or it is an ``InitVar``).

    A refusal can leave a ``Field`` named and typed: ``dataclass``, deciding then, gives
    it the same name, type, kind and ``kw_only`` before it refuses.
    """
    module = sys.modules[c.__module__].__dict__
    typing = sys.modules.get("typing")
    seen_kw_only = False
    given: list[Field[Any]] = []
    for name, annotation in annotations.items():
        kind = _kind(annotation, module, typing)
        if kind is _KW_ONLY:
            if seen_kw_only:
                return False
            seen_kw_only = kw_only = True
            continue
        if kind is _INITVAR:
            return False
        default = getattr(c, name, MISSING)
        if isinstance(default, Field):
            f = default
            if (f.default is MISSING and name not in space) or any(f is g for g in given):
                return False  # dataclass's delattr fails; a Field given to two names
            if kind is _CLASSVAR and (f.default_factory is not MISSING or f.kw_only is not MISSING):
                return False
            given.append(f)
            if f.default is MISSING:
                del space[name]
            else:
                space[name] = f.default
        else:
            if isinstance(default, types.MemberDescriptorType):
                default = MISSING  # a base's slot: no default
            f = Field(default, MISSING, True, True, None, True, None, MISSING)  # type: ignore[arg-type]
        f.name, f.type = name, annotation
        f._field_type = kind  # type: ignore[attr-defined]
        if kind is _FIELD:
            if f.kw_only is MISSING:
                f.kw_only = kw_only
            if f.default.__class__.__hash__ is None:
                return False  # a mutable default
        fields[name] = f
    return True


def _inherited_slots(c: type[Any]) -> set[str] | None:
    slots: set[str] = set()
    for b in c.__mro__[1:-1]:
        declared = b.__dict__.get("__slots__")
        if declared is None:
            continue
        if isinstance(declared, str):
            slots.add(declared)
        elif hasattr(declared, "__next__"):
            return None  # dataclass: "cannot be determined"
        else:
            slots.update(declared)
    return slots


def _params(immutable: bool, kw_only: bool) -> Any:
    if _PARAMS_312:
        return _PARAMS(True, True, True, False, False, immutable, True, kw_only, True, False)
    return _PARAMS(True, True, True, False, False, immutable)


def dataclass_parts(
    c: type[Any], *, kw_only: bool, immutable: bool
) -> tuple[list[Field[Any]], dict[str, Any]] | None:
    """The real fields of ``dataclass(frozen=immutable, slots=True, kw_only=kw_only)(c)``
    and the namespace of its slotted class (without methods), or ``None`` where the
    standard library is to decide (see the module docstring)."""
    body = c.__dict__
    annotations = body.get("__annotations__")
    if annotations is None:
        annotations = {}
    if c.__module__ not in sys.modules or type(annotations) is not dict or "__slots__" in body:
        return None
    fields = _base_fields(c, immutable)
    space = dict(body)
    if fields is None or not _add_own_fields(c, annotations, kw_only, fields, space):
        return None
    for name, value in body.items():
        if isinstance(value, Field) and name not in annotations:
            return None  # "is a field but has no type annotation"
    real: list[Field[Any]] = []
    positional: list[str] = []
    seen_default = False
    for f in fields.values():
        if f._field_type is not _FIELD:  # type: ignore[attr-defined]
            if f._field_type is _INITVAR:  # type: ignore[attr-defined]
                return None  # a base's
            continue
        real.append(f)
        if f.init and not f.kw_only:
            positional.append(f.name)
            if f.default is not MISSING or f.default_factory is not MISSING:
                seen_default = True
            elif seen_default:
                return None  # "non-default argument follows default argument"
    inherited = _inherited_slots(c)
    if inherited is None:
        return None
    slots = []
    for f in real:
        if f.name == "__dict__" or f.name == "__weakref__":
            return None
        if f.name not in inherited:
            slots.append(f.name)
        space.pop(f.name, None)
    space.pop("__dict__", None)
    space.pop("__weakref__", None)
    space["__slots__"] = tuple(slots)
    space["__dataclass_fields__"] = fields
    space["__dataclass_params__"] = _params(immutable, kw_only)
    if "__match_args__" not in body:
        space["__match_args__"] = tuple(positional)
    if _REPLACE is not None and "__replace__" not in body:
        space["__replace__"] = _REPLACE
    return real, space
