"""The compaction budget's size estimate, kept across views, equals summing the view afresh."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dsh.agent._history_size import HistorySize, message_chars
from dsh.messages import ModelMessage
from tests.models.test_chat_body import messages


@given(st.lists(st.tuples(st.integers(0, 6), st.lists(messages, max_size=5)), max_size=10))
def test_each_view_sizes_as_its_sum(edits: list[tuple[int, list[ModelMessage]]]) -> None:
    size = HistorySize()
    view: tuple[ModelMessage, ...] = ()
    for cut, added in edits:
        view = (*view[: max(0, len(view) - cut)], *added)
        assert size.chars(view) == sum(message_chars(m) for m in view)
