"""The event registry and the JSON codec of session events.

``register_event_type`` reads a class's field annotations once (refusing a
field it cannot log right there) and compiles a plain encoder and decoder for
it (as ``dataclasses`` compiles ``__init__``), so reloading a log costs one
``json.loads`` and one constructor call per event, with the field checks
inline. The compiling waits for the type's first encode, decode or restamp:
most types of a process never see one, and compiling them all at import was a
tenth of ``dsh run``'s start-up. Unknown tags decode to ``OpaqueEvent``.

The JSON form of an event is one object: ``type`` first, then the base fields
(``id``, ``session_id``, ``turn_id``, ``seq``, ``time``), then the class's own
fields in declaration order.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, final

from dsh._frozen import slotted
from dsh.base import DshError, FrozenDict, freeze_json, freeze_loaded
from dsh.session._event_base import AbortCause, AbortKind, OpaqueEvent, SessionEvent
from dsh.session._messages import Content, ImageBlock, TextBlock, ToolUse

__all__ = [
    "EventDecodeError",
    "decode_event",
    "decode_event_dict",
    "encode_event",
    "encode_line",
    "event_type_of",
    "register_event_type",
    "registered_event_types",
    "restamp",
]

E = TypeVar("E", bound=SessionEvent)

HEADER_TYPE = "session/header"
_TAG = re.compile(r"^[a-z0-9][a-z0-9_.-]*(/[a-z0-9][a-z0-9_.-]*)*$")


class EventDecodeError(DshError, ValueError):
    """A JSON object does not decode to the event its ``type`` names."""


_Encode = Callable[[SessionEvent, str, int], dict[str, Any]]
_Restamp = Callable[[SessionEvent, str, int], SessionEvent]
_Decode = Callable[[dict[str, Any]], SessionEvent]


@final
class _Entry:
    """A registered type: its checked field plan now; each half of its codec on first use.

    The writing half (``encode``, ``restamp``) and the reading half (``decode``)
    compile separately: a new session only writes, and a reload of a log that a
    process never appends to only reads.
    """

    __slots__ = ("_decode", "_encode", "_restamp", "cls", "plan", "tag")

    def __init__(self, cls: type[SessionEvent], tag: str, plan: _Plan) -> None:
        self.cls = cls
        self.tag = tag
        self.plan = plan
        self._encode: _Encode | None = None
        self._restamp: _Restamp | None = None
        self._decode: _Decode | None = None

    def encoder(self) -> _Encode:
        if self._encode is None:
            self._compile_writer()
        assert self._encode is not None
        return self._encode

    def restamper(self) -> _Restamp:
        if self._restamp is None:
            self._compile_writer()
        assert self._restamp is not None
        return self._restamp

    def decoder(self) -> _Decode:
        if self._decode is None:
            self._decode = _build(self.cls, self.tag, self.plan, reader=True)["decode"]
            DECODERS[self.tag] = self._decode
        return self._decode

    def _compile_writer(self) -> None:
        fns = _build(self.cls, self.tag, self.plan, reader=False)
        self._encode, self._restamp = fns["encode"], fns["restamp"]


_REGISTRY: dict[str, _Entry] = {}
# The decoders alone, keyed by tag: the hot path of a reload (a compiling stub until first use).
DECODERS: dict[str, _Decode] = {}


def _first_decode(entry: _Entry) -> _Decode:
    def decode(d: dict[str, Any]) -> SessionEvent:
        return entry.decoder()(d)

    return decode


def register_event_type(cls: type[E]) -> type[E]:
    """Class decorator: make ``cls`` a loggable event type under its ``type`` tag.

    ``cls`` must be a frozen, slotted, kw_only dataclass subclass of
    ``SessionEvent`` with a ``type`` ClassVar tag like ``"hook/result"``. Its
    fields may be ``str``, ``int``, ``float``, ``bool``, ``None``, unions of
    those, ``Literal`` strings, a ``StrEnum``, tuples of scalars, ``Content``,
    ``tuple[ToolUse, ...]``, ``AbortCause``, any of these ``| None``, or
    ``Any`` holding JSON (decoded frozen). Registering the same class again is
    a no-op; another class under a taken tag is an error.
    """
    name = getattr(cls, "__qualname__", repr(cls))
    if not (isinstance(cls, type) and issubclass(cls, SessionEvent)) or cls is SessionEvent:
        raise TypeError(f"register_event_type: {name} is not a subclass of SessionEvent")
    if cls is OpaqueEvent:
        raise TypeError("register_event_type: OpaqueEvent stands for unknown types")
    tag = cls.__dict__.get("type")
    if not isinstance(tag, str) or not _TAG.match(tag):
        raise TypeError(
            f"register_event_type: {name} needs its own `type: ClassVar[str]` tag of "
            f"like 'area/name' (lowercase), got {tag!r}"
        )
    if tag == HEADER_TYPE:
        raise ValueError(
            f"register_event_type: {name}: {HEADER_TYPE!r} is reserved for log headers"
        )
    params = cls.__dict__.get("__dataclass_params__")
    if params is None or not params.frozen:
        raise TypeError(f"register_event_type: {name} must be a @dataclass(frozen=True, ...)")
    if "__slots__" not in cls.__dict__:
        raise TypeError(f"register_event_type: {name} must be a @dataclass(slots=True, ...)")
    existing = _REGISTRY.get(tag)
    if existing is not None:
        if existing.cls is cls:
            return cls
        raise ValueError(
            f"register_event_type: tag {tag!r} of {name} is already registered by "
            f"{existing.cls.__module__}.{existing.cls.__qualname__}"
        )
    entry = _Entry(cls, tag, _plan(cls))
    _REGISTRY[tag] = entry
    DECODERS[tag] = _first_decode(entry)
    return cls


def registered_event_types() -> Mapping[str, type[SessionEvent]]:
    """Every registered tag and its class (a snapshot)."""
    return {tag: c.cls for tag, c in _REGISTRY.items()}


def event_type_of(event: SessionEvent) -> str:
    """The tag of an event, including an opaque one's."""
    if isinstance(event, OpaqueEvent):
        return event.event_type
    return type(event).type


# --- encoding ---------------------------------------------------------------

_DUMPS = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
# A lone surrogate cannot be UTF-8 encoded; escaping it keeps the line valid.
_DUMPS_ASCII = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode


def _codec_of(event: SessionEvent) -> _Entry:
    cls = type(event)
    entry = _REGISTRY.get(getattr(cls, "type", None))  # type: ignore[arg-type]
    if entry is None or entry.cls is not cls:
        raise TypeError(
            f"{cls.__qualname__} is not a registered session event type "
            "(decorate it with @register_event_type)"
        )
    return entry


def restamp(event: SessionEvent, session_id: str, seq: int) -> SessionEvent:
    """``event`` with ``session_id`` and ``seq`` set, every field checked and JSON frozen.

    Raises ``TypeError`` (``NotJSONError`` for a JSON field) naming the field.
    """
    return _codec_of(event).restamper()(event, session_id, seq)


def encode_line(event: SessionEvent, session_id: str, seq: int) -> bytes:
    """The event's log line (without the newline), stamped with ``session_id`` and ``seq``."""
    if isinstance(event, OpaqueEvent):
        return event.raw
    codec = _codec_of(event)
    try:
        obj = codec.encoder()(event, session_id, seq)
    except (AttributeError, TypeError) as exc:
        raise TypeError(f"{codec.cls.type} event: a field has the wrong shape: {exc}") from None
    try:
        text = _DUMPS(obj)
    except (TypeError, ValueError):
        _diagnose(codec.cls.type, obj)
        raise
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _DUMPS_ASCII(obj).encode("ascii")


def encode_event(event: SessionEvent) -> str:
    """The stable JSON form of an event, as its log line (an opaque event's raw line)."""
    return encode_line(event, event.session_id, event.seq).decode("utf-8")


def _diagnose(tag: str, obj: dict[str, Any]) -> None:
    # json's own error does not say where; freeze_json names the path.
    for key, value in obj.items():
        freeze_json(value, f"{tag}.{key}")


def _enc_block(b: object) -> dict[str, Any]:
    if isinstance(b, TextBlock):
        return {"type": "text", "text": b.text}
    if isinstance(b, ImageBlock):
        return {"type": "image", "media_type": b.media_type, "data": b.data}
    raise TypeError(f"content block {b!r} is not a TextBlock or an ImageBlock")


def _enc_content(c: Content) -> object:
    if c.__class__ is str:
        return c
    return [_enc_block(b) for b in c]


def _enc_tool_calls(calls: tuple[ToolUse, ...]) -> list[dict[str, Any]]:
    return [{"id": u.id, "name": u.name, "arguments": u.arguments} for u in calls]


def _enc_cause(c: AbortCause) -> dict[str, Any]:
    return {"kind": c.kind, "reason": c.reason}


# --- decoding ---------------------------------------------------------------


def _short(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _bad(tag: str, name: str, expected: str, value: object) -> typing.NoReturn:
    raise EventDecodeError(f"{tag} event, field {name!r}: expected {expected}, got {_short(value)}")


def _bad_conversion(tag: str, name: str, exc: ValueError) -> typing.NoReturn:
    raise EventDecodeError(f"{tag} event, field {name!r}: expected {exc}") from None


def _dec_block(b: object) -> TextBlock | ImageBlock:
    if b.__class__ is dict:
        d = typing.cast("dict[str, Any]", b)
        kind = d.get("type")
        if kind == "text" and d.get("text").__class__ is str:
            return TextBlock(d["text"])
        if (
            kind == "image"
            and d.get("media_type").__class__ is str
            and d.get("data").__class__ is str
        ):
            return ImageBlock(d["media_type"], d["data"])
    raise ValueError(f"a text or image block, got {_short(b)}")


def _dec_content(v: object) -> Content:
    if v.__class__ is str:
        return v
    if v.__class__ is list:
        return tuple([_dec_block(b) for b in typing.cast("list[object]", v)])
    raise ValueError(f"a string or a list of content blocks, got {_short(v)}")


def _dec_tool_calls(v: object) -> tuple[ToolUse, ...]:
    if v.__class__ is not list:
        raise ValueError(f"a list of tool calls, got {_short(v)}")
    out = []
    for u in typing.cast("list[object]", v):
        if (
            u.__class__ is not dict
            or (d := typing.cast("dict[str, Any]", u)).get("id").__class__ is not str
            or d.get("name").__class__ is not str
            or "arguments" not in d
        ):
            raise ValueError(f"a tool call {{id, name, arguments}}, got {_short(u)}")
        out.append(ToolUse(d["id"], d["name"], freeze_loaded(d["arguments"])))
    return tuple(out)


_ABORT_KINDS = frozenset(typing.get_args(AbortKind))


def _dec_cause(v: object) -> AbortCause:
    if v.__class__ is dict:
        d = typing.cast("dict[str, Any]", v)
        if d.get("kind") in _ABORT_KINDS and d.get("reason").__class__ is str:
            return AbortCause(d["kind"], d["reason"])
    raise ValueError(f"an abort cause {{kind: user|hook|timeout|error, reason}}, got {_short(v)}")


def _opaque(d: dict[str, Any], raw: bytes) -> OpaqueEvent:
    def get(key: str, kinds: tuple[type, ...], default: Any) -> Any:
        v = d.get(key)
        return v if v.__class__ in kinds else default

    t = get("time", (float, int), 0.0)
    return OpaqueEvent(
        id=get("id", (str,), ""),
        session_id=get("session_id", (str,), ""),
        turn_id=get("turn_id", (str,), None),
        seq=get("seq", (int,), -1),
        time=float(t),
        event_type=d["type"],
        data=freeze_loaded(d),
        raw=raw,
    )


def decode_event_dict(d: dict[str, Any], raw: bytes | None = None) -> SessionEvent:
    """The event a parsed JSON object stands for; an unknown tag gives an ``OpaqueEvent``.

    ``raw`` is the object's line, kept by an opaque event (re-encoded when absent).
    """
    if d.__class__ is not dict:
        raise EventDecodeError(f"an event is a JSON object, got {_short(d)}")
    tag = d.get("type")
    if tag.__class__ is not str:
        raise EventDecodeError(f"an event needs a string 'type', got {_short(tag)}")
    decode = DECODERS.get(tag)
    if decode is None:
        if raw is None:
            raw = _DUMPS(d).encode("utf-8")
        return _opaque(d, raw)
    return decode(d)


def decode_event(line: str | bytes) -> SessionEvent:
    """The event of one log line (its JSON form)."""
    raw = line.encode("utf-8") if isinstance(line, str) else bytes(line)
    raw = raw.rstrip(b"\n")
    try:
        d = json.loads(raw)
    except ValueError as exc:
        raise EventDecodeError(f"not JSON: {exc}") from None
    return decode_event_dict(d, raw)


# --- compiling a codec ------------------------------------------------------

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
    origin = typing.get_origin(ann)
    if origin is typing.Union or origin is types.UnionType:
        args = frozenset(typing.get_args(ann))
        optional = type(None) in args
        rest = args - {type(None)}
        if rest == _CONTENT_ARGS:
            inner = _content_field()
        elif len(rest) == 1:
            inner = _analyse(owner, name, next(iter(rest)))
        elif all(a in _SCALARS for a in rest):
            classes = tuple(
                sorted({c for a in rest for c in _SCALARS[a]}, key=lambda c: c.__name__)
            )
            names = " or ".join(sorted(a.__name__ for a in rest if isinstance(a, type)))
            inner = _Field(names, classes=classes, to_float=float in rest and int not in rest)
        else:
            raise _unsupported(owner, name, ann)
        inner.optional = inner.optional or optional
        if optional:
            inner.expected += " or null"
        return inner
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
        enum_cls = ann

        def dec_enum(v: object) -> object:
            if v.__class__ is str:
                try:
                    return enum_cls(v)
                except ValueError:
                    pass
            raise ValueError(f"one of {', '.join(m.value for m in enum_cls)}, got {_short(v)}")

        def norm_enum(v: object) -> object:
            return v if isinstance(v, enum_cls) else enum_cls(typing.cast(str, v))

        return _Field(enum_cls.__name__, decode=dec_enum, encode=str, normalize=norm_enum)
    if ann is AbortCause:
        return _Field("an abort cause", decode=_dec_cause, encode=_enc_cause, normalize=_norm_cause)
    if ann == _CONTENT_TUPLE:
        return _content_field()
    if origin is tuple:
        targs = typing.get_args(ann)
        if len(targs) == 2 and targs[1] is Ellipsis:
            if targs[0] is ToolUse:
                return _Field(
                    "tool calls",
                    decode=_dec_tool_calls,
                    encode=_enc_tool_calls,
                    normalize=_norm_tool_calls,
                )
            item = _analyse(owner, f"{name}[]", targs[0])
            if item.classes is not None and item.decode is None and item.encode is None:
                return _Field(
                    f"a list of {item.expected}",
                    decode=_tuple_decoder(item),
                    normalize=_tuple_normalizer(owner, name, item),
                )
        raise _unsupported(owner, name, ann)
    raise _unsupported(owner, name, ann)


def _content_field() -> _Field:
    return _Field("content", decode=_dec_content, encode=_enc_content, normalize=_norm_content)


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
                    raise ValueError(f"a list of {item.expected}, got {_short(v)}")
            if item.to_float:
                return tuple([float(typing.cast(float, x)) for x in values])
            return tuple(values)
        raise ValueError(f"a list of {item.expected}, got {_short(v)}")

    return dec


def _unsupported(owner: str, name: str, ann: object) -> TypeError:
    return TypeError(
        f"register_event_type: {owner}.{name}: field type {ann!r} is not supported "
        "(use str, int, float, bool, None, a Literal of strings, a StrEnum, a tuple of "
        "scalars, Content, tuple[ToolUse, ...], AbortCause, or Any holding JSON)"
    )


_Plan = list[tuple[dataclasses.Field[Any], _Field]]


def _plan(cls: type[SessionEvent]) -> _Plan:
    """Each field and how it is checked; raises ``TypeError`` naming a field it cannot log."""
    owner = cls.__qualname__
    try:
        hints = typing.get_type_hints(cls)
    except Exception as exc:
        raise TypeError(
            f"register_event_type: cannot resolve the annotations of {owner}: {exc}"
        ) from None
    plan: _Plan = []
    for f in dataclasses.fields(cls):
        if not f.init:
            raise TypeError(f"register_event_type: {owner}.{f.name} must be an init field")
        if not f.kw_only:
            raise TypeError(f"register_event_type: {owner} must be a @dataclass(kw_only=True, ...)")
        plan.append((f, _analyse(owner, f.name, hints[f.name])))
    return plan


def _build(cls: type[SessionEvent], tag: str, plan: _Plan, *, reader: bool) -> dict[str, Any]:
    """Compile ``decode`` (``reader``) or ``encode`` and ``restamp``; returns their namespace."""
    ns: dict[str, Any] = {
        "_cls": cls,
        "_tag": tag,
        "_bad": _bad,
        "_badc": _bad_conversion,
        "_MISSING": dataclasses.MISSING,
        "EventDecodeError": EventDecodeError,
    }
    enc_items = [f"'type': {tag!r}"]
    fast: list[str] = []  # decode, every key present
    slow: list[str] = []  # decode, defaults for absent keys, naming a missing one
    norm: list[str] = []  # restamp: check and normalize a Python value
    call_args: list[str] = []
    for i, (f, spec) in enumerate(plan):
        key = repr(f.name)
        ns[f"_exp{i}"] = spec.expected
        ns[f"_fix{i}"] = _fixer(tag, f.name, spec)
        call_args.append(f"{f.name}=f{i}")
        # encoder
        if f.name == "session_id":
            enc_items.append(f"{key}: sid")
        elif f.name == "seq":
            enc_items.append(f"{key}: seq")
        elif spec.encode is None:
            enc_items.append(f"{key}: e.{f.name}")
        else:
            ns[f"_enc{i}"] = spec.encode
            if spec.optional:
                value = f"(None if (v{i} := e.{f.name}) is None else _enc{i}(v{i}))"
            else:
                value = f"_enc{i}(e.{f.name})"
            enc_items.append(f"{key}: {value}")
        # decoders
        body = _check_lines(i, f.name, spec, ns)
        fast.append(f"v = d[{key}]")
        fast.extend(body)
        fast.append(f"f{i} = v")
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            if f.default is not dataclasses.MISSING:
                ns[f"_dflt{i}"] = f.default
                fallback = f"_dflt{i}"
            else:
                ns[f"_fac{i}"] = f.default_factory
                fallback = f"_fac{i}()"
            slow.append(f"v = d.get({key}, _MISSING)")
            slow.append("if v is _MISSING:")
            slow.append(f"    f{i} = {fallback}")
            slow.append("else:")
            slow.extend("    " + line for line in body)
            slow.append(f"    f{i} = v")
        else:
            slow.append(f"if {key} not in d: _badc(_tag, {key}, ValueError('a value (missing)'))")
            slow.append(f"v = d[{key}]")
            slow.extend(body)
            slow.append(f"f{i} = v")
        # restamp
        if f.name == "session_id":
            norm.append(f"f{i} = sid")
        elif f.name == "seq":
            norm.append(f"f{i} = seq")
        else:
            norm.append(f"v = e.{f.name}")
            norm.extend(_norm_lines(i, spec))
            norm.append(f"f{i} = v")
    call = f"_cls({', '.join(call_args)})"

    def block(lines: list[str]) -> str:
        return "".join(f"    {line}\n" for line in lines)

    if reader:
        src = (
            "def decode_slow(d):\n"
            f"{block(slow)}"
            f"    return {call}\n"
            "def decode(d):\n"
            "    try:\n"
            f"{block(['    ' + line for line in fast])}"
            "    except KeyError:\n"
            "        return decode_slow(d)\n"
            f"    return {call}\n"
        )
    else:
        src = (
            "def encode(e, sid, seq):\n"
            f"    return {{{', '.join(enc_items)}}}\n"
            "def restamp(e, sid, seq):\n"
            f"{block(norm)}"
            f"    return {call}\n"
        )
    exec(compile(src, f"<session codec {tag}>", "exec"), ns)
    return ns


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


def _norm_content(v: object) -> Content:
    if isinstance(v, str):
        return v
    if isinstance(v, tuple | list):
        for b in v:
            if not isinstance(b, TextBlock | ImageBlock):
                raise TypeError(b)
        return tuple(v)
    raise TypeError(v)


def _norm_tool_calls(v: object) -> tuple[ToolUse, ...]:
    if not isinstance(v, tuple | list):
        raise TypeError(v)
    out = []
    for u in v:
        if not isinstance(u, ToolUse) or u.id.__class__ is not str or u.name.__class__ is not str:
            raise TypeError(u)
        args = freeze_json(u.arguments)
        out.append(
            u if args == u.arguments and _is_frozen(u.arguments) else ToolUse(u.id, u.name, args)
        )
    return tuple(out)


def _is_frozen(v: object) -> bool:
    if isinstance(v, dict):
        return isinstance(v, FrozenDict) and all(_is_frozen(x) for x in v.values())
    if isinstance(v, list):
        return False
    if isinstance(v, tuple):
        return all(_is_frozen(x) for x in v)
    return True


def _norm_cause(v: object) -> AbortCause:
    if isinstance(v, AbortCause) and v.kind in _ABORT_KINDS and isinstance(v.reason, str):
        return v
    raise TypeError(v)
