"""``dsh log``'s and ``dsh hooks``' flags, declared with click alone (each command's work
imports the rest when it runs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from dsh.cli._run_flags import DIRECTORY, EXISTING_DIRECTORY, codex_profile_option

__all__ = ["hook_source_options", "hooks_test_options", "log_options"]


def log_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--all``, ``--project``, ``--hooks``, ``--turn N``, ``--json``, ``--transcript``, ``-v``."""
    options = [
        click.option("--all", "every", is_flag=True, help="List the sessions of every project."),
        click.option(
            "--project",
            type=DIRECTORY,
            default=Path("."),
            show_default=True,
            help="The project whose sessions to list.",
        ),
        click.option("--hooks", "hooks_only", is_flag=True, help="Timeline: hook runs only."),
        click.option(
            "--turn", type=click.IntRange(min=1), default=None, help="Timeline: turn N only."
        ),
        click.option(
            "--json", "as_json", is_flag=True, help="JSON lines: one per session, or per event."
        ),
        click.option(
            "--transcript", is_flag=True, help="Show the session as a transcript, not a timeline."
        ),
        click.option("--verbose", "-v", is_flag=True, help="Transcript: also events with no line."),
        click.option(
            "--why", is_flag=True, help="Timeline: also the hooks that did not run, and why."
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def hooks_test_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``dsh hooks test``'s flags."""
    options = [
        click.option(
            "--project",
            type=EXISTING_DIRECTORY,
            default=Path("."),
            show_default=True,
            help="The project whose hooks to run (they run there).",
        ),
        click.option(
            "--settings", "settings_files", multiple=True, help="An extra settings file or JSON."
        ),
        click.option(
            "--plugin-dir",
            "plugin_dirs",
            multiple=True,
            type=EXISTING_DIRECTORY,
            help="A Claude Code plugin root.",
        ),
        click.option(
            "--hook", type=click.IntRange(min=0), default=None, help="Only the Nth hook of EVENT."
        ),
        click.option(
            "--payload", "payload_file", default=None, help="A payload file, - for stdin."
        ),
        click.option(
            "--case",
            type=EXISTING_DIRECTORY,
            default=None,
            help="A recorded case directory: its EVENT.json payload.",
        ),
        click.option("--tool", default=None, help="Generated payload: the tool name."),
        click.option("--input", "tool_input", default=None, help="Generated: the tool input JSON."),
        click.option("--prompt", default=None, help="Generated: the UserPromptSubmit prompt."),
        click.option("--all", "every", is_flag=True, help="Run every declared hook; report each."),
        click.option(
            "--fixtures",
            type=EXISTING_DIRECTORY,
            default=None,
            help="A folder of fixtures (*.json): check each hook effect against its expect.",
        ),
        click.option(
            "--junit",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help="With --fixtures: also write the checks as JUnit XML to FILE.",
        ),
        click.option(
            "--update",
            is_flag=True,
            help="With --fixtures: write each observed effect into its fixture as its expect.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def hook_source_options(project_help: str) -> Callable[[Any], Any]:
    """``--project``, ``--settings``, ``--plugin-dir`` and ``--profile``, as ``dsh hooks``
    commands take them (``--profile`` is ``dsh run``'s: the Codex bridge's profile layer)."""

    def decorate(f: Any) -> Any:
        f = codex_profile_option()(f)
        f = click.option(
            "--plugin-dir",
            "plugin_dirs",
            multiple=True,
            type=EXISTING_DIRECTORY,
            help="A Claude Code plugin root (its hooks/hooks.json is read), as --plugin-dir.",
        )(f)
        f = click.option(
            "--settings",
            "settings_files",
            multiple=True,
            help="An extra settings file or inline JSON, as Claude Code's --settings.",
        )(f)
        return click.option(
            "--project",
            type=EXISTING_DIRECTORY,
            default=Path("."),
            show_default=True,
            help=project_help,
        )(f)

    return decorate
