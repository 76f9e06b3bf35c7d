"""``dsh acp``'s work: serve the Agent Client Protocol on stdio, for editors such as Zed.

Each session's project is the client's ``cwd``; its options are ``dsh run``'s
session flags (``SessionFlags``), settled with the configuration as ``dsh run``
settles them. stdout carries protocol messages only; logs go to stderr.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

from dsh.acp import AcpConfig, serve_stdio
from dsh.cli._errors import UserError
from dsh.cli._process import session_dir, started
from dsh.cli._run_command import SessionFlags, load_run_model, model_resolver
from dsh.cli._run_settle import settle
from dsh.host._config import sandbox_policy

__all__ = ["serve"]

_ALIASES = ("sonnet", "opus", "haiku")
"""Claude Code's model aliases, offered in an ACP session's ``model`` option for a Claude."""


def serve(*, trust_project: bool = False, verbose: bool = False, **params: Any) -> None:
    """Serve ACP on stdin/stdout until stdin closes (exit 0)."""
    flags = SessionFlags.of(params)
    _log_to_stderr(verbose)
    sessions = session_dir(flags.session_dir)
    given = {
        "model": flags.model_spec,
        "base_url": flags.base_url,
        "permission_mode": flags.permission_mode,
    }
    settled = settle(
        project=Path.cwd(),
        session_dir=sessions,
        flags={k: v for k, v in given.items() if v is not None},
        io={"plugins": flags.plugins},
    )
    model = load_run_model(settled)
    config = AcpConfig(
        model=model,
        session_dir=sessions,
        agent=flags.agent(),
        plugins=settled.plugins,
        sandbox=sandbox_policy(settled.config),
        trust_projects=trust_project,
        # A person is at the editor: asks reach them.
        hooks=flags.hooks(settled.permission_mode, attended=True),
        resolve_model=model_resolver(settled.model_spec, settled.base_url),
        models=_ALIASES if model.name.startswith("claude") else (),
    )
    # Start-up is over (``dsh`` pauses the collector while it imports): a server runs long.
    started()
    try:
        asyncio.run(serve_stdio(config))
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as exc:
        raise UserError(str(exc)) from exc


def _log_to_stderr(verbose: bool) -> None:
    """Log lines on stderr, without tracebacks (the SDK logs one for a bad input line): a
    line names the exception instead, so the editor's log shows no Python internals."""

    class OneLine(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            error = record.exc_info[1] if record.exc_info else None
            plain = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None})
            text = super().format(plain)
            return f"{text} ({type(error).__name__}: {error})" if error is not None else text

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine("dsh acp: %(levelname)s: %(message)s"))
    logging.basicConfig(handlers=[handler], level=logging.INFO if verbose else logging.WARNING)
