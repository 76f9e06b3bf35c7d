"""The ``dsh`` command. Start-up stays fast: subcommands import what they need lazily.

``main`` is the console script's entry point. It is defined here, not imported from
``_main``, so that importing this package (which the console script does first) loads
nothing: collection is turned off before the command's modules are imported. Start-up
allocates what lives as long as the run, and ~24 collections over it cost ~3 ms of CPU;
``_process.started()`` freezes what start-up built and turns collection back on.
"""

__all__ = ["main"]


def main() -> None:
    """The ``dsh`` command (the console script's entry point)."""
    import gc

    gc.disable()
    from dsh.cli._main import main as command

    command()
