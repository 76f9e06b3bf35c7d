"""Compiling an event type's codec: its checked field plan and the generated functions.

``plan_of`` reads a class's field annotations once, refusing a field it cannot
log. ``compile_codec`` stitches the plan into plain Python source (as
``dataclasses`` compiles ``__init__``): ``encode`` and ``restamp`` for
writing, ``decode`` for reading, with every field check inline, so reloading a
log costs one ``json.loads`` and one constructor call per event.
"""

from __future__ import annotations

import dataclasses
import enum
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

from dsh._frozen import slotted
from dsh.base import freeze_json
from dsh.base._json import freeze_loaded
from dsh.messages import Content, ToolUse, Usage
from dsh.session._codec_values import (
    EventDecodeError,
    bad_conversion,
    bad_field,
    decode_cause,
    decode_content,
    decode_tool_calls,
    decode_usage,
    encode_cause,
    encode_content,
    encode_tool_calls,
    encode_usage,
    normalize_cause,
    normalize_content,
    normalize_tool_calls,
    normalize_usage,
    short_json,
)
from dsh.session._event_base import AbortCause, SessionEvent

__all__ = ["Plan", "compile_codec", "interpret_writer", "plan_of"]


_SCALARS: dict[object, tuple[type, ...]] = {
    str: (str,),
    int: (int,),
    float: (float, int),
    bool: (bool,),
    type(None): (type(None),),
}
_CONTENT_ARGS = frozenset(typing.get_args(Content))
_CONTENT_TUPLE = typing.get_args(Content)[1]


@slotted
class _Field:
    """How one field is checked and converted (the pieces the compiler stitches)."""

    expected: str  # for error messages
    optional: bool = False
    classes: tuple[type, ...] | None = None  # exact classes accepted as is
    literal: frozenset[str] | None = None
    to_float: bool = False
    decode: Callable[[Any], Any] | None = None  # raises ValueError with its own message
    encode: Callable[[Any], Any] | None = None
    normalize: Callable[[Any], Any] | None = None  # a caller's value, checked, as logged


def _analyse(owner: str, name: str, ann: object) -> _Field:
    """How a field annotated ``ann`` is checked; ``TypeError`` when it cannot be logged."""
    origin = typing.get_origin(ann)
    if origin is typing.Union or origin is types.UnionType:
        return _union_field(owner, name, ann)
    if ann is Any:
        return _Field("JSON", decode=freeze_loaded)
    if ann in _SCALARS:
        label = {float: "a number", int: "an integer", str: "a string", bool: "a boolean"}
        return _Field(
            label.get(ann, "null"),  # type: ignore[call-overload]
            classes=_SCALARS[ann],
            to_float=ann is float,
        )
    if origin is typing.Literal:
        values = typing.get_args(ann)
        if not all(isinstance(v, str) for v in values):
            raise _unsupported(owner, name, ann)
        return _Field(
            "one of " + ", ".join(repr(v) for v in values),
            classes=(str,),
            literal=frozenset(values),
        )
    if isinstance(ann, type) and issubclass(ann, enum.StrEnum):
        return _enum_field(ann)
    if ann is AbortCause:
        return _Field(
            "an abort cause", decode=decode_cause, encode=encode_cause, normalize=normalize_cause
        )
    if ann is Usage:
        return _Field(
            "a usage", decode=decode_usage, encode=encode_usage, normalize=normalize_usage
        )
    if ann == _CONTENT_TUPLE:
        return _content_field()
    if origin is tuple:
        return _tuple_field(owner, name, ann)
    raise _unsupported(owner, name, ann)


def _union_field(owner: str, name: str, ann: object) -> _Field:
    args = frozenset(typing.get_args(ann))
    optional = type(None) in args
    rest = args - {type(None)}
    if rest == _CONTENT_ARGS:
        inner = _content_field()
    elif len(rest) == 1:
        inner = _analyse(owner, name, next(iter(rest)))
    elif all(a in _SCALARS for a in rest):
        classes = tuple(sorted({c for a in rest for c in _SCALARS[a]}, key=lambda c: c.__name__))
        names = " or ".join(sorted(a.__name__ for a in rest if isinstance(a, type)))
        inner = _Field(names, classes=classes, to_float=float in rest and int not in rest)
    else:
        raise _unsupported(owner, name, ann)
    inner.optional = inner.optional or optional
    if optional:
        inner.expected += " or null"
    return inner


def _enum_field(enum_cls: type[enum.StrEnum]) -> _Field:
    def dec_enum(v: object) -> object:
        if v.__class__ is str:
            try:
                return enum_cls(v)
            except ValueError:
                pass
        raise ValueError(f"one of {', '.join(m.value for m in enum_cls)}, got {short_json(v)}")

    def norm_enum(v: object) -> object:
        return v if isinstance(v, enum_cls) else enum_cls(typing.cast(str, v))

    return _Field(enum_cls.__name__, decode=dec_enum, encode=str, normalize=norm_enum)


def _tuple_field(owner: str, name: str, ann: object) -> _Field:
    targs = typing.get_args(ann)
    if len(targs) == 2 and targs[1] is Ellipsis:
        if targs[0] is ToolUse:
            return _Field(
                "tool calls",
                decode=decode_tool_calls,
                encode=encode_tool_calls,
                normalize=normalize_tool_calls,
            )
        item = _analyse(owner, f"{name}[]", targs[0])
        if item.classes is not None and item.decode is None and item.encode is None:
            return _Field(
                f"a list of {item.expected}",
                decode=_tuple_decoder(item),
                normalize=_tuple_normalizer(owner, name, item),
            )
    raise _unsupported(owner, name, ann)


def _content_field() -> _Field:
    return _Field(
        "content", decode=decode_content, encode=encode_content, normalize=normalize_content
    )


def _tuple_normalizer(owner: str, name: str, item: _Field) -> Callable[[Any], Any]:
    fix_item = _fixer(owner, name, item)

    def norm(v: object) -> tuple[object, ...]:
        if not isinstance(v, tuple | list):
            raise TypeError(v)
        return tuple([fix_item(x) for x in v])

    return norm


def _tuple_decoder(item: _Field) -> Callable[[Any], Any]:
    classes = item.classes or ()

    def dec(v: object) -> tuple[object, ...]:
        if v.__class__ is list:
            values = typing.cast("list[object]", v)
            for x in values:
                if x.__class__ not in classes or (
                    item.literal is not None and x not in item.literal
                ):
                    raise ValueError(f"a list of {item.expected}, got {short_json(v)}")
            if item.to_float:
                return tuple([float(typing.cast(float, x)) for x in values])
            return tuple(values)
        raise ValueError(f"a list of {item.expected}, got {short_json(v)}")

    return dec


def _unsupported(owner: str, name: str, ann: object) -> TypeError:
    return TypeError(
        f"register_event_type: {owner}.{name}: field type {ann!r} is not supported "
        "(use str, int, float, bool, None, a Literal of strings, a StrEnum, a tuple of "
        "scalars, Content, tuple[ToolUse, ...], AbortCause, Usage, or Any holding JSON)"
    )


Plan = list[tuple[dataclasses.Field[Any], _Field]]


def plan_of(cls: type[SessionEvent]) -> Plan:
    """Each field and how it is checked; raises ``TypeError`` naming a field it cannot log."""
    owner = cls.__qualname__
    try:
        hints = typing.get_type_hints(cls)
    except Exception as exc:
        raise TypeError(
            f"register_event_type: cannot resolve the annotations of {owner}: {exc}"
        ) from None
    plan: Plan = []
    for f in dataclasses.fields(cls):
        if not f.init:
            raise TypeError(f"register_event_type: {owner}.{f.name} must be an init field")
        if not f.kw_only:
            raise TypeError(f"register_event_type: {owner} must be a @dataclass(kw_only=True, ...)")
        plan.append((f, _analyse(owner, f.name, hints[f.name])))
    return plan


def compile_codec(cls: type[SessionEvent], tag: str, plan: Plan, *, reader: bool) -> dict[str, Any]:
    """Compile ``decode`` (``reader``) or ``encode`` and ``restamp``; returns their namespace."""
    ns: dict[str, Any] = {
        "_cls": cls,
        "_tag": tag,
        "_bad": bad_field,
        "_badc": bad_conversion,
        "_MISSING": dataclasses.MISSING,
        "EventDecodeError": EventDecodeError,
    }
    enc_items = [f"'type': {tag!r}"]
    fast: list[str] = []  # decode, every key present
    slow: list[str] = []  # decode, defaults for absent keys, naming a missing one
    norm: list[str] = []  # restamp: check and normalize a Python value
    call_args: list[str] = []
    for i, (f, spec) in enumerate(plan):
        ns[f"_exp{i}"] = spec.expected
        ns[f"_fix{i}"] = _fixer(tag, f.name, spec)
        call_args.append(f"{f.name}=f{i}")
        enc_items.append(_encode_item(i, f.name, spec, ns))
        # The restamp lines test the classes and literals the check lines put in ``ns``.
        body = _check_lines(i, f.name, spec, ns)
        fast.extend([f"v = d[{f.name!r}]", *body, f"f{i} = v"])
        slow.extend(_slow_lines(i, f, body, ns))
        norm.extend(_restamp_lines(i, f.name, spec))
    call = f"_cls({', '.join(call_args)})"
    if reader:
        src = (
            "def decode_slow(d):\n"
            f"{_block(slow)}"
            f"    return {call}\n"
            "def decode(d):\n"
            "    try:\n"
            f"{_block(['    ' + line for line in fast])}"
            "    except KeyError:\n"
            "        return decode_slow(d)\n"
            f"    return {call}\n"
        )
    else:
        src = (
            "def encode(e, sid, seq):\n"
            f"    return {{{', '.join(enc_items)}}}\n"
            "def restamp(e, sid, seq):\n"
            f"{_block(norm)}"
            f"    return {call}\n"
        )
    exec(compile(src, f"<session codec {tag}>", "exec"), ns)
    return ns


def interpret_writer(
    cls: type[SessionEvent], tag: str, plan: Plan
) -> tuple[Callable[[Any, str, int], dict[str, Any]], Callable[[Any, str, int], SessionEvent]]:
    """``encode`` and ``restamp`` as ``compile_codec`` writes them, reading the plan per
    event instead: what a type's first events use, before compiling repays itself (a
    compile is ~0.5 ms; a run writes a handful of events of each of a few types)."""
    fields = [(f.name, spec, _fixer(tag, f.name, spec)) for f, spec in plan]

    def encode(e: Any, sid: str, seq: int) -> dict[str, Any]:
        obj: dict[str, Any] = {"type": tag}
        for name, spec, _ in fields:
            if name == "session_id":
                obj[name] = sid
            elif name == "seq":
                obj[name] = seq
            elif spec.encode is None:
                obj[name] = getattr(e, name)
            else:
                v = getattr(e, name)
                obj[name] = None if spec.optional and v is None else spec.encode(v)
        return obj

    def restamp(e: Any, sid: str, seq: int) -> SessionEvent:
        values: dict[str, Any] = {}
        for name, spec, fix in fields:
            if name == "session_id":
                values[name] = sid
            elif name == "seq":
                values[name] = seq
            else:
                v = getattr(e, name)
                values[name] = fix(v) if _needs_fix(spec, v) else v
        return cls(**values)

    return encode, restamp


def _needs_fix(spec: _Field, v: Any) -> bool:
    """What ``_norm_lines``'s condition says of ``v`` (in its order: a literal is looked up
    only for a value of an accepted class)."""
    if spec.optional and v is None:
        return False
    if spec.classes is None:
        return True
    if v.__class__ is not float if spec.to_float else v.__class__ not in spec.classes:
        return True
    return spec.literal is not None and v not in spec.literal


def _block(lines: list[str]) -> str:
    return "".join(f"    {line}\n" for line in lines)


def _encode_item(i: int, name: str, spec: _Field, ns: dict[str, Any]) -> str:
    """The ``key: value`` the encoder's dict holds for one field (the store stamps two)."""
    key = repr(name)
    if name == "session_id":
        return f"{key}: sid"
    if name == "seq":
        return f"{key}: seq"
    if spec.encode is None:
        return f"{key}: e.{name}"
    ns[f"_enc{i}"] = spec.encode
    if spec.optional:
        return f"{key}: (None if (v{i} := e.{name}) is None else _enc{i}(v{i}))"
    return f"{key}: _enc{i}(e.{name})"


def _slow_lines(
    i: int, f: dataclasses.Field[Any], body: list[str], ns: dict[str, Any]
) -> list[str]:
    """Decode statements for one field that may be absent: its default, or an error naming it."""
    key = repr(f.name)
    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
        return [
            f"if {key} not in d: _badc(_tag, {key}, ValueError('a value (missing)'))",
            f"v = d[{key}]",
            *body,
            f"f{i} = v",
        ]
    if f.default is not dataclasses.MISSING:
        ns[f"_dflt{i}"] = f.default
        fallback = f"_dflt{i}"
    else:
        ns[f"_fac{i}"] = f.default_factory
        fallback = f"_fac{i}()"
    return [
        f"v = d.get({key}, _MISSING)",
        "if v is _MISSING:",
        f"    f{i} = {fallback}",
        "else:",
        *("    " + line for line in body),
        f"    f{i} = v",
    ]


def _restamp_lines(i: int, name: str, spec: _Field) -> list[str]:
    """Restamp statements for one field: the store's two stamps, else a checked value."""
    if name == "session_id":
        return [f"f{i} = sid"]
    if name == "seq":
        return [f"f{i} = seq"]
    return [f"v = e.{name}", *_norm_lines(i, spec), f"f{i} = v"]


_SHARED_STRINGS = frozenset({"session_id", "turn_id"})


def _check_lines(i: int, name: str, spec: _Field, ns: dict[str, Any]) -> list[str]:
    """Decode statements that check and convert ``v`` (a value json.loads gave)."""
    lines: list[str] = []
    pad = ""
    if spec.optional:
        lines.append("if v is not None:")
        pad = "    "
    if spec.classes is not None:
        ns[f"_cls{i}"] = spec.classes
        if spec.to_float:
            lines.append(f"{pad}if v.__class__ is int: v = float(v)")
        if len(spec.classes) == 1:
            cond = f"v.__class__ is not {spec.classes[0].__name__}"
        else:
            cond = f"v.__class__ not in _cls{i}"
        if spec.literal is not None:
            ns[f"_lit{i}"] = spec.literal
            cond += f" or v not in _lit{i}"
        lines.append(f"{pad}if {cond}: _bad(_tag, {name!r}, _exp{i}, v)")
        if name in _SHARED_STRINGS and spec.classes == (str,):
            # One string object for all the events that repeat it (a reload's memory).
            ns["_intern"] = sys.intern
            lines.append(f"{pad}v = _intern(v)")
    elif spec.decode is not None:
        ns[f"_dec{i}"] = spec.decode
        if spec.decode is freeze_loaded:
            lines.append(f"{pad}if v.__class__ is dict or v.__class__ is list: v = _dec{i}(v)")
        else:
            lines.append(f"{pad}try: v = _dec{i}(v)")
            lines.append(f"{pad}except ValueError as exc: _badc(_tag, {name!r}, exc)")
    if spec.optional and len(lines) == 1:
        lines.append(f"{pad}pass")
    return lines


def _norm_lines(i: int, spec: _Field) -> list[str]:
    """Restamp statements: exact JSON classes pass, anything else goes to ``_fix``."""
    if spec.classes is not None:
        cond = f"v.__class__ not in _cls{i}"
        if spec.to_float:
            cond = "v.__class__ is not float"
        if spec.literal is not None:
            cond += f" or v not in _lit{i}"
        if spec.optional:
            cond = f"v is not None and ({cond})"
        return [f"if {cond}: v = _fix{i}(v)"]
    if spec.optional:
        return [f"if v is not None: v = _fix{i}(v)"]
    return [f"v = _fix{i}(v)"]


def _fixer(tag: str, name: str, spec: _Field) -> Callable[[Any], Any]:
    """A function checking and normalizing one field's Python value for the log."""
    where = f"{tag}.{name}"

    def fail(v: object) -> typing.NoReturn:
        raise TypeError(f"{tag} event, field {name!r}: expected {spec.expected}, got {v!r:.80}")

    if spec.classes is not None:
        classes = spec.classes

        def fix_scalar(v: object) -> object:
            if v is None and spec.optional:
                return None
            if isinstance(v, bool) and bool not in classes:
                fail(v)
            if spec.to_float and isinstance(v, int | float):
                v = float(v)
            elif not isinstance(v, classes):
                fail(v)
            if spec.literal is not None and v not in spec.literal:
                fail(v)
            return v if v.__class__ in classes else freeze_json(v, where)

        return fix_scalar
    if spec.decode is freeze_loaded:

        def fix_json(v: object) -> object:
            return freeze_json(v, where)  # raises NotJSONError naming the place

        return fix_json
    convert = spec.normalize
    assert convert is not None

    def fix(v: object) -> object:
        try:
            return convert(v)
        except (TypeError, ValueError, AttributeError):
            fail(v)

    return fix
