"""``HistoryView``: a model-facing history as a projection hands it out, and ``shared_prefix``.

A model adapter compares each request's history with the last one it sent
(``shared_prefix``) to reuse what it already encoded; a view that knows the view
it extends makes that comparison free.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import count

from dsh.messages._messages import ModelMessage

__all__ = ["HistoryView", "history_view", "shared_prefix"]

_serials = count(1)


class HistoryView(tuple[ModelMessage, ...]):
    """A view as a ``Projection`` hands it out: a tuple that knows the view it extends.

    ``extends`` is the ``serial`` of an earlier view of the same projection
    whose items are, object for object, this view's first items (0: none
    known), so ``shared_prefix`` of the two is their length without a look at
    any item: the comparison every step makes of a long history with the last.
    """

    # A tuple takes no slots: the two numbers live in the instance's dict.
    serial: int
    extends: int


def history_view(items: Iterable[ModelMessage], extends: int) -> HistoryView:
    """A new view of ``items`` (with a serial of its own) that extends view ``extends``."""
    view = HistoryView(items)
    view.serial = next(_serials)
    view.extends = extends
    return view


def shared_prefix(a: tuple[object, ...], b: tuple[object, ...]) -> int:
    """How many leading items ``a`` and ``b`` share (identical or equal).

    Sized for one view against the next: the common case (``b`` a projection's
    view extending ``a``, its ``HistoryView.extends``) looks at no item, ``a`` a
    prefix of ``b`` otherwise is one C-level comparison, and a changed history
    (a compaction) is a binary search over slices.
    """
    if a is b:
        return len(a)
    if type(a) is type(b) is HistoryView and a.serial == b.extends:
        return len(a)
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n - 1  # a[:lo] == b[:lo] holds; a[:hi + 1] != b[:hi + 1]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
