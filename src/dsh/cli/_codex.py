"""Which hook bridges a ``dsh run`` mounts (``--hooks``), and the Codex side of ``dsh hooks check``.

``--hooks claude|codex|both`` picks the bridges; without it, whatever the
project has: ``.codex/`` alone means Codex's, ``.claude/`` and ``.codex/`` both,
otherwise Claude Code's (as before). With both, the Claude Code bridge is
mounted first, so on every seam its hooks run before Codex's; each suite keeps
its own rules, payloads and wording. ``--dangerously-bypass-hook-trust`` runs
untrusted Codex hooks, as Codex's flag of that name.
"""

from __future__ import annotations

from pathlib import Path

from dsh.hooks import BRIDGE_CHOICES, HooksChoice, bridges_for

__all__ = ["BRIDGE_CHOICES", "HooksChoice", "bridges_for", "codex_check_report"]


def codex_check_report(project: Path, *, bypass_trust: bool = False) -> tuple[str, bool]:
    """``dsh hooks check``'s Codex section, and whether it found nothing to report."""
    from dsh.hooks.codex import CODEX_EVENT_SUPPORT, CodexProfile

    catalog, layer = CodexProfile(bypass_trust=bypass_trust).gated(project)
    lines = ["Codex hooks (0.171):"]
    lines += [f"  source: {s}" for s in catalog.sources] or ["  no Codex hook source found"]
    lines.append(f"  project trusted: {'yes' if catalog.project_trusted else 'no'}")
    if layer is not None:
        lines.append(f"  project layer: {layer.summary()}")
    for hook in catalog.hooks:
        row = CODEX_EVENT_SUPPORT[hook.event]
        lines.append(f"  {hook.origin().describe()}: {hook.command!r} [{hook.trust}; {row.status}]")
    lines += [f"  {d.severity}: {d.describe()}" for d in catalog.diagnostics]
    untrusted = CodexProfile(bypass_trust=bypass_trust).untrusted(project)
    lines += [f"  untrusted: {line}" for line in untrusted]
    ok = not catalog.errors and not untrusted
    return "\n".join(lines) + "\n", ok
