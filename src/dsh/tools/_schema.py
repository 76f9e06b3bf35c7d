"""Argument validators, compiled once per tool at registration.

A tool with a pydantic ``input_model`` is validated by the model; any other
by ``jsonschema`` against its ``input_schema``. Sealed arguments are frozen
(``FrozenDict`` and tuples), so the ``jsonschema`` validator treats tuples as
arrays.

``jsonschema`` costs about 15 µs for a small object, most of a call's budget.
For schemas made only of the common keywords (types, properties, required,
additionalProperties as a boolean, items, string enums, lengths, bounds, patterns; annotations,
``format`` among them, and a ``$schema`` naming draft 2020-12, the default) a
compiled predicate answers "certainly valid" first; anything it does not
certify (an unsupported keyword, a float where an integer is asked, an
actual error) goes to ``jsonschema``, which alone produces the errors. The
fast path can only say yes where ``jsonschema`` says yes, never decide a no.

``jsonschema`` and ``pydantic`` are imported on first use, not at import:
together they cost more than the rest of ``dsh run``'s start-up, and the
built-in tools need neither to register. A schema the fast predicate covers
whole and whose every value is of the metaschema's shape (``_well_formed``: what
``check_schema`` would pass) needs no ``jsonschema`` to register either: its full
validator is built at the first arguments the predicate does not certify (an MCP
server's tools, registered before the first request, so cost it nothing).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sized
from typing import TYPE_CHECKING, Any, cast

from dsh.base import thaw_json
from dsh.tools._types import LazyModel, load_model

if TYPE_CHECKING:
    from pydantic import BaseModel

    from dsh.tools._types import ModelRef

__all__ = ["ArgumentErrors", "ArgumentValidator", "compile_validator", "schema_certifies"]

ArgumentErrors = tuple[dict[str, str], ...]
ArgumentValidator = Callable[[Any], ArgumentErrors | None]
"""Returns ``None`` for valid arguments, else the errors (``path``, ``message``)."""

_Check = Callable[[Any], bool]
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "$schema",
        "$id",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
    }
)
_validator_classes: dict[type[Any], type[Any]] = {}


def _path(parts: Any) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def compile_validator(
    name: str, schema: Mapping[str, Any], model: ModelRef | None
) -> ArgumentValidator:
    """A validator for tool ``name``; raises ``ValueError`` when its schema is unusable."""
    if isinstance(model, LazyModel) and model.schema is not None:
        return _plain_or_pydantic(model)
    if model is not None:
        return _pydantic_validator(model)
    if not isinstance(schema, Mapping):
        raise ValueError(f"tool {name!r}: input_schema must be a mapping (a JSON schema object)")
    plain = thaw_json(schema)
    fast = _compile(plain)
    if (
        fast is not None
        and plain.get("$schema", _DRAFT_2020_12) == _DRAFT_2020_12
        and _well_formed(plain)
    ):
        return _full_when_needed(name, plain, fast)
    return _jsonschema_validator(name, plain)


_DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
"""The draft ``jsonschema`` takes a schema without ``$schema`` for: naming it changes nothing
(2.1.332's tools name it)."""


def _full_when_needed(name: str, plain: Any, fast: _Check) -> ArgumentValidator:
    full: ArgumentValidator | None = None

    def validate(arguments: Any) -> ArgumentErrors | None:
        nonlocal full
        if fast(arguments):
            return None
        if full is None:
            full = _jsonschema_validator(name, plain)
        return full(arguments)

    return validate


# ``format`` is an annotation: dsh's jsonschema validators have no format checker.
_STRING_NOTES = frozenset({"title", "description", "$comment", "format"})
_FLAG_NOTES = frozenset({"deprecated", "readOnly", "writeOnly"})


def _well_formed(schema: Any) -> bool:
    """Whether ``schema`` (one ``_compile`` covers) is certainly what the 2020-12 metaschema
    allows: the values ``_compile`` does not look at of the right type, ``type`` and
    ``required`` lists without repeats, lengths not negative, no ``$id``."""
    if schema is True:
        return True
    if not isinstance(schema, dict) or "$id" in schema:
        return False
    for key, value in schema.items():
        if key in _STRING_NOTES and not isinstance(value, str):
            return False
        if key in _FLAG_NOTES and not isinstance(value, bool):
            return False
        if key == "examples" and not isinstance(value, list):
            return False
        if key in ("type", "required") and not _distinct(value, empty_ok=key == "required"):
            return False
        if key in ("minLength", "maxLength", "minItems", "maxItems") and value < 0:
            return False
    properties = schema.get("properties", {})
    items = schema.get("items", True)
    return all(_well_formed(sub) for sub in (*properties.values(), items))


def _distinct(value: Any, *, empty_ok: bool) -> bool:
    """A string, or a list of strings without repeats (empty only where ``empty_ok``)."""
    if not isinstance(value, list):
        return True
    return len(set(value)) == len(value) and (empty_ok or bool(value))


def _jsonschema_validator(name: str, plain: Any) -> ArgumentValidator:
    import jsonschema
    from jsonschema import validators
    from jsonschema.exceptions import SchemaError

    base = validators.validator_for(plain, default=jsonschema.Draft202012Validator)
    try:
        base.check_schema(plain)
    except SchemaError as exc:
        raise ValueError(
            f"tool {name!r}: input_schema is not a valid JSON schema: {exc.message}"
        ) from exc
    cls = _validator_classes.get(base)
    if cls is None:
        checker = base.TYPE_CHECKER.redefine(
            "array", lambda _checker, instance: isinstance(instance, (list, tuple))
        )
        cls = validators.extend(base, type_checker=checker)  # type: ignore[no-untyped-call]
        _validator_classes[base] = cls
    full = cls(plain)
    fast = None if base is jsonschema.Draft3Validator else _compile(plain)

    def validate(arguments: Any) -> ArgumentErrors | None:
        if fast is not None and fast(arguments):
            return None
        errors = list(full.iter_errors(arguments))
        if errors:
            # Equality keywords (enum, const, uniqueItems) compare lists and
            # tuples as different; confirm against the thawed form.
            errors = list(full.iter_errors(thaw_json(arguments)))
        if not errors:
            return None
        errors.sort(key=lambda e: (list(map(str, e.absolute_path)), e.message))
        return tuple({"path": _path(e.absolute_path), "message": e.message} for e in errors[:20])

    return validate


# Each LazyModel's fast predicate (None: its schema has a keyword the predicate lacks).
_CERTIFIERS: dict[int, tuple[LazyModel[Any], _Check | None]] = {}


def schema_certifies(model: LazyModel[Any], arguments: Any) -> bool:
    """Whether ``model.schema``'s fast predicate certifies ``arguments`` (then the model
    accepts them too: what ``LazyModel.schema`` promises)."""
    known = _CERTIFIERS.get(id(model))
    if known is None or known[0] is not model:
        check = None if model.schema is None else _compile(thaw_json(model.schema))
        known = _CERTIFIERS[id(model)] = (model, check)
    check = known[1]
    return check is not None and check(arguments)


def _plain_or_pydantic(model: LazyModel[Any]) -> ArgumentValidator:
    # Arguments of the plain shape need no pydantic; the model decides (and explains) the rest.
    full = _pydantic_validator(model)

    def validate(arguments: Any) -> ArgumentErrors | None:
        if schema_certifies(model, arguments):
            return None
        return full(arguments)

    return validate


def _pydantic_validator(ref: ModelRef) -> ArgumentValidator:
    # A LazyModel is imported (and pydantic with it) at the first validation.
    model: type[BaseModel] | None = None

    def validate(arguments: Any) -> ArgumentErrors | None:
        nonlocal model
        from pydantic import ValidationError

        if model is None:
            model = load_model(ref)
            assert model is not None
        try:
            model.model_validate(arguments)
        except ValidationError as exc:
            return tuple(
                {"path": _path(err["loc"]), "message": err["msg"]}
                for err in exc.errors(include_url=False)[:20]
            )
        return None

    return validate


# -- the fast predicate ---------------------------------------------------------


def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_number(v: Any) -> bool:
    return type(v) is int or type(v) is float


_TYPE_CHECKS: dict[str, _Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, (tuple, list)),
    "string": lambda v: isinstance(v, str),
    "integer": _is_int,
    "number": _is_number,
    "boolean": lambda v: v is True or v is False,
    "null": lambda v: v is None,
}


def _compile(schema: Any) -> _Check | None:
    """A predicate that is true only for values certainly valid, or ``None`` if unsupported."""
    if schema is True:
        return lambda v: True
    if not isinstance(schema, dict):
        return None
    keys = set(schema) - _ANNOTATIONS
    checks: list[_Check] = []

    if "type" in keys:
        keys.discard("type")
        t = schema["type"]
        types = [t] if isinstance(t, str) else t
        if not isinstance(types, list) or not all(x in _TYPE_CHECKS for x in types):
            return None
        preds = [_TYPE_CHECKS[x] for x in types]
        checks.append(preds[0] if len(preds) == 1 else (lambda v: any(p(v) for p in preds)))

    if "enum" in keys:
        keys.discard("enum")
        enum = schema["enum"]
        if not isinstance(enum, list) or not all(isinstance(e, str) for e in enum):
            return None
        allowed = frozenset(enum)
        checks.append(lambda v: isinstance(v, str) and v in allowed)

    props: list[tuple[str, _Check]] = []
    if "properties" in keys:
        keys.discard("properties")
        if not isinstance(schema["properties"], dict):
            return None
        for pname, sub in schema["properties"].items():
            compiled = _compile(sub)
            if compiled is None:
                return None
            props.append((pname, compiled))
    required: tuple[str, ...] = ()
    if "required" in keys:
        keys.discard("required")
        req = schema["required"]
        if not isinstance(req, list) or not all(isinstance(r, str) for r in req):
            return None
        required = tuple(req)
    closed = False
    if "additionalProperties" in keys:
        keys.discard("additionalProperties")
        extra = schema["additionalProperties"]
        if extra is False:
            closed = True
        elif extra is not True:
            return None
    if props or required or closed:
        names = frozenset(p for p, _ in props)
        prop_checks = tuple(props)

        def object_ok(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for r in required:
                if r not in v:
                    return False
            for pname, check in prop_checks:
                if pname in v and not check(v[pname]):
                    return False
            return not closed or all(k in names for k in v)

        checks.append(object_ok)

    if "items" in keys:
        keys.discard("items")
        item = _compile(schema["items"])
        if item is None:
            return None
        checks.append(lambda v: not isinstance(v, (tuple, list)) or all(item(x) for x in v))

    if "pattern" in keys:  # as jsonschema checks it: ``re.search`` on strings
        keys.discard("pattern")
        try:
            regex = re.compile(schema["pattern"])
        except (re.error, TypeError):
            return None  # jsonschema refuses the schema; leave it to say so
        checks.append(lambda v: not isinstance(v, str) or regex.search(v) is not None)

    bounds = ("minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum")
    for key in (*bounds, "exclusiveMinimum", "exclusiveMaximum"):
        if key in keys:
            keys.discard(key)
            bound = schema[key]
            check = _bound_check(key, bound)
            if check is None:
                return None
            checks.append(check)

    if keys:
        return None
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    all_checks = tuple(checks)
    return lambda v: all(c(v) for c in all_checks)


def _bound_check(key: str, bound: Any) -> _Check | None:
    if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if not _is_number(bound):  # draft 4's boolean exclusive bounds are left to jsonschema
            return None
        if key == "minimum":
            return lambda v: not _is_number(v) or v >= bound
        if key == "maximum":
            return lambda v: not _is_number(v) or v <= bound
        if key == "exclusiveMinimum":
            return lambda v: not _is_number(v) or v > bound
        return lambda v: not _is_number(v) or v < bound
    if type(bound) is not int:
        return None
    kind: type | tuple[type, ...] = str if key.endswith("Length") else (tuple, list)
    minimum = key.startswith("min")

    def check(v: Any) -> bool:
        if not isinstance(v, kind):
            return True
        n = len(cast(Sized, v))
        return n >= bound if minimum else n <= bound

    return check
