"""Hook processes are waited for on the event loop (a pidfd), not by a thread per child."""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest

from dsh.hook_protocol import HookCommand, HookOrigin, run_hooks
from dsh.hook_protocol._executor import run_hook

ORIGIN = HookOrigin(source="test", event="PreToolUse")


def sh(code: str) -> HookCommand:
    return HookCommand(argv=("sh", "-c", code), timeout=20.0, origin=ORIGIN)


def waiter_threads() -> list[str]:
    # ThreadedChildWatcher names its threads (asyncio-)waitpid-<n>.
    return [t.name for t in threading.enumerate() if "waitpid-" in t.name]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 waits on pidfds already")
async def test_running_hooks_start_no_waiting_threads_and_report_exit_codes() -> None:
    running = asyncio.ensure_future(
        run_hooks([sh("sleep 0.3; exit 3"), sh("sleep 0.3; exit 0")], b"{}", dedup=False)
    )
    await asyncio.sleep(0.15)
    assert waiter_threads() == []
    runs = await running
    assert [r.exit_code for r in runs] == [3, 0]


def test_a_loop_in_another_thread_reaps_its_hooks_too() -> None:
    codes: list[int | None] = []

    def other() -> None:
        codes.append(asyncio.run(run_hook(sh("exit 7"), b"")).exit_code)

    for _ in range(2):  # two loops in turn, then one in a second thread
        codes.append(asyncio.run(run_hook(sh("exit 5"), b"")).exit_code)
    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert codes == [5, 5, 7]
