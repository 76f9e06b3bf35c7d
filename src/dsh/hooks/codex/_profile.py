"""The Codex profile: what a host mounts for Codex (``dsh.host.Profile``'s shape, and trust).

``CodexProfile(...).load(project)`` reads the project's Codex hook catalog
(``load_codex_catalog``) and hands back the bridge (when a hook runs), the
``AGENTS.md`` loader (``dsh.instructions.codex_instructions_plugin``; the
repository's files behind project trust) and the diagnostics as lines: every rejected file, every
ignored declaration and every hook that does not run because it is not
trusted (Codex skips those silently in ``exec``; dsh says so). ``trust`` and
``untrusted`` are ``dsh.host.TrustingProfile``'s: ``dsh hooks trust`` records
Codex trust in Codex's own format, ``[hooks.state."<key>"].trusted_hash`` in
``$CODEX_HOME/config.toml``. Nothing of ``dsh.host`` is imported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Final, final

from dsh._frozen import frozen
from dsh.hooks.codex._catalog import DEFAULT_SYSTEM_DIR, load_codex_catalog
from dsh.hooks.codex._trust import TrustError, record_trust
from dsh.hooks.codex._types import CodexCatalog, CodexHook, CodexPermissionMode

if TYPE_CHECKING:
    from dsh.context import Plugin
    from dsh.hooks.codex._bridge import CodexHooksPlugin

__all__ = ["CODEX_PROFILE_NAME", "CodexMount", "CodexProfile", "untrusted_line"]

CODEX_PROFILE_NAME: Final = "codex"
"""The profile's name: its scopes are ``codex-hooks`` and ``codex-instructions``."""

_WHY: Final = {
    "untrusted": "not trusted yet (no trusted_hash for it)",
    "changed": "changed since it was trusted (its trusted_hash no longer matches)",
    "disabled": "disabled (enabled = false)",
}


def untrusted_line(hook: CodexHook) -> str:
    """``PreToolUse[0][0] in /p/.codex/hooks.json (`cmd`): not trusted yet …``."""
    return (
        f"{hook.origin().describe()} ({hook.command!r}): {_WHY.get(hook.trust, hook.trust)};"
        " it does not run (dsh hooks trust, or --dangerously-bypass-hook-trust)"
    )


@final
@frozen
class CodexMount:
    """What the profile found for one project: the catalog, and the plugins to mount."""

    catalog: CodexCatalog
    hooks: CodexHooksPlugin | None
    instructions: Plugin | None
    diagnostics: tuple[str, ...]
    permissions: Plugin | None = None
    """Codex's shell tool (``exec_command``) and its escalation policy, mounted inner to the
    hooks (``dsh.host`` mounts a mount's ``permissions`` after its ``hooks``)."""


@final
@frozen(kw_only=True)
class CodexProfile:
    """Codex's hooks and ``AGENTS.md`` files, as ``dsh run --hooks codex`` loads them.

    ``home`` is ``$CODEX_HOME`` (default from ``env``, else ``~/.codex``);
    ``system_dir`` and ``requirements`` the system layer and managed
    requirements (``None`` for none); ``trust_project`` overrides the project
    trust the user's ``config.toml`` records; ``bypass_trust`` is
    ``--dangerously-bypass-hook-trust``. ``catalog``, when given, is used as it
    is. ``permission_mode`` is Codex's approval policy (``None``: what the config
    layers say, ``CodexCatalog.permission_mode``). ``instructions`` loads
    ``AGENTS.md`` files (when the project is trusted);
    ``shell_tool`` offers Codex's ``exec_command`` beside dsh's tools, with the
    escalation policy ``permission_mode`` stands for (``_shell_policy``).
    """

    home: Path | None = None
    system_dir: Path | None = DEFAULT_SYSTEM_DIR
    requirements: Path | None = None
    env: Mapping[str, str] | None = None
    trust_project: bool | None = None
    bypass_trust: bool = False
    catalog: CodexCatalog | None = None
    permission_mode: CodexPermissionMode | None = None
    instructions: bool = True
    shell_tool: bool = True

    @property
    def name(self) -> str:
        return CODEX_PROFILE_NAME

    def _catalog(self, project: Path, *, bypass: bool | None = None) -> CodexCatalog:
        if self.catalog is not None:
            return self.catalog
        return load_codex_catalog(
            project,
            home=self.home,
            system_dir=self.system_dir,
            requirements=self.requirements,
            env=self.env,
            trust_project=self.trust_project,
            bypass_trust=self.bypass_trust if bypass is None else bypass,
        )

    def load(self, project: Path, /) -> CodexMount:
        """The project's catalog and what to mount for it; bad sources are diagnostics."""
        from dsh.hooks.codex._bridge import codex_hooks_plugin

        catalog = self._catalog(project)
        mode = self.permission_mode or catalog.permission_mode
        hooks = codex_hooks_plugin(catalog, permission_mode=mode) if catalog.running() else None
        instructions: Plugin | None = None
        if self.instructions:
            from dsh.instructions import codex_instructions_plugin

            # The global AGENTS.md always; the repository's only in a trusted project.
            instructions = codex_instructions_plugin(
                codex_home=catalog.codex_home, project=catalog.project_trusted
            )
        shell: Plugin | None = None
        if self.shell_tool:
            from dsh.hooks.codex._shell_policy import CodexShellPlugin

            shell = CodexShellPlugin(mode)
        lines = [d.describe() for d in catalog.diagnostics]
        lines.extend(untrusted_line(h) for h in catalog.hooks if not h.runs)
        if not catalog.project_trusted:
            left_out = self._project_agents(project)
            if left_out:
                lines.append(
                    f"{len(left_out)} AGENTS.md file(s) of the untrusted project not loaded: "
                    + "; ".join(str(path) for path in left_out)
                    + " (dsh hooks trust trusts the project, as codex exec --trust)"
                )
        return CodexMount(catalog, hooks, instructions, tuple(lines), shell)

    def _project_agents(self, project: Path) -> list[Path]:
        """The repository's ``AGENTS.md`` files a trusted project would load (if loading them)."""
        if not self.instructions:
            return []
        from dsh.instructions import find_agents_files

        return [f.path for f in find_agents_files(project, codex_home=None)]

    def untrusted(self, project: Path, /) -> Sequence[str]:
        """One line per declared hook that does not run because it is untrusted (with why):
        not trusted, changed or disabled, or in the ``.codex/`` of a project not trusted."""
        catalog = self._catalog(project, bypass=False)
        lines = [untrusted_line(h) for h in catalog.hooks if not h.runs]
        if not catalog.project_trusted and self.trust_project is None and self.catalog is None:
            widened = replace(self, trust_project=True)._catalog(project, bypass=False)
            lines.extend(
                f"{h.origin().describe()} ({h.command!r}): the project is not trusted, so its"
                " .codex/ is not loaded (dsh hooks trust trusts it, as codex exec --trust)"
                for h in widened.hooks
                if h.layer == "project"
            )
            lines.extend(
                f"{path}: the project is not trusted, so its AGENTS.md files are not loaded"
                " (dsh hooks trust trusts it, as codex exec --trust)"
                for path in self._project_agents(project)
            )
        return tuple(lines)

    def trust(self, project: Path, /) -> Sequence[str]:
        """Record Codex trust for every hook ``project`` declares now (not disabled ones).

        A project whose ``.codex/`` Codex would not load yet is trusted too
        (``[projects."<path>"] trust_level = "trusted"``, as ``codex exec --trust``).
        """
        project = project.absolute()
        catalog = self._catalog(project, bypass=False)
        lines: list[str] = []
        projects: list[Path] = []
        local = project / ".codex"
        declares = (local / "hooks.json").is_file() or (local / "config.toml").is_file()
        declares = declares or bool(self._project_agents(project))
        if declares and not catalog.project_trusted and self.trust_project is None:
            projects.append(project)
            catalog = replace(self, trust_project=True)._catalog(project, bypass=False)
        wanted = [h for h in catalog.hooks if h.trust in ("untrusted", "changed")]
        if (not wanted and not projects) or catalog.codex_home is None:
            return ()
        config = catalog.codex_home / "config.toml"
        try:
            record_trust(config, [(h.key, h.trusted_hash) for h in wanted], projects=projects)
        except TrustError as exc:
            return (f"not trusted: {exc}",)
        lines.extend(f"trusted the project {p} in {config}" for p in projects)
        lines.extend(f"trusted {h.key} in {config}" for h in wanted)
        return tuple(lines)
