"""What the ``dsh`` command tells a user when something goes wrong: a line, never a traceback.

A user error (bad usage or an unusable input file) exits 2 naming the problem
and its place; a failure of dsh itself exits 70 with one line and a hint to
rerun with ``--debug``, which alone shows the traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

__all__ = [
    "INTERNAL_EXIT",
    "STORAGE_EXIT",
    "USAGE_EXIT",
    "StartFailure",
    "StorageError",
    "UserError",
    "check_settings_args",
    "debug_option",
    "internal_failure",
    "resolve_session_id",
    "set_debug",
    "user_error_for",
]

USAGE_EXIT = 2
INTERNAL_EXIT = 70
STORAGE_EXIT = 74
"""The session log could not be written (sysexits' ``EX_IOERR``): disk full, a size limit."""

_debug = False

_MAX_SETTINGS_BYTES = 8 << 20
"""The bound the catalog reads a settings file within (``MAX_SETTINGS_BYTES``)."""


def set_debug(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """The ``--debug`` flag's callback (on the group and on every subcommand)."""
    global _debug
    _debug = _debug or value


def debug_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--debug`` (on the group and on every subcommand): show Python tracebacks."""
    return click.option(
        "--debug",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=set_debug,
        help="Show Python tracebacks of internal errors.",
    )(f)


def _safe(line: str) -> str:
    """``line`` terminal-safe when stderr is a terminal (a path or a hook's words in it)."""
    from dsh.cli._render import for_stream

    return for_stream(line, sys.stderr)


class UserError(click.ClickException):
    """A user's mistake or an unusable input: ``dsh: MESSAGE``, exit 2."""

    exit_code = USAGE_EXIT

    def show(self, file: object = None) -> None:
        click.echo(_safe(f"dsh: {self.format_message()}"), err=True)


class StartFailure(UserError):
    """The session could not start as configured (a required MCP server did not): shown as a
    ``UserError`` but exit 1, as Codex 0.171 exits when it cannot create its thread."""

    exit_code = 1


class StorageError(click.ClickException):
    """The session log could not be written: ``dsh: MESSAGE`` naming the file, exit 74."""

    exit_code = STORAGE_EXIT

    def show(self, file: object = None) -> None:
        click.echo(f"dsh: {self.format_message()}", err=True)


def user_error_for(exc: BaseException) -> click.ClickException | None:
    """What a session-store failure tells the user (a ``StorageError`` when the log could
    not be written, else a ``UserError``), or a run that failed closed on untrusted hooks
    (a ``UserError``), or ``None`` (dsh itself failed)."""
    from dsh.session import (
        SessionCorruptError,
        SessionError,
        SessionLockedError,
        SessionWriteError,
    )

    if isinstance(exc, SessionWriteError):
        return StorageError(str(exc))
    from dsh.hook_protocol import UntrustedHooksError  # here: only a failure needs it

    if isinstance(exc, UntrustedHooksError):
        # A run that fails closed on the project's untrusted hooks: exit 2, nothing ran.
        return UserError(str(exc))
    if type(exc).__name__ == "McpConfigError":  # dsh.mcp is imported only when it is used
        return UserError(str(exc))
    if type(exc).__name__ == "McpRequiredError":
        return StartFailure(str(exc))

    if isinstance(exc, SessionLockedError):
        by = f"process {exc.holder}" if exc.holder else "another dsh process"
        return UserError(
            f"session {exc.session_id!r} is in use by {by} (lock file {exc.lock_path}); "
            "wait for it to end, or start a new session"
        )
    if isinstance(exc, SessionCorruptError):
        line = f"line {exc.line}, " if exc.line is not None else ""
        return UserError(
            f"session file {exc.path} is corrupt at {line}byte {exc.offset}: {exc.problem}"
        )
    if isinstance(exc, SessionError):
        return UserError(str(exc))
    return None


def internal_failure(exc: BaseException) -> int:
    """Report a failure of dsh itself: the traceback only under ``--debug``; returns 70."""
    if _debug:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    where = ""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        where = f" (at {Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno})"
    hint = "" if _debug else "; rerun with --debug for the traceback"
    click.echo(_safe(f"dsh: internal error: {type(exc).__name__}: {exc}{where}{hint}"), err=True)
    return INTERNAL_EXIT


def resolve_session_id(data_dir: Path, given: str) -> str:
    """The one session ``given`` names in ``data_dir``: its full id or a unique prefix."""
    names = (
        sorted(p.name[: -len(".jsonl")] for p in data_dir.glob("*.jsonl"))
        if data_dir.is_dir()
        else []
    )
    if given in names:
        return given
    matches = [name for name in names if name.startswith(given)] if given else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UserError(
            f"no session {given!r} in {data_dir} ({len(names)} session(s) there; "
            "`dsh log` lists them)"
        )
    shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
    raise UserError(
        f"session id {given!r} is ambiguous in {data_dir}: it begins {len(matches)} "
        f"sessions ({shown}); give more of it"
    )


def check_settings_args(values: tuple[str, ...]) -> None:
    """Every ``--settings`` argument readable JSON (inline, or a file's), as exit 2 promises."""
    from dsh.base import read_bounded

    for value in values:
        if value.lstrip().startswith("{"):
            _check_json(value, "--settings (inline JSON)")
            continue
        path = Path(value).expanduser()
        try:
            text = read_bounded(path, _MAX_SETTINGS_BYTES, "settings file").decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise UserError(f"--settings {value}: cannot read the file: {reason}") from exc
        _check_json(text, f"--settings {value}")


def _check_json(text: str, where: str) -> None:
    try:
        json.loads(text)
    except RecursionError:
        # Well-formed as far as it was read, but nested past the stack: the catalog reads it
        # with a depth bound and diagnoses it like any other unusable declaration.
        return
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{where}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from exc
