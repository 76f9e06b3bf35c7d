"""Where a subcommand's work is loaded: its own module, imported when the subcommand runs.

Each subcommand is declared with click alone (``_main``, ``_run_flags``,
``_sessions_flags``, ``_acp``), so ``dsh --version`` and every ``--help`` import
no harness; its work lives in one module of its own (``_run_command`` for
``dsh run``, ``_acp_serve`` for ``dsh acp``, ...), which imports at its top what
it needs. ``work`` is the one place the two meet.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["work"]


def work(target: str) -> Callable[..., Any]:
    """The function ``target`` names (``_module:function`` in ``dsh.cli``), its module
    imported now."""
    module, _, name = target.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(f"dsh.cli.{module}"), name)
    return function
