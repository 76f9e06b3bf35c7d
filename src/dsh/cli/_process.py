"""How a subcommand's work runs in the ``dsh`` process: start-up's end, its coroutine.

``main`` pauses the cyclic garbage collector while the work's modules are
imported; ``started`` says that is over. ``run_async`` runs the work's
coroutine: Ctrl-C exits 130, a session-store failure is the user's (exit 2),
anything else unexpected exits 70 with one line.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import click

from dsh.cli._errors import UserError, internal_failure, user_error_for
from dsh.session import default_data_dir

__all__ = ["run_async", "session_dir", "started"]

T = TypeVar("T")


def started() -> None:
    """Start-up is over: keep what it built out of every later collection, and collect again."""
    gc.freeze()
    gc.enable()


def session_dir(value: Path | None) -> Path:
    """``--session-dir``'s value, else ``$DSH_DATA_DIR`` or the user data directory; a
    ``UserError`` naming where it came from when it (or a folder above it) is not a folder."""
    path = value if value is not None else default_data_dir()
    blocked = next((p for p in (path, *path.parents) if p.exists()), None)
    if blocked is not None and not blocked.is_dir():
        if value is not None:
            where = "--session-dir"
        else:
            where = "DSH_DATA_DIR" if os.environ.get("DSH_DATA_DIR") else "the data directory"
        what = "is" if blocked == path else f"is under {blocked}, which is"
        raise UserError(f"{where} {path} {what} not a directory")
    return path


def run_async(coro: Coroutine[Any, Any, T], internal: T) -> T:
    """Run a coroutine; Ctrl-C exits 130, an unexpected failure is reported and exits 70."""
    try:
        return asyncio.run(coro)
    except KeyboardInterrupt:
        sys.exit(130)
    except click.ClickException:
        raise
    except Exception as exc:
        error = user_error_for(exc)
        if error is not None:
            raise error from exc
        internal_failure(exc)
        return internal
