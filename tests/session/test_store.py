"""The session stores: durability, recovery, locking, fork, list, load."""

from __future__ import annotations

import logging
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.base import FrozenDict, NotJSONError
from dsh.messages import ToolUse
from dsh.session import (
    AssistantMessageEvent,
    JsonlSessionStore,
    MemorySessionStore,
    NoticeEvent,
    OpaqueEvent,
    SessionCorruptError,
    SessionError,
    SessionEvent,
    SessionLockedError,
    SessionLog,
    SessionNotFoundError,
    SessionStore,
    ToolCallEvent,
    ToolResultEvent,
    TurnStart,
    UserMessageEvent,
    default_data_dir,
)
from dsh.session._events import CORE_EVENT_TYPES
from dsh.session._store import DATA_DIR_ENV
from tests.session.strategies import events_of

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["jsonl", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SessionStore]:
    if request.param == "jsonl":
        yield JsonlSessionStore(tmp_path / "sessions")
    else:
        yield MemorySessionStore()


def sample_events() -> list[object]:
    return [
        TurnStart(turn_id="t1"),
        UserMessageEvent(turn_id="t1", content="list files"),
        AssistantMessageEvent(
            turn_id="t1", text="", tool_calls=(ToolUse("c1", "Bash", {"command": "ls"}),)
        ),
        ToolCallEvent(
            turn_id="t1",
            token="tok1",
            tool_use_id="c1",
            tool_name="Bash",
            arguments={"command": "ls"},
        ),
        ToolResultEvent(
            turn_id="t1", token="tok1", tool_use_id="c1", content="a\nb", output={"rc": 0}
        ),
    ]


# --- behaviour both stores share --------------------------------------------


def test_append_stamps_session_and_sequence_and_reload_gives_the_same_events(
    store: SessionStore,
) -> None:
    with store.create() as log:
        first = log.append(TurnStart(turn_id="t1"))
        rest = log.append_many(sample_events()[1:])  # type: ignore[arg-type]
        assert first.session_id == log.id
        assert [e.seq for e in log.events] == [0, 1, 2, 3, 4]
        assert log.events == (first, *rest)
        # Any fields are frozen on append, so the log cannot be changed behind its back.
        call = log.events[3]
        assert isinstance(call, ToolCallEvent)
        assert isinstance(call.arguments, FrozenDict)
        events = log.events
    assert store.load(log.id) == events
    with store.open(log.id) as reopened:
        assert reopened.events == events
        assert reopened.append(NoticeEvent(text="again")).seq == 5


def test_a_second_writer_on_the_same_session_is_refused(store: SessionStore) -> None:
    log = store.create()
    with pytest.raises(SessionLockedError, match=f"session '{log.id}' is already open"):
        store.open(log.id)
    log.close()
    store.open(log.id).close()


def test_fork_copies_history_under_a_new_id_and_remembers_its_source(
    store: SessionStore,
) -> None:
    with store.create() as log:
        log.append_many(sample_events())  # type: ignore[arg-type]
    with store.fork(log.id) as fork:
        assert fork.id != log.id
        assert fork.forked_from == log.id
        assert fork.events == store.load(log.id)
        fork.append(NoticeEvent(text="only in the fork"))
    assert len(store.load(log.id)) == 5
    assert len(store.load(fork.id)) == 6
    infos = {i.id: i for i in store.list()}
    assert infos[fork.id].forked_from == log.id
    assert infos[log.id].forked_from is None
    with store.open(fork.id) as reopened:
        assert reopened.forked_from == log.id


def test_list_load_and_open_of_unknown_or_malformed_ids(store: SessionStore) -> None:
    assert store.list() == []
    with pytest.raises(SessionNotFoundError, match="no session 'nope'"):
        store.load("nope")
    with pytest.raises(ValueError, match="is not a session id"):
        store.open("../etc/passwd")


def test_a_bad_event_is_refused_with_its_field_and_nothing_is_written(
    store: SessionStore,
) -> None:
    with store.create() as log:
        with pytest.raises(NotJSONError, match=r"tool/result\.output\.when"):
            log.append(ToolResultEvent(token="t", content="x", output={"when": {1, 2}}))
        with pytest.raises(TypeError, match=r"user/message event, field 'content'"):
            log.append(UserMessageEvent(content=5))  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"notice event, field 'level'"):
            log.append(NoticeEvent(text="x", level="loud"))  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="opaque"):
            log.append(OpaqueEvent(event_type="x/y", data=None, raw=b"{}"))
        assert log.events == ()
        log.append(NoticeEvent(text="fine"))
    assert [e.seq for e in store.load(log.id)] == [0]


def test_closed_log_refuses_appends(store: SessionStore) -> None:
    log = store.create()
    log.close()
    log.close()
    with pytest.raises(SessionError, match="is closed"):
        log.append(NoticeEvent(text="late"))


# --- the JSONL file ----------------------------------------------------------


def test_default_data_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, "/srv/dsh-sessions")
    assert default_data_dir() == Path("/srv/dsh-sessions")
    monkeypatch.delenv(DATA_DIR_ENV)
    assert default_data_dir().name == "sessions"


def test_the_file_is_a_header_then_one_line_per_event(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    with store.create() as log:
        log.append_many(sample_events())  # type: ignore[arg-type]
    lines = log.path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert len(lines) == 1 + 5 + 1
    assert lines[0].startswith(b'{"type":"session/header","version":1,"id":"')
    assert lines[1].startswith(b'{"type":"turn/start",')


def test_lock_refusal_across_processes(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    log = store.create()
    log.close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from dsh.session import JsonlSessionStore as S; "
            f"log = S({str(tmp_path)!r}).open({log.id!r}); print('locked', flush=True); "
            "sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "locked\n"
        with pytest.raises(SessionLockedError, match=f"held by pid {holder.pid}"):
            store.open(log.id)
        # Readers never need the lock.
        assert store.load(log.id) == ()
    finally:
        holder.communicate(input="", timeout=30)
    # The lock dies with its holder.
    store.open(log.id).close()


def truncated_copies(tmp_path: Path) -> tuple[JsonlSessionStore, str, bytes, int]:
    store = JsonlSessionStore(tmp_path)
    with store.create() as log:
        log.append_many(sample_events())  # type: ignore[arg-type]
        log.append(UserMessageEvent(content="the last one, café ✓"))
    data = log.path.read_bytes()
    last_start = data.rindex(b"\n", 0, len(data) - 1) + 1
    return store, log.id, data, last_start


def test_torn_tail_at_every_byte_of_the_last_event_is_recovered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store, sid, data, last_start = truncated_copies(tmp_path)
    path, sidecar = store.log_path(sid), store.sidecar_path(sid)
    kept = store.load(sid)[:-1]
    for cut in range(last_start, len(data)):
        path.write_bytes(data[:cut])
        sidecar.unlink(missing_ok=True)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="dsh.session"):
            log = store.open(sid)
        try:
            assert log.events == kept, cut
            if cut == last_start:
                assert log.recovered is None
                assert not sidecar.exists()
            else:
                assert log.recovered is not None
                assert log.recovered.offset == last_start
                assert log.recovered.length == cut - last_start
                assert sidecar.read_bytes() == data[last_start:cut]
                assert path.read_bytes() == data[:last_start]
                assert f"{path}" in caplog.text
                assert f"at byte {last_start}" in caplog.text
            # The log goes on from a clean line.
            log.append(NoticeEvent(text="after recovery"))
        finally:
            log.close()
        assert len(store.load(sid)) == len(kept) + 1


def test_the_sidecar_is_appended_to_never_replaced(tmp_path: Path) -> None:
    store, sid, data, last_start = truncated_copies(tmp_path)
    path, sidecar = store.log_path(sid), store.sidecar_path(sid)
    path.write_bytes(data[: last_start + 5])
    store.open(sid).close()
    path.write_bytes(data[: last_start + 9])
    store.open(sid).close()
    assert (
        sidecar.read_bytes()
        == data[last_start : last_start + 5] + data[last_start : last_start + 9]
    )


def test_garbage_after_the_last_event_goes_to_the_sidecar(tmp_path: Path) -> None:
    store, sid, data, _ = truncated_copies(tmp_path)
    path = store.log_path(sid)
    # What a power loss can leave: zeroed blocks, then a complete line after them.
    junk = b"\x00\x00\x00\x00\n" + data.splitlines(keepends=True)[-1]
    path.write_bytes(data + junk)
    with store.open(sid) as log:
        assert log.recovered is not None
        assert log.recovered.offset == len(data)
        assert "1 later line(s)" in log.recovered.problem
        assert len(log.events) == 6
    assert store.sidecar_path(sid).read_bytes() == junk
    assert path.read_bytes() == data


def test_a_well_formed_line_of_a_known_type_that_does_not_decode_is_an_error(
    tmp_path: Path,
) -> None:
    store, sid, data, last_start = truncated_copies(tmp_path)
    path = store.log_path(sid)
    bad = b'{"type":"turn/end","reason":"sideways"}\n'
    path.write_bytes(data[:last_start] + bad + data[last_start:])
    with pytest.raises(SessionCorruptError, match=f"at byte {last_start}: turn/end event"):
        store.open(sid)
    with pytest.raises(SessionCorruptError):
        store.load(sid)
    assert path.read_bytes() == data[:last_start] + bad + data[last_start:]
    # The failed open released its lock.
    path.write_bytes(data)
    store.open(sid).close()


def test_load_leaves_a_torn_tail_in_place(tmp_path: Path) -> None:
    store, sid, data, last_start = truncated_copies(tmp_path)
    store.log_path(sid).write_bytes(data[: last_start + 3])
    assert len(store.load(sid)) == 5
    assert store.log_path(sid).read_bytes() == data[: last_start + 3]
    assert not store.sidecar_path(sid).exists()


def test_unknown_event_types_are_preserved_byte_for_byte(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    with store.create() as log:
        log.append(TurnStart())
    unknown = (
        b'{ "type" : "hook/someday", "id":"h1","seq":1, "time": 7, '
        b'"note":"caf\\u00e9 \xe2\x9c\x93", "nested": {"b":[1,2.50,{}],"a":null} }\n'
    )
    with log.path.open("ab") as f:
        f.write(unknown)
    with store.open(log.id) as reopened:
        assert reopened.recovered is None
        opaque = reopened.events[1]
        assert isinstance(opaque, OpaqueEvent)
        assert opaque.type == "hook/someday"
        assert opaque.raw + b"\n" == unknown
        reopened.append(NoticeEvent(text="after it"))
    with store.fork(log.id) as fork:
        assert isinstance(fork.events[1], OpaqueEvent)
    fork_lines = fork.path.read_bytes().split(b"\n")
    assert fork_lines[2] + b"\n" == unknown
    assert log.path.read_bytes().split(b"\n")[1:] == fork_lines[1:]


def test_list_reads_headers_and_skips_foreign_files(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = JsonlSessionStore(tmp_path)
    a = store.create()
    a.close()
    b = store.create()
    b.close()
    (tmp_path / "stray.jsonl").write_text("not a session\n")
    with caplog.at_level(logging.WARNING, logger="dsh.session"):
        infos = store.list()
    assert [i.id for i in infos] == [a.id, b.id]
    assert all(i.path is not None and i.size for i in infos)
    assert "stray.jsonl" in caplog.text
    assert JsonlSessionStore(tmp_path / "missing").list() == []


def test_log_protocol_is_met_by_both_logs(tmp_path: Path) -> None:
    for store in (JsonlSessionStore(tmp_path), MemorySessionStore()):
        log = store.create()
        assert isinstance(log, SessionLog)
        log.close()


@settings(max_examples=25, deadline=None)
@given(
    events=st.lists(
        st.one_of([events_of(cls) for cls in CORE_EVENT_TYPES]), min_size=1, max_size=8
    ),
    batched=st.booleans(),
)
def test_any_events_appended_reload_equal_from_disk(
    events: list[SessionEvent], batched: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = JsonlSessionStore(tmp)
        with store.create() as log:
            if batched:
                log.append_many(events)
            else:
                for event in events:
                    log.append(event)
            written = log.events
        assert store.load(log.id) == written
        assert [e.seq for e in written] == list(range(len(events)))
        assert all(e.session_id == log.id for e in written)
        # Stamping changed only the session id and sequence number.
        for before, after in zip(events, written, strict=True):
            assert replace(before, session_id=log.id, seq=after.seq) == after


def test_a_new_session_may_have_the_id_its_caller_chose_once(store: SessionStore) -> None:
    chosen = "0b5c1d0e-7f3a-4c52-9d7e-2f1a6b3c4d5e"
    with store.create(project="/p", session_id=chosen) as log:
        assert log.id == chosen
    with pytest.raises(SessionError, match="exists already"):
        store.create(session_id=chosen)
    assert store.load(chosen) == ()
    with pytest.raises(ValueError, match="is not a session id"):
        store.create(session_id="../elsewhere")
