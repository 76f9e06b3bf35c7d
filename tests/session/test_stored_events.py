"""A reopened log keeps its history light (``StoredEvents``) and gives back what a full load does.

The reference is ``store.load`` (every event decoded and kept as an object, as
reopening did before) and ``project`` over it: the light form must equal it
event for event, through every way of reading a sequence (index, negative
index, slice, iteration both ways, type tags), across compressed-block
boundaries, after appends, and for the projection the scan builds. Corrupt
and torn lines are treated as the full reader treats them. ``fast_loads`` is
checked against ``json.loads`` over arbitrary text and JSON.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh.messages import ToolUse
from dsh.session import (
    AssistantMessageEvent,
    EventsView,
    JsonlSessionStore,
    SessionCorruptError,
    SessionEvent,
    ToolResultEvent,
    TurnEnd,
    TurnEndReason,
    TurnStart,
    UserMessageEvent,
    event_types,
    project,
    projection_of,
)
from dsh.session._codec import fast_loads
from dsh.session._stored_events import BLOCK

from .strategies import events_of
from .test_projection_incremental import events as model_events

FUNCTION = [HealthCheck.function_scoped_fixture]
CORE = [AssistantMessageEvent, ToolResultEvent, UserMessageEvent, TurnStart, TurnEnd]
any_events = st.one_of(model_events, *(events_of(cls) for cls in CORE))


def write(tmp_path: Path, evs: list[SessionEvent]) -> tuple[JsonlSessionStore, str]:
    store = JsonlSessionStore(tmp_path / "data")
    with store.create() as log:
        log.append_many(evs)
        return store, log.id


def check_reads_like(view: EventsView, full: tuple[SessionEvent, ...]) -> None:
    assert len(view) == len(full)
    assert view == full
    assert full == view
    assert not view.__ne__(full)
    assert tuple(view) == full
    assert tuple(reversed(view)) == full[::-1]
    assert list(event_types(view)) == [e.type for e in full]
    for i in range(-len(full), len(full)):
        assert view[i] == full[i]
    assert view[1:-1] == full[1:-1]
    assert view[::3] == full[::3]
    assert view[5:2] == ()
    with pytest.raises(IndexError):
        view[len(full)]
    with pytest.raises(IndexError):
        view[-len(full) - 1]


@settings(max_examples=60, suppress_health_check=FUNCTION, deadline=None)
@given(st.lists(any_events, max_size=30), st.lists(any_events, max_size=6))
def test_reopened_history_reads_as_the_full_load(
    tmp_path: Path, first: list[SessionEvent], then: list[SessionEvent]
) -> None:
    store, sid = write(tmp_path, first)
    full = store.load(sid)
    with store.open(sid) as log:
        check_reads_like(log.events, full)
        assert projection_of(log).messages() == tuple(project(full))
        appended = log.append_many(then)
        check_reads_like(log.events, (*full, *appended))
        assert [e.seq for e in log.events] == list(range(len(full) + len(appended)))
    assert store.load(sid) == (*full, *appended)


def long_history(n: int) -> list[SessionEvent]:
    out: list[SessionEvent] = [TurnStart(), UserMessageEvent(content="go")]
    for i in range(n):
        use = ToolUse(f"c{i}", "Read", {"i": i})
        out.append(AssistantMessageEvent(text="", tool_calls=(use,)))
        out.append(ToolResultEvent(token=f"t{i}", tool_use_id=use.id, content=f"r{i}"))
    out.append(TurnEnd(reason=TurnEndReason("completed")))
    return out


def test_a_history_over_many_blocks_reads_back_event_for_event(tmp_path: Path) -> None:
    store, sid = write(tmp_path, long_history(BLOCK * 2))  # 4 blocks and a part
    full = store.load(sid)
    with store.open(sid) as log:
        check_reads_like(log.events, full)
        # Reading far apart, then back: each read decodes its own block.
        assert log.events[3] == full[3]
        assert log.events[-2] == full[-2]
        assert log.events[4] == full[4]
        projection = projection_of(log)
        assert projection.messages() == tuple(project(full))
        # The scan's projection is handed over once; a second owner folds the events afresh.
        assert projection_of(log) is not projection
        assert projection_of(log).messages() == projection.messages()


def test_the_handed_over_projection_takes_up_events_appended_first(tmp_path: Path) -> None:
    store, sid = write(tmp_path, long_history(3))
    with store.open(sid) as log:
        log.append(UserMessageEvent(content="more"))
        assert projection_of(log).messages() == tuple(project(log.events))


def test_a_fork_of_a_long_history_equals_its_source(tmp_path: Path) -> None:
    store, sid = write(tmp_path, long_history(BLOCK))
    with store.fork(sid) as fork:
        assert fork.events == store.load(sid)
        assert projection_of(fork).messages() == tuple(project(store.load(sid)))


def test_a_corrupt_line_is_named_by_its_line_number_on_open(tmp_path: Path) -> None:
    store, sid = write(tmp_path, long_history(BLOCK))
    path = store.log_path(sid)
    lines = path.read_bytes().split(b"\n")
    bad = json.loads(lines[300])
    bad["content"] = 7  # a known type whose field does not decode
    lines[300] = json.dumps(bad).encode()
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(SessionCorruptError) as caught:
        store.open(sid)
    assert caught.value.line == 301
    assert "line 301" in str(caught.value)


def test_a_torn_tail_is_moved_aside_and_the_rest_kept_light(tmp_path: Path) -> None:
    store, sid = write(tmp_path, long_history(BLOCK))
    full = store.load(sid)
    path = store.log_path(sid)
    path.write_bytes(path.read_bytes() + b'{"type":"user/message","id":"x')
    with store.open(sid) as log:
        assert log.recovered is not None
        check_reads_like(log.events, full)
    assert store.sidecar_path(sid).read_bytes() == b'{"type":"user/message","id":"x'


def test_an_unknown_event_type_comes_back_opaque_and_byte_for_byte(tmp_path: Path) -> None:
    store, sid = write(tmp_path, long_history(2))
    path = store.log_path(sid)
    line = b'{"type":"future/thing","id":"f","seq":99,"payload":[1,2.5,"\\u00e9"]}'
    path.write_bytes(path.read_bytes() + line + b"\n")
    full = store.load(sid)
    with store.open(sid) as log:
        check_reads_like(log.events, full)
        assert log.events[-1].type == "future/thing"


# --- fast_loads is json.loads --------------------------------------------------

json_text = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=15,
).flatmap(
    lambda v: st.sampled_from(
        [json.dumps(v), json.dumps(v, ensure_ascii=False), json.dumps(v, separators=(",", ":"))]
    )
)
# Near-JSON text: the places the two parsers could disagree (escapes, numbers, whitespace).
near_json = st.text(
    alphabet='{}[]":,.-+eE0123456789 \t\n\r\\/ubfnrtuadDNIaflsey\x00\x1f\u00e9', max_size=40
)


def same(a: Any, b: Any) -> bool:
    """Equal as ``json.loads`` results: NaN equals NaN, -0.0 differs from 0.0, key order
    counts. A loop, not recursion: the cases nest deeper than the interpreter's limit (3.13's
    ``json`` loads 2,000 levels)."""
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if isinstance(x, float) and isinstance(y, float):
            if not ((math.isnan(x) and math.isnan(y)) or (x == y and _sign(x) == _sign(y))):
                return False
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif isinstance(x, dict) and isinstance(y, dict):
            if list(x) != list(y):
                return False
            pending.extend((x[k], y[k]) for k in x)
        elif type(x) is not type(y) or x != y:
            return False
    return True


def _sign(x: float) -> float:
    return math.copysign(1, x)


@settings(max_examples=400)
@given(json_text | near_json | st.text(max_size=30))
def test_fast_loads_gives_what_json_loads_gives(text: str) -> None:
    try:
        expected = json.loads(text)
    except (ValueError, RecursionError):
        with pytest.raises((ValueError, RecursionError)):
            fast_loads(text)
        return
    assert same(fast_loads(text), expected)


@pytest.mark.parametrize(
    "text",
    [
        '{"a":"\\ud800"}',
        '{"a":1,"a":2}',
        '{"a":NaN}',
        "[" * 2000 + "]" * 2000,
        '{"a":' + "1" * 5000 + "}",
    ],
)
def test_fast_loads_edge_cases(text: str) -> None:
    try:
        expected: Any = json.loads(text)
    except (ValueError, RecursionError) as exc:
        with pytest.raises(type(exc)):
            fast_loads(text)
        return
    assert same(fast_loads(text), expected)
