"""A writer process for the crash tests: appends numbered events forever.

Usage: writer_child.py DATA_DIR SESSION_ID START BATCH PAD [deferred]
Prints each acknowledged counter on its own line, after append returns. With
``deferred``, every other batch is appended with ``durable=False`` (written, not
fsynced): a SIGKILL must lose none of those either.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dsh.session import JsonlSessionStore, NoticeEvent


def main() -> None:
    data_dir, session_id, start, batch, pad = sys.argv[1:6]
    deferred = sys.argv[6:] == ["deferred"]
    store = JsonlSessionStore(Path(data_dir))
    log = store.open(session_id)
    n = int(start)
    filler = "x" * int(pad)
    out = sys.stdout
    while True:
        events = [
            NoticeEvent(text=f"{n + i}:{filler}", source="crash-test") for i in range(int(batch))
        ]
        log.append_many(events, durable=not (deferred and n // int(batch) % 2))
        for i in range(int(batch)):
            out.write(f"{n + i}\n")
        out.flush()
        n += int(batch)


if __name__ == "__main__":
    main()
