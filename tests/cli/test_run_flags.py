"""``dsh run``'s flags as one value: every flag the command declares lands in ``RunFlags``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from dsh.agent import AgentOptions
from dsh.cli._main import cli
from dsh.cli._run_command import RunFlags, SessionFlags
from dsh.cli._run_flags import IO_KEYS, SESSION_FLAGS


def test_the_session_flags_are_the_session_flags_value() -> None:
    assert {f.name for f in dataclasses.fields(SessionFlags)} == set(SESSION_FLAGS)


def test_every_flag_of_dsh_run_is_read_into_run_flags() -> None:
    run = cli.commands["run"]
    with run.make_context("run", ["--max-steps", "7", "--hooks", "codex", "hi", "there"]) as ctx:
        params = dict(ctx.params)
    flags = RunFlags.of(params)
    read = {f.name for f in dataclasses.fields(RunFlags)} - {"session", "io", "front"}
    assert set(params) == read | set(SESSION_FLAGS) | set(IO_KEYS)
    assert flags.prompt == ("hi", "there")
    assert flags.project == Path(".")
    assert flags.session.hooks_choice == "codex"
    assert flags.session.agent() == AgentOptions(max_steps=7)
    assert flags.setup is None
