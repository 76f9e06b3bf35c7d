"""A hostile line in a session log is a corrupt tail for the reader, never a crash."""

from __future__ import annotations

from pathlib import Path

from dsh.session import JsonlSessionStore, NoticeEvent


def test_a_line_nested_past_the_stack_is_a_corrupt_tail_not_a_crash(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    log = store.create()
    log.append(NoticeEvent(text="kept"))
    log.close()
    with store.log_path(log.id).open("ab") as f:
        f.write(b'{"type": "notice", "text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
    assert [e.text for e in store.load(log.id) if isinstance(e, NoticeEvent)] == ["kept"]
    reopened = store.open(log.id)
    assert reopened.recovered is not None
    reopened.close()
