"""How ``dsh run``'s flags and the configuration settle a run.

``settle`` turns the flags ``io_options`` declares, with the configuration
(``dsh.host.load_config``: user file, project file, ``DSH_*``, flags over
all), into what the run needs: the model spec and endpoint, the session to
resume and the directory it runs in, the plugins, the system prompt and the
output format. ``stream_prompts`` reads ``--input-format stream-json`` prompts.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from dsh._frozen import frozen
from dsh.base._containment import set_hook_helpers, set_process_containment
from dsh.base._env_policy import withhold_variable
from dsh.cli._errors import UserError
from dsh.context import Plugin
from dsh.host import ConfigError, DshConfig, SystemPrompt, load_config
from dsh.models._load import check_base_url
from dsh.session import JsonlSessionStore

__all__ = ["Settled", "load_plugin", "settle", "stream_prompts"]


@frozen(kw_only=True)
class Settled:
    """What a run's flags and configuration settle."""

    model_spec: str | None
    base_url: str | None
    api_key: str | None
    project: Path
    resume: str | None
    plugins: tuple[Plugin, ...]
    system: str | SystemPrompt
    output_format: Literal["text", "json", "stream-json"] | None
    permission_mode: RunMode | None
    config: DshConfig


def load_plugin(spec: str, where: str) -> Plugin:
    """The native plugin ``module:function`` names; a ``UserError`` naming ``where`` if not."""
    module_name, _, name = spec.partition(":")
    here = str(Path.cwd())
    if here not in sys.path:  # a project's own plugin module, as `python -m` would find it
        sys.path.insert(0, here)
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise UserError(f"{where} {spec}: cannot import {module_name}: {exc}") from exc
    plugin = getattr(module, name, None)
    if plugin is None:
        raise UserError(f"{where} {spec}: module {module_name} has no {name!r}")
    if not callable(plugin):
        raise UserError(f"{where} {spec}: {name!r} is not callable (a plugin is a function)")
    return _guarded(plugin, f"{where} {spec}", spec)


def _guarded(plugin: Any, where: str, spec: str) -> Plugin:
    """``plugin``, with a failure while it mounts reported as the user's (exit 2, no traceback)
    and its pre-execute denials signed with ``spec`` (``_plugin_names``)."""

    @functools.wraps(plugin)
    def mount(ctx: Any) -> None:
        from dsh.cli._plugin_names import signed

        try:
            plugin(signed(ctx, spec))
        except Exception as exc:
            raise UserError(
                f"{where}: the plugin failed to mount: {type(exc).__name__}: {exc}"
            ) from exc

    return mount


def _system(system_prompt: str | None, append: str | None) -> str | SystemPrompt:
    return SystemPrompt(base=system_prompt, append=append)


def settle(
    *,
    project: Path,
    session_dir: Path,
    flags: Mapping[str, Any],
    io: Mapping[str, Any],
) -> Settled:
    """Flags and configuration as one run's settings (every conflict a ``UserError``).

    ``flags`` are the flags given on the command line (``model``, ``base_url``,
    ``permission_mode``, ``project`` when given, not their defaults); ``io``
    this module's flags. A resumed session runs in the directory its header
    records unless ``--project`` is given.
    """
    flags = dict(flags)
    project_given = flags.pop("project", None) is not None
    store = JsonlSessionStore(session_dir)
    resume = _session_to_resume(store, project, io)
    if resume is not None and not project_given:
        from dsh.cli._sessions import session_project

        project = session_project(store, resume) or project
    given = {**flags, "output_format": io.get("output_format")}
    try:
        config = load_config(project, flags=given)
    except ConfigError as exc:
        raise UserError(str(exc)) from exc
    set_hook_helpers(config.hook_helpers or "hook")  # the process's: its hooks run under it
    if config.hook_concurrency is not None:  # else the default (imported only when set)
        from dsh.hook_protocol._slots import set_hook_concurrency

        set_hook_concurrency(config.hook_concurrency)
    set_process_containment(config.process_containment or "namespace")
    plugins: list[Plugin] = []
    for spec in config.plugins if not io.get("plugins") else ():
        plugins.append(load_plugin(spec, f"plugins (from {config.sources['plugins']})"))
    for spec in io.get("plugins") or ():
        _check_spec(spec)
        plugins.append(load_plugin(spec, "--plugin"))
    return Settled(
        model_spec=config.model,
        base_url=_base_url(config),
        api_key=_api_key(config),
        project=project,
        resume=resume,
        plugins=(*plugins, *_approvals(config)),
        system=_system(io.get("system_prompt"), io.get("append_system_prompt")),
        output_format=config.output_format,
        permission_mode=_permission_mode(config),
        config=config,
    )


RunMode = Literal["default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"]
_RUN_MODES: dict[str, RunMode] = {
    "default": "default",
    "manual": "default",  # Claude Code's alias
    "acceptEdits": "acceptEdits",
    "plan": "plan",
    "auto": "auto",
    "dontAsk": "dontAsk",
    "bypassPermissions": "bypassPermissions",
}


def _permission_mode(config: DshConfig) -> RunMode | None:
    """The mode the run enforces (the flag's, else the configured one; ``None``: the settings'
    ``defaultMode``); ``auto`` runs as 2.1.332 does without its safety check: the calls
    the mode would ask about are denied (``hooks.claude.permissions._auto``)."""
    mode = config.permission_mode
    return None if mode is None else _RUN_MODES[mode]


def stream_prompts(prompt: tuple[str, ...], io: Mapping[str, Any]) -> tuple[str, ...]:
    """The prompts of the run given on the command line: ``PROMPT`` as one (none with
    ``--input-format stream-json``, whose turns ``dsh.cli._stream_input`` reads as they come)."""
    if io.get("input_format") == "stream-json":
        return ()
    return (" ".join(prompt),) if prompt else ()


def _check_spec(spec: str) -> None:
    module, sep, function = spec.partition(":")
    if not sep or not module or not function:
        raise UserError(f"--plugin {spec!r} is not MODULE:FUNCTION")


def _session_to_resume(store: Any, project: Path, io: Mapping[str, Any]) -> str | None:
    resume = io.get("resume")
    if resume is None and not io.get("continue_session"):
        return None
    # Only -c/--continue and -r/--resume look sessions up: a new session never imports these.
    from dsh.cli._sessions import latest_session as latest
    from dsh.cli._sessions import resolve

    if io.get("continue_session"):
        if resume:
            raise UserError("-c/--continue and --resume ID exclude each other")
        return str(latest(store, project).id)
    if resume is None:
        return None
    if resume == "":
        if _at_terminal():
            from dsh.cli._resume_picker import pick_session

            return pick_session(store, project)
        return str(latest(store, project).id)
    return str(resolve(store, resume))


def _at_terminal() -> bool:
    """Whether a person can pick (both ends of the run are a terminal)."""
    return sys.stdin is not None and sys.stdin.isatty() and sys.stdout.isatty()


def _base_url(config: DshConfig) -> str | None:
    """The base URL to pass on; one from ``DSH_BASE_URL`` is left to dsh.models, which reads
    the variable itself (its errors then name it)."""
    if config.base_url is None or config.sources["base_url"] == "env DSH_BASE_URL":
        return None
    try:
        check_base_url(config.base_url)
    except ValueError as exc:
        raise UserError(f"{exc} (from {config.sources['base_url']})") from exc
    return config.base_url


def _api_key(config: DshConfig) -> str | None:
    name = config.api_key_env
    if name is None:
        return None
    withhold_variable(name)  # the key it names is a secret: no hook inherits it
    key = os.environ.get(name)
    if not key:
        raise UserError(
            f"api_key_env names {name} (from {config.sources['api_key_env']}), "
            "which is not set in the environment"
        )
    return key


def _approvals(config: DshConfig) -> tuple[Plugin, ...]:
    """Codex's approval policy over the sandbox, when the configuration names one."""
    if config.approval_policy is None or config.sandbox_mode is None:
        return ()
    from dsh.tools._sandbox_approval import SandboxApprovals

    return (SandboxApprovals(config.approval_policy),)
