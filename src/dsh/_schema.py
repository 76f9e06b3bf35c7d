"""The one validator of each outside format: a msgspec ``Struct``, and a refusal's words.

Every outside format dsh reads (a hook's JSON answer, a Claude Code settings
file and its parts, a layer of dsh's configuration) has one schema, a
``msgspec.Struct``; ``decode`` converts the already-parsed value to it
(``msgspec.convert``: validation in C, a ~5 ms import against pydantic's
~65 ms, see BENCHMARKS.md, session 9). When msgspec refuses a value,
``describe`` says why in the words the diagnostics have always used (pydantic's:
``Input should be a valid string``, with the same locations and order, each
member of a union tagged): it walks the schema's declared types and asks msgspec
(``_fits``) about each part, so the schema alone decides what is valid.

Three field shapes stand for what msgspec has no word for: ``LaxBool`` (a boolean
also written ``"yes"``, ``1``, ``"off"``..., as a hook's answer may; ``lax_bool``
reads it), ``U64`` (Rust's unsigned 64-bit integer, as Codex's ``timeout``;
msgspec bounds no Python int above int64, so ``u64`` checks the top) and a field
listed in ``checks`` (a rule on a valid value, such as ``module:function``),
which ``decode`` runs after msgspec. A field read under other keys too
(pydantic's ``populate_by_name`` and ``AliasChoices``) is listed in ``decode``'s
``aliases``.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Final, Literal, TypeVar, Union, get_args, get_origin

import msgspec

__all__ = [
    "U64",
    "LaxBool",
    "LaxBoolOrNone",
    "SchemaError",
    "SchemaRefusal",
    "decode",
    "describe",
    "lax_bool",
    "u64",
]

_T = TypeVar("_T", bound=msgspec.Struct)


class _Lax:
    """The marker of ``LaxBool``."""


class _LaxOrNone:
    """The marker of ``LaxBoolOrNone``."""


LaxBool = Annotated[Any, _Lax]
"""A boolean as a hook may write it: ``true``, ``1``, ``1.0``, ``"yes"``, ``"on"``, ``"t"``...
(the schema's ``__post_init__`` reads it with ``lax_bool``)."""
LaxBoolOrNone = Annotated[Any, _LaxOrNone]
"""A ``LaxBool`` or ``null``."""


class _U64:
    """The marker of ``U64``."""


U64 = Annotated[int, msgspec.Meta(ge=0), _U64]
"""An integer from 0 to 2**64 - 1 (the schema's ``__post_init__`` checks the top with ``u64``)."""
_U64_MAX: Final = (1 << 64) - 1
_U64_ABOVE: Final = f"Input should be less than or equal to {_U64_MAX}"

_TRUE: Final = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE: Final = frozenset({"0", "off", "f", "false", "n", "no"})
_BOOL_PARSING: Final = "Input should be a valid boolean, unable to interpret input"
_BOOL_TYPE: Final = "Input should be a valid boolean"

Check = Callable[[Any], "str | None"]
"""A rule on a field's valid value: the reason it is refused, or ``None``."""


class SchemaError(msgspec.Struct, frozen=True):
    """One reason a value was refused: where (field names and list indexes), a kind, words."""

    loc: tuple[str | int, ...]
    type: str
    msg: str
    input: Any


class SchemaRefusal(Exception):
    """``decode``'s refusal: ``errors`` in the schema's field order (never empty)."""

    def __init__(self, errors: list[SchemaError]) -> None:
        super().__init__(errors[0].msg)
        self.errors = errors


def lax_bool(value: Any, *, optional: bool = False) -> bool | None:
    """``value`` as a ``LaxBool`` reads it (``None`` too if ``optional``); else ``ValueError``."""
    if value is True or value is False or (optional and value is None):
        return value
    if type(value) is str:
        lowered = value.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    elif type(value) in (int, float) and value in (0, 1):
        return bool(value)
    # pydantic's words: a 64-bit int (or a whole float inside it) "cannot be interpreted";
    # any other value is no boolean at all.
    number = type(value) is int and -(2**63) <= value < 2**63
    number |= type(value) is float and value.is_integer() and -(2.0**63) < value < 2.0**63
    raise ValueError(_BOOL_PARSING if type(value) is str or number else _BOOL_TYPE)


def u64(value: int | None) -> None:
    """``ValueError`` if ``value`` (a ``U64`` msgspec admitted) is above 2**64 - 1."""
    if value is not None and value > _U64_MAX:
        raise ValueError(_U64_ABOVE)


def decode(
    data: Any,
    schema: type[_T],
    *,
    checks: Mapping[str, Check] | None = None,
    aliases: Mapping[str, tuple[str, ...]] | None = None,
) -> _T:
    """``data`` as ``schema`` (``SchemaRefusal`` naming every bad field if it is not).

    ``aliases``: a top-level field's other keys, by its own key, each tried in
    order when the ones before are absent; a refusal names the key ``data`` used,
    and the keys not used are unknown (refused if ``schema`` forbids unknown keys).
    """
    used: dict[str, str] = {}
    if aliases and isinstance(data, dict):
        data, used = _renamed(data, aliases)
    try:
        value = msgspec.convert(data, schema)
    except msgspec.ValidationError:
        raise SchemaRefusal(_refusal(data, schema, checks, used)) from None
    if checks and any(check(getattr(value, name)) for name, check in checks.items()):
        raise SchemaRefusal(_refusal(data, schema, checks, used))
    return value


def _renamed(
    data: dict[Any, Any], aliases: Mapping[str, tuple[str, ...]]
) -> tuple[dict[Any, Any], dict[str, str]]:
    """``data`` with each aliased field under its own key, and the key each came from."""
    used: dict[str, str] = {}
    for key, others in aliases.items():
        if key not in data:
            found = next((other for other in others if other in data), None)
            if found is not None:
                used[key] = found
    if used:
        back = {found: key for key, found in used.items()}
        data = {back.get(k, k): v for k, v in data.items()}
    return data, used


def _refusal(
    data: Any,
    schema: type[Any],
    checks: Mapping[str, Check] | None,
    used: Mapping[str, str],
) -> list[SchemaError]:
    errors = describe(data, schema, checks=checks)
    if used:
        errors = [
            SchemaError((used.get(str(e.loc[0]), e.loc[0]), *e.loc[1:]), e.type, e.msg, e.input)
            if e.loc
            else e
            for e in errors
        ]
    # msgspec refused what the walk found fine: say msgspec's words rather than nothing.
    return errors or [SchemaError((), "value_error", "Input is not valid", data)]


def describe(
    data: Any,
    tp: Any,
    loc: tuple[str | int, ...] = (),
    *,
    checks: Mapping[str, Check] | None = None,
) -> list[SchemaError]:
    """Why ``data`` is not of type ``tp``, each reason at its location (``[]``: it is)."""
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _describe_struct(data, tp, loc, checks or {})
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        members = [m for m in get_args(tp) if m is not type(None)]
        if data is None and len(members) < len(get_args(tp)):
            return []
        if len(members) == 1:  # an optional value: its errors are the value's
            return describe(data, members[0], loc)
        if _fits(data, tp):
            return []
        return [e for m in members for e in describe(data, m, (*loc, _tag(m)))]
    special = _special_error(data, tp, loc) if origin is Annotated else None
    if special is not None:
        return [special]
    if _fits(data, tp):
        return []
    if origin is Annotated:
        return _describe_annotated(data, tp, loc)
    if origin is Literal:
        return [SchemaError(loc, "literal_error", f"Input should be {_choices(tp)}", data)]
    if origin in (list, tuple):
        kind = "list" if origin is list else "tuple"
        if not isinstance(data, list):
            return [SchemaError(loc, f"{kind}_type", f"Input should be a valid {kind}", data)]
        item = get_args(tp)[0]
        return [e for i, v in enumerate(data) for e in describe(v, item, (*loc, i))]
    return [_leaf(data, tp, loc)]


def _describe_struct(
    data: Any, tp: type[msgspec.Struct], loc: tuple[str | int, ...], checks: Mapping[str, Check]
) -> list[SchemaError]:
    if not isinstance(data, dict):
        msg = f"Input should be a valid dictionary or instance of {tp.__name__}"
        return [SchemaError(loc, "model_type", msg, data)]
    errors: list[SchemaError] = []
    fields = msgspec.structs.fields(tp)
    for field in fields:
        where = (*loc, field.encode_name)
        if field.encode_name not in data:
            if field.required:
                errors.append(SchemaError(where, "missing", "Field required", data))
            continue
        value = data[field.encode_name]
        found = describe(value, field.type, where)
        check = checks.get(field.name)
        reason = check(value) if check is not None and not found else None
        if reason is not None:
            found = [SchemaError(where, "value_error", f"Value error, {reason}", value)]
        errors += found
    if tp.__struct_config__.forbid_unknown_fields:
        known = {field.encode_name for field in fields}
        for key, value in data.items():
            if key not in known:
                errors.append(
                    SchemaError(
                        (*loc, key), "extra_forbidden", "Extra inputs are not permitted", value
                    )
                )
    return errors


def _special_error(data: Any, tp: Any, loc: tuple[str | int, ...]) -> SchemaError | None:
    """What msgspec cannot say: a ``LaxBool`` it cannot read, a float that is not finite,
    a ``U64`` too large."""
    base, *extras = get_args(tp)
    if base is float and type(data) is float and not math.isfinite(data):
        return SchemaError(loc, "finite_number", "Input should be a finite number", data)
    if _U64 in extras and type(data) is int and data > _U64_MAX:
        return SchemaError(loc, "less_than_equal", _U64_ABOVE, data)
    if _Lax not in extras and _LaxOrNone not in extras:
        return None
    try:
        lax_bool(data, optional=_LaxOrNone in extras)
    except ValueError as exc:
        kind = "bool_parsing" if str(exc) == _BOOL_PARSING else "bool_type"
        return SchemaError(loc, kind, str(exc), data)
    return None


def _describe_annotated(data: Any, tp: Any, loc: tuple[str | int, ...]) -> list[SchemaError]:
    base, *extras = get_args(tp)
    meta = next((m for m in extras if isinstance(m, msgspec.Meta)), None)
    if base is str:
        if not isinstance(data, str):
            return [_leaf(data, str, loc)]
        size = meta.min_length if meta is not None else None
        s = "" if size == 1 else "s"
        msg = f"String should have at least {size} character{s}"
        return [SchemaError(loc, "string_too_short", msg, data)]
    if base is float:
        if type(data) not in (int, float) or not _fits(data, float):
            return [SchemaError(loc, "float_type", "Input should be a valid number", data)]
        bound = meta.gt if meta is not None else None
        return [SchemaError(loc, "greater_than", f"Input should be greater than {bound}", data)]
    if base is int and meta is not None:
        if type(data) is not int:
            return [_leaf(data, int, loc)]
        if meta.ge is not None and data < meta.ge:
            msg = f"Input should be greater than or equal to {meta.ge}"
            return [SchemaError(loc, "greater_than_equal", msg, data)]
        if meta.le is not None and data > meta.le:
            msg = f"Input should be less than or equal to {meta.le}"
            return [SchemaError(loc, "less_than_equal", msg, data)]
    return describe(data, base, loc)


_LEAVES: Final[dict[Any, tuple[str, str]]] = {
    str: ("string_type", "Input should be a valid string"),
    int: ("int_type", "Input should be a valid integer"),
    bool: ("bool_type", _BOOL_TYPE),
    dict: ("dict_type", "Input should be a valid dictionary"),
}


def _leaf(data: Any, tp: Any, loc: tuple[str | int, ...]) -> SchemaError:
    kind, msg = _LEAVES[get_origin(tp) or tp]
    return SchemaError(loc, kind, msg, data)


def _fits(data: Any, tp: Any) -> bool:
    try:
        msgspec.convert(data, tp)
    except msgspec.ValidationError:
        return False
    return True


def _choices(tp: Any) -> str:
    names = [repr(v) for v in get_args(tp)]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _tag(tp: Any) -> str:
    """A union member's name in a location, as pydantic wrote it (``list[str]``)."""
    if tp is Any:
        return "any"
    args = get_args(tp)
    if args:
        return f"{get_origin(tp).__name__}[{','.join(_tag(a) for a in args)}]"
    return str(tp.__name__)
