"""A hook leads its own process group always, and its own session only where dsh has a terminal.

Each case runs a small dsh process (``scripts/group_child.py``) that starts one hook
reporting its pid, group, session and whether it can open ``/dev/tty``: once
with no controlling terminal (started in a session of its own, as from CI or
an editor) and once in a pseudo-terminal, where the hook must not reach it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pexpect

CHILD = Path(__file__).parent / "scripts" / "group_child.py"


def test_without_a_terminal_a_hook_gets_a_group_of_its_own_in_dsh_session() -> None:
    out = subprocess.run(
        [sys.executable, str(CHILD)],
        capture_output=True,
        text=True,
        check=True,
        start_new_session=True,  # no controlling terminal, whatever runs the tests
        timeout=60,
    ).stdout
    seen = json.loads(out.splitlines()[-1])
    assert seen["own_session"] is False
    hook = seen["hook"]
    # Its own group (led by the hook, or by the nsenter that runs it in dsh's namespace, its
    # parent): ending the group ends its tree.
    assert hook["pgid"] in (hook["pid"], hook["ppid"])
    assert hook["pgid"] != seen["dsh_pgid"]
    assert hook["sid"] == seen["dsh_sid"]  # no session made for it
    assert hook["tty"] != "opened"


def test_in_a_terminal_a_hook_gets_a_session_of_its_own_and_cannot_reach_it() -> None:
    child = pexpect.spawn(sys.executable, [str(CHILD)], encoding="utf-8", timeout=60)
    try:
        child.expect(r"\{.*\}\r?\n")
        seen = json.loads(str(child.after).strip())
    finally:
        child.close(force=True)
    assert seen["own_session"] is True
    hook = seen["hook"]
    assert hook["pgid"] in (hook["pid"], hook["ppid"])  # the hook, or nsenter before it
    assert hook["pgid"] != seen["dsh_pgid"]
    assert hook["sid"] == hook["pgid"]
    assert hook["tty"] != "opened"
