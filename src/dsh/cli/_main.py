"""Entry point and subcommand table of the ``dsh`` command."""

from __future__ import annotations

import click

from dsh import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dsh")
def cli() -> None:
    """dsh: an agent harness with a typed lifecycle interception surface."""


def main() -> None:
    cli()
