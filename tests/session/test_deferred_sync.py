"""``durable=False`` appends: written at once, fsynced by the next durable append or the close."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dsh.session import JsonlSessionStore, MemorySessionStore, NoticeEvent


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr("dsh.session._store.os.fsync", counting)
    return calls


def test_deferred_lines_are_written_at_once_and_synced_by_the_next_durable_append(
    tmp_path: Path, fsyncs: list[int]
) -> None:
    store = JsonlSessionStore(tmp_path)
    with store.create() as log:
        assert log.path is not None
        size = log.path.stat().st_size
        fsyncs.clear()
        log.append(NoticeEvent(text="deferred 1"), durable=False)
        log.append_many([NoticeEvent(text="deferred 2")], durable=False)
        assert fsyncs == []
        assert log.path.stat().st_size > size  # in the file (the kernel has it) already
        assert [e.text for e in store.load(log.id)] == ["deferred 1", "deferred 2"]  # type: ignore[attr-defined]
        log.append(NoticeEvent(text="durable"))
        assert len(fsyncs) == 1  # one fsync covers the deferred lines too
        log.append(NoticeEvent(text="trailing"), durable=False)
        assert len(fsyncs) == 1
    assert len(fsyncs) == 2  # the close syncs what was left
    with store.open(log.id) as reopened:
        assert [e.text for e in reopened.events] == [  # type: ignore[attr-defined]
            "deferred 1",
            "deferred 2",
            "durable",
            "trailing",
        ]


def test_a_close_with_nothing_deferred_does_not_sync_again(
    tmp_path: Path, fsyncs: list[int]
) -> None:
    with JsonlSessionStore(tmp_path).create() as log:
        log.append(NoticeEvent(text="durable"))
        count = len(fsyncs)
    assert len(fsyncs) == count


def test_the_memory_store_takes_the_same_argument() -> None:
    with MemorySessionStore().create() as log:
        log.append(NoticeEvent(text="x"), durable=False)
        log.append_many([NoticeEvent(text="y")], durable=False)
        assert len(log.events) == 2
