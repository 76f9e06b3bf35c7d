"""The values every dsh package shares, one floor below them all: frozen JSON and the error root."""

from dsh.base._errors import DshError
from dsh.base._json import (
    FrozenDict,
    FrozenJSON,
    JSONValue,
    NotJSONError,
    freeze_json,
    freeze_loaded,
    thaw_json,
)

__all__ = [
    "DshError",
    "FrozenDict",
    "FrozenJSON",
    "JSONValue",
    "NotJSONError",
    "freeze_json",
    "freeze_loaded",
    "thaw_json",
]
