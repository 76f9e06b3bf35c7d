"""The ``dsh`` command. Start-up stays fast: subcommands import what they need lazily."""

from dsh._public import publish
from dsh.cli._main import main

__all__ = ["main"]

publish(globals())
