"""The incremental ``Projection`` equals a full re-projection after every event.

The reference is the whole-log fold as ``project`` was written before the
projection became incremental (kept here verbatim in behaviour), so a change
to ``Projection`` cannot pass by agreeing with itself. Sequences mix every
model-visible kind with compactions (nested starts, ends without a start),
results for the pending calls, for stray ids and repeated ones, and events
that are not model-visible; a log is also reloaded (resume) and forked from a
random point and continued.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh.messages import (
    AssistantMessage,
    ContextMessage,
    ModelMessage,
    SteeringMessage,
    SummaryMessage,
    ToolResultMessage,
    ToolUse,
    UserMessage,
)
from dsh.messages._history import HistoryView, shared_prefix
from dsh.session import (
    INTERRUPTED_TOOL_RESULT,
    AssistantMessageEvent,
    CompactionEnd,
    CompactionStart,
    ContextMessageEvent,
    JsonlSessionStore,
    MemorySessionStore,
    NoticeEvent,
    Projection,
    SessionEvent,
    SteeringMessageEvent,
    ToolResultEvent,
    TurnStart,
    UserMessageEvent,
    project,
)

from .strategies import content

IDS = ["a", "b", "c"]
ids = st.sampled_from(IDS)
short = st.text(max_size=5)

events: st.SearchStrategy[SessionEvent] = st.one_of(
    st.builds(AssistantMessageEvent, text=short),
    st.builds(UserMessageEvent, content=content),
    st.builds(ContextMessageEvent, source=short, text=short),
    st.builds(SteeringMessageEvent, text=short),
    st.builds(
        AssistantMessageEvent,
        text=short,
        tool_calls=st.lists(
            st.builds(ToolUse, ids, st.just("Read"), st.just(None)),
            min_size=1,
            max_size=2,
            unique_by=lambda u: u.id,
        ).map(tuple),
    ),
    st.builds(ToolResultEvent, token=st.just("t"), tool_use_id=ids, content=short),
    st.builds(ToolResultEvent, token=st.just("t"), tool_use_id=ids | st.none(), content=content),
    st.builds(CompactionStart, trigger=st.sampled_from(["auto", "manual"])),
    st.builds(CompactionEnd, summary=short),
    st.builds(NoticeEvent, text=short),
    st.builds(TurnStart),
)
logs = st.lists(events, min_size=4, max_size=40)


def reference(evs: list[SessionEvent]) -> list[ModelMessage]:
    """The whole-log fold, as it was before the projection was kept incrementally."""
    out: list[ModelMessage] = []
    pending: dict[str, None] = {}
    held: list[ModelMessage] = []
    mark: int | None = None

    def settle() -> None:
        for i in pending:
            out.append(ToolResultMessage(i, INTERRUPTED_TOOL_RESULT, is_error=True))
        pending.clear()
        out.extend(held)
        held.clear()

    for ev in evs:
        if isinstance(ev, ToolResultEvent):
            if ev.tool_use_id is not None and ev.tool_use_id in pending:
                del pending[ev.tool_use_id]
                out.append(ToolResultMessage(ev.tool_use_id, ev.content, ev.is_error))
                if not pending:
                    out.extend(held)
                    held.clear()
            continue
        message: ModelMessage
        if isinstance(ev, UserMessageEvent):
            message = UserMessage(ev.content)
        elif isinstance(ev, ContextMessageEvent):
            message = ContextMessage(ev.source, ev.text)
        elif isinstance(ev, SteeringMessageEvent):
            message = SteeringMessage(ev.text)
        elif isinstance(ev, AssistantMessageEvent):
            settle()
            out.append(AssistantMessage(ev.text, ev.tool_calls))
            pending.update(dict.fromkeys(c.id for c in ev.tool_calls))
            continue
        elif isinstance(ev, CompactionStart):
            settle()
            mark = len(out)
            continue
        elif isinstance(ev, CompactionEnd):
            settle()
            out[:] = [SummaryMessage(ev.summary), *(out[mark:] if mark is not None else [])]
            mark = None
            continue
        else:
            continue
        (held if pending else out).append(message)
    settle()
    return out


@settings(max_examples=300)
@given(logs)
def test_every_prefix_matches_a_full_reprojection(evs: list[SessionEvent]) -> None:
    projection = Projection()
    assert projection.messages() == ()
    for n, ev in enumerate(evs, 1):
        projection.add(ev)
        assert projection.count == n
        assert list(projection.messages()) == reference(evs[:n])
    assert project(evs) == reference(evs)


@given(logs, st.integers(min_value=0, max_value=40))
def test_built_from_a_prefix_then_fed_matches(evs: list[SessionEvent], cut: int) -> None:
    projection = Projection(evs[:cut])
    projection.messages()  # a view taken mid-way must not disturb what follows
    projection.extend(evs[cut:])
    assert list(projection.messages()) == reference(evs)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(logs, logs, st.integers(min_value=0, max_value=40))
def test_resume_and_fork_continue_the_same_view(
    tmp_path: Path, first: list[SessionEvent], then: list[SessionEvent], cut: int
) -> None:
    store = JsonlSessionStore(tmp_path / "data")
    with store.create() as log:
        log.append_many(first)
        sid = log.id
    with store.open(sid) as resumed:  # resume: the view rebuilt from the reloaded log
        projection = Projection(resumed.events)
        projection.extend(resumed.append_many(then))
        assert list(projection.messages()) == reference([*first, *then])
        assert projection.messages() == tuple(project(resumed.events))
    memory = MemorySessionStore()
    with memory.create() as src:
        src.append_many([*first, *then][:cut])
    with memory.fork(src.id) as fork:  # fork: a copy of the history, then its own events
        projection = Projection(fork.events)
        projection.extend(fork.append_many(then))
        assert list(projection.messages()) == reference([*[*first, *then][:cut], *then])


@given(st.lists(st.integers(0, 3), max_size=12), st.lists(st.integers(0, 3), max_size=12))
def test_shared_prefix(a: list[int], b: list[int]) -> None:
    expected = 0
    while expected < min(len(a), len(b)) and a[expected] == b[expected]:
        expected += 1
    assert shared_prefix(tuple(a), tuple(b)) == expected


def naive_shared(a: tuple[object, ...], b: tuple[object, ...]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


@settings(max_examples=300)
@given(logs, st.lists(st.booleans(), min_size=40, max_size=40))
def test_a_view_that_says_it_extends_another_holds_its_very_items(
    evs: list[SessionEvent], looks: list[bool]
) -> None:
    # Views asked for at random points (as the loop and the hooks ask), then every pair:
    # the certificate never claims what is not so, and shared_prefix agrees with a naive scan.
    projection = Projection()
    views = [projection.messages()]
    for ev, look in zip(evs, looks, strict=False):
        projection.add(ev)
        if look:
            views.append(projection.messages())
    views.append(projection.messages())
    for i, a in enumerate(views):
        for b in views[i:]:
            if isinstance(a, HistoryView) and isinstance(b, HistoryView) and b.extends == a.serial:
                assert len(b) >= len(a)
                assert all(x is y for x, y in zip(a, b, strict=False))
            assert shared_prefix(a, b) == naive_shared(a, b)
            assert shared_prefix(b, a) == naive_shared(b, a)


def test_each_step_of_a_growing_history_extends_the_view_before() -> None:
    projection = Projection([UserMessageEvent(content="go")])
    before = projection.messages()
    for i in range(50):
        projection.add(AssistantMessageEvent(text="", tool_calls=(ToolUse(f"c{i}", "Read", None),)))
        projection.add(ToolResultEvent(token="t", tool_use_id=f"c{i}", content="ok"))
        view = projection.messages()
        assert isinstance(view, HistoryView)
        assert isinstance(before, HistoryView)
        assert view.extends == before.serial
        before = view
    # A compaction rebuilds the history: the next view claims nothing.
    projection.add(CompactionStart(trigger="manual"))
    projection.add(CompactionEnd(summary="s"))
    after = projection.messages()
    assert isinstance(after, HistoryView)
    assert after.extends == 0
    assert shared_prefix(before, after) == 0
