"""``dsh config show``: the effective configuration and where each value came from.

The same loader ``dsh run`` uses (``dsh.host.load_config``): the user file,
the project file, ``DSH_*`` variables. A bad file or variable is the same
``dsh: ...`` line and exit 2 as for ``dsh run``. It also says which containment
the processes dsh starts get here (``process_containment``'s ``in_use``): dsh's
namespace, or marks where the configuration or the kernel says so, and why.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import click

from dsh.base._containment import containment_in_use, set_process_containment
from dsh.base._sandbox import sandbox_mechanism
from dsh.cli._errors import UserError
from dsh.cli._process import started
from dsh.cli._render import terminal_safe
from dsh.host import ConfigError, DshConfig, load_config
from dsh.host._config import CONFIG_KEYS, project_config_file
from dsh.host._config import user_config_file as user_file

__all__ = ["config_show"]


def config_show(project: Path, *, as_json: bool, config_profile: str | None = None) -> None:
    """``dsh config show``'s work: each key's value and source, as a table or JSON
    (``config_profile``: ``--profile``, the Codex profile layer the provider is chosen with)."""
    started()
    try:
        config = load_config(project)
    except ConfigError as exc:
        raise UserError(str(exc)) from exc
    set_process_containment(config.process_containment or "namespace")
    in_use, how = containment_in_use()
    mechanism, sandbox_how = sandbox_mechanism()
    if as_json:
        values = {key: config.value(key) for key in CONFIG_KEYS}
        entries: dict[str, dict[str, object]] = {
            key: {"value": list(v) if isinstance(v, tuple) else v, "source": config.sources[key]}
            for key, v in values.items()
        }
        entries["process_containment"] |= {"in_use": in_use, "how": how}
        entries["sandbox_mode"] |= {"mechanism": mechanism, "how": sandbox_how}
        shown: dict[str, object] = dict(entries)
        shown["model_provider"] = _provider(config, project, config_profile)
        click.echo(json.dumps(shown, ensure_ascii=False))
        return
    for key in CONFIG_KEYS:
        value = config.value(key)
        if isinstance(value, tuple):
            value = ", ".join(value) if value else None
        elif isinstance(value, Mapping):  # a table: one line of JSON
            value = json.dumps(value, ensure_ascii=False) if value else None
        text = "(unset)" if value is None else str(value)
        click.echo(terminal_safe(f"{key:<16} {text:<40} {config.sources[key]}"))
    chosen = _provider(config, project, config_profile)
    if chosen is None:
        click.echo("model provider: (none: no model named and no Anthropic key set)")
    else:
        line = f"model provider: {chosen['provider']} for {chosen['model']!r} ({chosen['reason']})"
        click.echo(terminal_safe(line))
    click.echo(terminal_safe(f"containment:  {in_use} ({how})"))
    click.echo(terminal_safe(sandbox_line(mechanism, sandbox_how)))
    user, here = user_file(), project_config_file(project)
    click.echo(f"user file:    {user}{'' if user.is_file() else ' (none)'}")
    click.echo(f"project file: {here}{'' if here.is_file() else ' (none)'}")


def sandbox_line(mechanism: str | None, how: str) -> str:
    """``sandbox:      landlock+seccomp (…)``, or what a sandboxed mode does without one."""
    if mechanism is None:
        return f"sandbox:      none here ({how}): a sandboxed mode refuses to run commands"
    return f"sandbox:      {mechanism} ({how})"


def _provider(config: DshConfig, project: Path, profile: str | None) -> dict[str, str] | None:
    """The provider a run here would talk to, and why (``dsh.models``' ``choose_provider``)."""
    from dsh.models._choice import choose_provider

    codex = (project / ".codex").is_dir() and not (project / ".claude").is_dir()
    try:
        choice = choose_provider(
            config.model,
            provider=config.provider,
            base_url=config.base_url,
            codex_profile=codex,
            project=project,
            profile=profile,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if choice is None:
        return None
    return {"provider": choice.provider, "model": choice.model, "reason": choice.reason}
