"""dsh's own slash commands (``BUILTIN``), run against an interactive session (a ``Repl``).

``/compact [instructions]``, ``/clear``, ``/add-dir DIR`` and ``/model [NAME]`` fire
Claude Code's hooks as it does (PreCompact/PostCompact, SessionEnd/SessionStart ``clear``,
DirectoryAdded, PreModelSwitch); ``/resume [N|ID]`` ends this session (SessionEnd
``resume``) and continues another of the project's (its recent turns shown);
the reports (``/status``, ``/cost``, ``/permissions``, ``/memory``, ``/config``,
``/doctor``, ``/hooks``) start no turn; ``/init`` is a turn asking for a ``CLAUDE.md``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any, Final

from dsh.cli._slash import Repl, SlashCommand, help_text, register
from dsh.context._chain import describe

__all__ = ["BUILTIN", "mounted_report"]


async def _compact(repl: Repl, rest: str) -> None:
    summary = await repl.guarded(repl.term.agent.compact(rest or None), cancellable=True)
    if summary is None:
        repl.say("not compacted (vetoed, failed or interrupted)")


async def _clear(repl: Repl, rest: str) -> None:
    await _switch(repl, None, reason="clear")


async def _switch(repl: Repl, session_id: str | None, *, reason: str) -> None:
    """End the current session (SessionEnd ``reason``) and go on in a new one (``None``) or
    the session ``session_id`` of the store."""
    term, old = repl.term, repl.term.agent
    # Esc/Ctrl-C end its SessionEnd hooks (killed, as a turn's), and the switch goes on.
    await repl.guarded(old.close("clear" if reason == "clear" else "resume"), cancellable=True)
    # Its log closed now, its lock released: a later /resume may come back to it.
    old.session.close()
    if old.session in term.sessions:
        term.sessions.remove(old.session)
    term.broker.forget(old.session_id)
    host = term.host
    session = host.store.create() if session_id is None else host.store.open(session_id)
    term.sessions.append(session)
    term.agent = host.assembly.agent(session, source="clear" if session_id is None else "resume")
    term.view.session_hint = f"dsh log {session.id}"
    if session_id is None:
        repl.say(f"cleared: new session {session.id}")
    await repl.guarded(term.agent.start(), cancellable=True)  # Esc/Ctrl-C end its hooks


async def _resume(repl: Repl, rest: str) -> None:
    from dsh.base import DshError
    from dsh.cli._errors import UserError
    from dsh.cli._resume_picker import MAX_LISTED
    from dsh.cli._sessions import project_sessions, resolve, session_rows, summary_line

    store = repl.term.host.store
    project = repl.options.host.project
    rows = session_rows(store, project_sessions(store, project)[:MAX_LISTED])  # type: ignore[arg-type]
    rows = [row for row in rows if row.id != repl.term.agent.session_id]
    if not rest:
        if not rows:
            repl.say("no other session of this project to resume")
            return
        repl.say(f"Sessions of {project} (newest first); /resume N or /resume ID:")
        for n, row in enumerate(rows, 1):
            repl.say(f"  {n:>2}  {summary_line(row)}")
        return
    try:
        if rest.isdigit() and 1 <= int(rest) <= len(rows):
            chosen = rows[int(rest) - 1].id
        else:
            chosen = resolve(store, rest)  # type: ignore[arg-type]
        if chosen == repl.term.agent.session_id:
            repl.say(f"session {chosen} is this one")
            return
        await _switch(repl, chosen, reason="resume")
    except (UserError, DshError, OSError) as exc:
        repl.say(f"dsh: /resume {rest}: {exc}")
        return
    repl.recent_history()


async def _model(repl: Repl, rest: str) -> None:
    from dsh.cli._model_command import run_model_command

    options = repl.options
    resolve = options.resolve_model or (lambda _name: options.host.model)
    await run_model_command(
        repl.term.agent, f"/model {rest}".strip(), resolve_model=resolve, say=repl.say
    )


async def _hooks(repl: Repl, rest: str) -> None:
    repl.say(mounted_report(repl))


async def _add_dir(repl: Repl, rest: str) -> None:
    from dsh.cli._add_dir import add_dir_interactive

    repl.say(await add_dir_interactive(repl.term.agent, repl.term.profiles, rest))


async def _agents(repl: Repl, rest: str) -> None:
    from dsh.cli._agents_command import agents_report

    repl.say(agents_report(repl.term.agent))


async def _mcp(repl: Repl, rest: str) -> None:
    servers = repl.term.host.assembly.mcp
    if servers is not None:
        await servers.settled()  # each connected or failed, within its start-up timeout
    lines = servers.report() if servers is not None else ["no MCP servers configured"]
    repl.say("\n".join(lines))


async def _exit(repl: Repl, rest: str) -> None:
    repl.leaving = True


async def _help(repl: Repl, rest: str) -> None:
    repl.say(help_text())


async def _init(repl: Repl, rest: str) -> None:
    from dsh.instructions._init import INIT_PROMPT

    await repl.send(INIT_PROMPT + (f"\n\n{rest}" if rest else ""))


def _permission_lines(repl: Repl) -> list[str]:
    lines: list[str] = []
    for profile in repl.term.profiles:
        state = getattr(getattr(profile.mount, "permissions", None), "state", None)
        report = getattr(state, "report", None)
        if callable(report):
            lines += [f"{profile.name}:", *(f"  {line}" for line in report())]
    return lines


async def _permissions(repl: Repl, rest: str) -> None:
    """The mode, directories and rules; with ``add|remove BEHAVIOR RULE [WHERE]``, an edit
    (the Claude Code profile's ``PermissionState.edit``: where 2.1.332 writes the rule)."""
    states = [_permission_state(p.mount) for p in repl.term.profiles]
    edit = next((s.edit for s in states if callable(getattr(s, "edit", None))), None)
    if rest.strip():
        if edit is None:
            repl.say("no permission rules to edit: no Claude Code profile is mounted")
        else:
            repl.say("\n".join(edit(rest.strip())))
        return
    lines = _permission_lines(repl)
    if not lines:
        lines = ["no permission rules: no Claude Code profile is mounted (--no-claude-hooks)"]
    elif edit is not None:
        lines += edit("")
    repl.say("\n".join(lines))


def _permission_state(mount: object) -> Any:
    return getattr(getattr(mount, "permissions", None), "state", None)


async def _status(repl: Repl, rest: str) -> None:
    from dsh import __version__

    agent = repl.term.agent
    host = repl.options.host
    lines = [
        f"dsh {__version__} (Python {sys.version.split()[0]})",
        f"Session ID: {agent.session_id}",
        f"cwd: {host.project}",
        f"Model: {agent.model.name}",
        f"Working directories: {', '.join(str(d) for d in agent.directories) or '(none added)'}",
        f"Hook profiles: {', '.join(p.name for p in repl.term.profiles) or '(none)'}",
    ]
    mode = next((line for line in _permission_lines(repl) if "mode" in line.lower()), None)
    if mode is not None:
        lines.append(f"Permissions: {mode.strip()}")
    from dsh.base._sandbox import sandbox_status

    # The session's own sandbox (the flag's, the config's or a profile's), as `dsh config show`.
    lines.append(sandbox_status(repl.term.host.assembly.sandbox))
    repl.say("\n".join(lines))


async def _cost(repl: Repl, rest: str) -> None:
    from dsh.messages import Usage

    total = Usage()
    replies = 0
    for event in repl.term.agent.events:
        if event.type == "assistant/message":
            replies += 1
            usage = getattr(event, "usage", None)
            if usage is not None:
                total = total + usage
    repl.say(
        f"Model replies: {replies}\n"
        f"Usage: {total.input_tokens} input, {total.output_tokens} output, "
        f"{total.cache_read_input_tokens} cache read, "
        f"{total.cache_creation_input_tokens} cache write (tokens, as the API reported them)"
    )


def _claude_config_dir() -> Path:
    given = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(given).expanduser() if given else Path.home() / ".claude"


async def _memory(repl: Repl, rest: str) -> None:
    from dsh.instructions import find_instructions

    project = repl.options.host.project
    if rest in ("user", "project"):
        target = _claude_config_dir() / "CLAUDE.md" if rest == "user" else project / "CLAUDE.md"
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        target.parent.mkdir(parents=True, exist_ok=True)
        with repl.term.view.paused():
            proc = await asyncio.create_subprocess_exec(*editor.split(), str(target))
            code = await proc.wait()
        repl.say(f"{target}: {editor} exited {code} (read at the next session)")
        return
    found = find_instructions(project, config_dir=_claude_config_dir())
    lines = [f"  {f.file.scope:<8} {f.file.path}" for f in found]
    repl.say(
        "\n".join(
            [
                "Memory files in context:",
                *(lines or ["  (none)"]),
                "/memory user or /memory project opens that CLAUDE.md in $EDITOR",
            ]
        )
    )


async def _config(repl: Repl, rest: str) -> None:
    from dsh.host import ConfigError, load_config
    from dsh.host._config import CONFIG_KEYS

    try:
        config = load_config(repl.options.host.project)
    except ConfigError as exc:
        repl.say(f"dsh: {exc}")
        return
    lines = []
    for key in CONFIG_KEYS:
        value = config.value(key)
        shown = "(unset)" if value in (None, (), {}) else str(value)
        lines.append(f"{key:<22} {shown:<36} {config.sources[key]}")
    repl.say("\n".join([*lines, "Change one with: dsh config set KEY VALUE"]))


async def _doctor(repl: Repl, rest: str) -> None:
    from dsh import __version__

    checks: list[tuple[bool, str]] = [
        (sys.version_info >= (3, 11), f"Python {sys.version.split()[0]} ({sys.executable})"),
        (True, f"dsh {__version__} at {Path(__file__).parents[1]}"),
    ]
    store = repl.term.host.store
    where = getattr(store, "data_dir", None)
    if where is not None:
        checks.append((os.access(where, os.W_OK), f"session directory {where} writable"))
    diagnostics = list(repl.term.host.diagnostics)
    checks.append((not diagnostics, f"hooks and settings: {len(diagnostics)} diagnostic(s)"))
    checks += [(False, f"  {d}") for d in diagnostics]
    model = repl.term.agent.model
    checks.append((True, f"model {model.name} ({type(model).__name__})"))
    repl.say("\n".join(f"{'✓' if ok else '✗'} {line}" for ok, line in checks))


def mounted_report(repl: Repl) -> str:
    """What this session runs: the native plugins in order, each profile's sources and hooks."""
    term, options = repl.term, repl.options
    lines = [f"Project: {options.host.project}", "", "Native plugins (in mounting order):"]
    plugins = term.host.assembly.options.plugins
    lines += [f"  {describe(p)}" for p in plugins] or ["  (none)"]
    for profile in term.profiles:
        lines += ["", f"Profile {profile.name}:"]
        mount = profile.mount
        catalog = getattr(mount, "catalog", None)
        report = getattr(catalog, "render_report", None)
        if callable(report):
            lines += ["  " + line for line in str(report()).splitlines()]
        session = getattr(
            getattr(getattr(mount, "permissions", None), "state", None), "report", None
        )
        if callable(session):  # what the session runs with now (modes and rules it changed)
            lines += ["", *("  " + line for line in session())]
        elif mount is not None:
            lines.append(f"  hooks: {'mounted' if mount.hooks is not None else 'none'}")
            lines += [f"  {d}" for d in mount.diagnostics]
    if not term.profiles:
        lines += ["", "No hook profile mounted (--no-claude-hooks)."]
    diagnostics = term.host.diagnostics
    if diagnostics:
        lines += ["", "Diagnostics:", *(f"  {d}" for d in diagnostics)]
    return "\n".join(lines)


def _c(name: str, description: str, run: object, hint: str = "") -> SlashCommand:
    return SlashCommand(name, description, run, hint)  # type: ignore[arg-type]


BUILTIN: Final[tuple[tuple[SlashCommand, tuple[str, ...]], ...]] = (
    (_c("/add-dir", "Add a working directory for this session", _add_dir, "DIR"), ()),
    (_c("/agents", "The agent types the Agent tool offers (.claude/agents, ...)", _agents), ()),
    (_c("/clear", "Clear the conversation: a new session (SessionEnd/Start clear)", _clear), ()),
    (
        _c(
            "/compact",
            "Compact the conversation: a summary in place of the history",
            _compact,
            "[instructions]",
        ),
        (),
    ),
    (_c("/config", "Show dsh's configuration and where each value comes from", _config), ()),
    (_c("/cost", "Show the tokens this session's model calls used", _cost), ()),
    (_c("/doctor", "Check dsh's installation and this session's set-up", _doctor), ()),
    (_c("/exit", "Leave (as Ctrl-D)", _exit), ("/quit",)),
    (_c("/help", "Show the commands and keys", _help), ()),
    (_c("/hooks", "What is mounted: plugins, profiles, hooks and their files", _hooks), ()),
    (_c("/init", "Ask the model to write a CLAUDE.md for this project", _init), ()),
    (
        _c("/memory", "Show the memory files in context; edit one", _memory, "[user|project]"),
        (),
    ),
    (_c("/mcp", "The MCP servers: where declared, state, tools and prompts", _mcp), ()),
    (_c("/model", "Show or switch the model (PreModelSwitch)", _model, "[NAME]"), ()),
    (
        _c(
            "/permissions",
            "Show the permission mode, directories and rules; add or remove a rule",
            _permissions,
            "[add|remove allow|ask|deny RULE [local|project|user|session]]",
        ),
        (),
    ),
    (_c("/resume", "List this project's sessions; continue one", _resume, "[N|ID]"), ()),
    (_c("/status", "Show the version, session, model, directories and hooks", _status), ()),
)
"""dsh's commands and their aliases. A command of another part of dsh is a row here (its
coroutine imported from its own module when it runs)."""

for _command, _aliases in BUILTIN:
    register(_command, *_aliases)
