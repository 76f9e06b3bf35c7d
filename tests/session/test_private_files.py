"""Session files: 0600 in 0700 directories whatever the umask; no planted symlink followed."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh.session import (
    JsonlSessionStore,
    NoticeEvent,
    SessionError,
    UnsafeSessionPathError,
)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture(params=[0o000, 0o022, 0o077, 0o277])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def torn_log(store: JsonlSessionStore) -> str:
    """A closed session whose log ends in a torn line (so opening it writes the side file)."""
    log = store.create()
    log.append(NoticeEvent(text="kept"))
    session_id = log.id
    log.close()
    with store.log_path(session_id).open("ab") as f:
        f.write(b'{"type": "notice", "tex')
    return session_id


def test_logs_side_files_and_locks_are_private_whatever_the_umask(
    tmp_path: Path, umask: int
) -> None:
    store = JsonlSessionStore(tmp_path / "data" / "sessions")
    session_id = torn_log(store)
    reopened = store.open(session_id)
    assert reopened.recovered is not None
    reopened.append(NoticeEvent(text="after"))
    reopened.close()
    assert mode(tmp_path / "data") == 0o700
    assert mode(store.data_dir) == 0o700
    for path in (
        store.log_path(session_id),
        store.sidecar_path(session_id),
        store.lock_path(session_id),
    ):
        assert mode(path) == 0o600, path
    assert [e.text for e in store.load(session_id) if isinstance(e, NoticeEvent)] == [
        "kept",
        "after",
    ]


def test_an_existing_public_lock_is_made_private(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    log = store.create()
    log.close()
    os.chmod(store.lock_path(log.id), 0o644)
    store.open(log.id).close()
    assert mode(store.lock_path(log.id)) == 0o600


@pytest.mark.parametrize("which", ["log", "sidecar", "lock"])
def test_a_planted_symlink_is_refused_and_its_target_untouched(tmp_path: Path, which: str) -> None:
    store = JsonlSessionStore(tmp_path / "sessions")
    session_id = torn_log(store)
    planted = {
        "log": store.log_path(session_id),
        "sidecar": store.sidecar_path(session_id),
        "lock": store.lock_path(session_id),
    }[which]
    target = tmp_path / "victim.txt"
    target.write_bytes(planted.read_bytes() if planted.exists() else b"precious\n")
    before = target.read_bytes()
    planted.unlink(missing_ok=True)
    planted.symlink_to(target)

    with pytest.raises(UnsafeSessionPathError) as refused:
        store.open(session_id)
    assert isinstance(refused.value, SessionError)
    assert refused.value.path == planted
    assert str(planted) in str(refused.value)
    assert target.read_bytes() == before
    if which == "log":
        with pytest.raises(UnsafeSessionPathError):
            store.load(session_id)
        with pytest.raises(UnsafeSessionPathError):
            store.fork(session_id)
        assert store.list() == []  # skipped, with a warning, not read through the link
