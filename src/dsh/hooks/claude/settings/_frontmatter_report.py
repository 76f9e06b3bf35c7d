"""``dsh hooks check``'s section on agents and skills: their frontmatter and its hooks.

Every custom agent (``.claude/agents/*.md``, the user's, the plugins') with its tools, model
and hooks, every skill with hooks, and each problem naming the file and the line. Nothing is
printed for a project without either, so ``dsh hooks check`` of such a project is unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from dsh.hooks.claude.settings._agents import load_agents
from dsh.hooks.claude.settings._commands import load_commands
from dsh.hooks.claude.settings._types import HookDeclaration

__all__ = ["frontmatter_report"]


def frontmatter_report(
    project: Path,
    *,
    plugin_roots: Sequence[Path] = (),
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[str, bool]:
    """The section's text (``""`` when there is nothing to say) and whether it found no
    problem (an error or a warning)."""
    environ = os.environ if env is None else env
    configured = environ.get("CLAUDE_CONFIG_DIR")
    config_dir = Path(configured).expanduser() if configured else None
    agents = load_agents(project, home=home, config_dir=config_dir, plugin_roots=plugin_roots)
    commands = load_commands(project, home=home, config_dir=config_dir, plugin_roots=plugin_roots)
    skills = [c for c in commands.commands if c.hooks]
    hook_notes = [
        n for n in commands.diagnostics if n.startswith(("error:", "warning:")) or "hooks left" in n
    ]
    if not agents.agents and not agents.diagnostics and not skills and not hook_notes:
        return "", True
    lines = ["", "Agents and skills (frontmatter):"]
    for agent in agents.agents:
        kind = agent.type
        lines.append(f"  agent {kind.name} ({agent.source}) {agent.path}")
        details = [f"tools: {kind.tools_text()}", f"model: {kind.model or 'inherit'}"]
        if kind.permission_mode is not None:
            details.append(f"permission mode: {kind.permission_mode}")
        if agent.isolation is not None:
            details.append(f"isolation: {agent.isolation}")
        lines.append(f"      {' · '.join(details)}")
        lines += _hook_lines(agent.hooks)
    for skill in skills:
        lines.append(f"  skill {skill.name} ({skill.source}) {skill.path}")
        lines += _hook_lines(skill.hooks)
    lines += [f"  {d.describe()}" for d in agents.diagnostics]
    lines += [f"  {note}" for note in hook_notes]
    problems = [d for d in agents.diagnostics if d.severity in ("error", "warning")]
    return "\n".join(lines) + "\n", not problems and not hook_notes


def _hook_lines(hooks: Mapping[str, tuple[HookDeclaration, ...]]) -> list[str]:
    out = []
    for event, decls in hooks.items():
        for h in decls:
            extras = f"matcher {h.matcher.describe()}" + (" once" if h.once else "")
            out.append(f"      hook {event} [{h.group_index}][{h.hook_index}] ({extras}):")
            out.append(f"        {' '.join(h.argv)}")
    return out
