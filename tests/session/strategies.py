"""Hypothesis strategies for session events, derived from each class's field types."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any

from hypothesis import strategies as st

from dsh.base import freeze_json
from dsh.messages import Content, ImageBlock, TextBlock, ToolReferenceBlock, ToolUse, Usage
from dsh.messages._messages import MAX_USAGE_TOKENS
from dsh.session import AbortCause, SessionEvent

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
).map(freeze_json)

blocks = (
    st.builds(TextBlock, st.text())
    | st.builds(ImageBlock, st.text(), st.text())
    | st.builds(ToolReferenceBlock, st.text())
)
content: st.SearchStrategy[Content] = st.text() | st.lists(blocks, max_size=3).map(tuple)
tool_uses = st.builds(ToolUse, st.text(), st.text(), json_values)
abort_causes = st.builds(
    AbortCause, st.sampled_from(["user", "hook", "timeout", "error"]), st.text()
)

token_counts = st.integers(min_value=0, max_value=MAX_USAGE_TOKENS)
usages = st.builds(Usage, token_counts, token_counts, token_counts, token_counts)


def for_type(ann: Any) -> st.SearchStrategy[Any]:
    args = typing.get_args(ann)
    origin = typing.get_origin(ann)
    if ann == Content:
        return content
    if origin in (typing.Union, types.UnionType):
        return st.one_of([for_type(a) for a in args])
    if ann is Any:
        return json_values
    if ann is type(None):
        return st.none()
    if ann is str:
        return st.text()
    if ann is bool:
        return st.booleans()
    if ann is int:
        return st.integers()
    if ann is float:
        return st.floats(allow_nan=False, allow_infinity=False)
    if origin is typing.Literal:
        return st.sampled_from(args)
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        return st.sampled_from(list(ann))
    if ann is AbortCause:
        return abort_causes
    if ann is Usage:
        return usages
    if ann == typing.get_args(Content)[1]:
        return st.lists(blocks, max_size=3).map(tuple)
    if origin is tuple and args[0] is ToolUse:
        return st.lists(tool_uses, max_size=3).map(tuple)
    if origin is tuple:
        return st.lists(for_type(args[0]), max_size=3).map(tuple)
    raise NotImplementedError(ann)


def events_of(cls: type[SessionEvent]) -> st.SearchStrategy[SessionEvent]:
    hints = typing.get_type_hints(cls)
    kwargs = {f.name: for_type(hints[f.name]) for f in dataclasses.fields(cls)}
    return st.builds(cls, **kwargs)
