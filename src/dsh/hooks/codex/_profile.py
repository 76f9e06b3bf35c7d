"""The Codex profile: what a host mounts for Codex (``dsh.host.Profile``'s shape, and trust).

``CodexProfile(...).load(project)`` reads the project's Codex hook catalog
(``load_codex_catalog``) and hands back the bridge (when a hook runs), the
``AGENTS.md`` loader (``dsh.instructions.codex_instructions_plugin``; the
repository's files behind project trust, then loaded as they are, edits included, as
in Codex) and the diagnostics as lines: every rejected file, every
ignored declaration and every hook that does not run because it is not
trusted (Codex skips those silently in ``exec``; dsh says so). In a trusted
project, a file of the project layer (``.codex/hooks.json``, ``.codex/config.toml``)
changed or added since dsh recorded the layer is not loaded (``trust._layer``: dsh's
own fingerprints, in its trust record), with one notice; so does a hook whose script
(a file of the project its command names) changed (``trust._scripts``: it does not
run); the first run in a project Codex trusts records them.
``trust`` and ``untrusted`` are ``dsh.host.TrustingProfile``'s: ``dsh hooks
trust`` records Codex trust in Codex's own format,
``[hooks.state."<key>"].trusted_hash`` in ``$CODEX_HOME/config.toml``, and the
layer's fingerprints in dsh's record. Nothing of ``dsh.host`` is imported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, final

from dsh._frozen import frozen
from dsh.hooks.codex._compact_prompt import SUMMARY_ASK
from dsh.hooks.codex.config._catalog import DEFAULT_SYSTEM_DIR, load_codex_catalog
from dsh.hooks.codex.config._sandbox import codex_sandbox
from dsh.hooks.codex.config._trust import TrustError, record_trust
from dsh.hooks.codex.config._types import (
    SCRIPT_GATED,
    CodexCatalog,
    CodexHook,
    CodexPermissionMode,
)

if TYPE_CHECKING:
    from dsh.agent import AgentOptions
    from dsh.base._sandbox import SandboxPolicy
    from dsh.context import Plugin
    from dsh.hooks.codex.runtime._bridge import CodexHooksPlugin
    from dsh.hooks.codex.trust._layer import LayerReview

__all__ = ["CODEX_PROFILE_NAME", "CodexMount", "CodexProfile", "untrusted_line"]

CODEX_PROFILE_NAME: Final = "codex"
"""The profile's name: its scopes are ``codex-hooks`` and ``codex-instructions``."""

_WHY: Final = {
    "untrusted": "not trusted yet (no trusted_hash for it)",
    "changed": "changed since it was trusted (its trusted_hash no longer matches)",
    "disabled": "disabled (enabled = false)",
    SCRIPT_GATED: "a file of the project its command runs changed since dsh recorded it",
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
    project: Path | None = None
    """The project it was loaded for: a permission profile's workspace rules are its."""

    @property
    def environment(self) -> Mapping[str, Any]:
        """Codex's ``[shell_environment_policy]`` (the config layers', merged): ``dsh.host``
        puts it over dsh's defaults for every process the model drives."""
        return self.catalog.shell_environment_policy

    def agent_options(self, options: AgentOptions) -> AgentOptions:
        """An agent's ``options`` as Codex's configuration has them (``dsh.host`` applies it to
        every agent): ``model_auto_compact_token_limit`` where the options set no
        ``compact_tokens`` (a ``dsh run --auto-compact-tokens`` wins), and a compaction that
        asks with Codex's prompt (``dsh.hooks.codex._compact_prompt``) and takes its first
        summary, as Codex does."""
        tokens = options.compact_tokens
        if tokens is None:
            tokens = self.catalog.auto_compact_tokens
        return replace(options, compact_tokens=tokens, summary_attempts=1, summary_ask=SUMMARY_ASK)

    @property
    def absent_tools(self) -> tuple[str, ...]:
        """dsh's tools Codex 0.171 does not offer, so ``dsh.host`` does not either:
        SendMessage (Codex's agents are ``multi_agent_v1``'s ``send_input`` and others;
        ``tests/fixtures/codex_tools.json``, ``benchmarks/record_codex_tools.py``)."""
        return ("SendMessage",)

    @property
    def mcp_servers(self) -> tuple[Any, ...]:
        """Codex's ``[mcp_servers.NAME]`` servers: ``dsh.host`` starts them."""
        return self.catalog.mcp_servers

    @property
    def sandbox(self) -> SandboxPolicy | None:
        """Codex's ``sandbox_mode`` and ``[sandbox_workspace_write]`` as the layers set them:
        ``dsh.host`` runs the model's commands in it when dsh's own configuration names none."""
        return codex_sandbox(self.catalog.sandbox, self.project)

    @property
    def otel(self) -> Mapping[str, Any]:
        """Codex's ``[otel]`` settings as the layers set them: ``dsh.host`` exports the session
        as they say (``dsh.telemetry.codex_telemetry``) when the environment asks for nothing."""
        return self.catalog.otel

    @property
    def approval_policy(self) -> str | None:
        """Codex's ``approval_policy`` as the layers set it (with ``sandbox``: when a command
        asks, or is offered to run outside the sandbox)."""
        policy = self.catalog.sandbox.get("approval_policy")
        return policy if isinstance(policy, str) else None


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
    escalation policy ``permission_mode`` stands for (``shell._policy``).
    ``trust_dir`` is where dsh's trust records are (``None``: its data directory): the
    project layer's fingerprints (``trust._layer``; not applied to a given ``catalog``).
    ``config_profile`` is Codex's ``--profile NAME`` (``None``: ``$DSH_CODEX_PROFILE``):
    ``$CODEX_HOME/NAME.config.toml`` is a config layer, its hooks and keys too.
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
    trust_dir: Path | None = None
    config_profile: str | None = None

    @property
    def name(self) -> str:
        return CODEX_PROFILE_NAME

    def _catalog(
        self, project: Path, *, bypass: bool | None = None, refused: frozenset[Path] = frozenset()
    ) -> CodexCatalog:
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
            refused=refused,
            profile=self.config_profile,
        )

    def _layer(self, project: Path, catalog: CodexCatalog) -> LayerReview:
        # dsh's review of the project layer: only a trusted project has one to read.
        from dsh.hooks.codex.trust._layer import layer_paths, review_layer

        paths = layer_paths(project)
        return review_layer(project, paths, self.trust_dir, hooks=catalog.hooks)

    def gated(
        self, project: Path, /, *, bypass: bool | None = None
    ) -> tuple[CodexCatalog, LayerReview | None]:
        """The catalog a run loads (without the project-layer files dsh's record does not
        trust, and its hooks whose scripts changed marked ``script changed``) and the layer's
        review (``None``: the project is not trusted, or the catalog was given). Records
        nothing."""
        project = project.absolute()
        catalog = self._catalog(project, bypass=bypass)
        if self.catalog is not None or not catalog.project_trusted:
            return catalog, None
        from dsh.hooks.codex.trust._scripts import gate_scripts  # a trusted project's alone

        review = self._layer(project, catalog)
        refused = review.refused()
        if refused:
            catalog = self._catalog(project, bypass=bypass, refused=refused)
        review = review.with_hooks(catalog.hooks)
        return gate_scripts(catalog, review.hooks), review

    def load(self, project: Path, /) -> CodexMount:
        """The project's catalog and what to mount for it; bad sources are diagnostics."""
        from dsh.hooks.codex.runtime._bridge import codex_hooks_plugin

        project = project.absolute()
        catalog, review = self.gated(project)
        lines: list[str] = []
        if review is not None and not review.recorded and review.problem is None:
            from dsh.hooks.codex.trust._layer import record_layer

            problem = record_layer(review, self.trust_dir)  # the first run: what loads now
            lines.extend(() if problem is None else (f"warning: {problem}",))
        mode = self.permission_mode or catalog.permission_mode
        runs = catalog.running() or catalog.notify
        # Declared hooks none of which runs (not trusted): the plugin is mounted to say why
        # in the log (`hook/skipped` at the session's start), and runs nothing.
        hooks = codex_hooks_plugin(catalog, permission_mode=mode) if runs or catalog.hooks else None
        if runs:
            from dsh.base._containment import prepare_containment

            prepare_containment()  # hooks will run: the namespace is made meanwhile
        instructions: Plugin | None = None
        if self.instructions:
            from dsh.instructions import codex_instructions_plugin

            # The global AGENTS.md always; the repository's only in a trusted project, then
            # as it is now (edits included), as in Codex.
            instructions = codex_instructions_plugin(
                codex_home=catalog.codex_home, project=catalog.project_trusted
            )
        shell: Plugin | None = None
        if self.shell_tool:
            from dsh.hooks.codex.shell._policy import CodexShellPlugin

            shell = CodexShellPlugin(mode)
        lines.extend(d.describe() for d in catalog.diagnostics)
        lines.extend(_codex_untrusted(catalog))
        notice = None if review is None else review.notice()
        lines.extend(() if notice is None else (notice,))
        if not catalog.project_trusted:
            left_out = self._project_agents(project)
            if left_out:
                lines.append(
                    f"{len(left_out)} AGENTS.md file(s) of the untrusted project not loaded: "
                    + "; ".join(str(path) for path in left_out)
                    + " (dsh hooks trust trusts the project, as codex exec --trust)"
                )
        return CodexMount(catalog, hooks, instructions, tuple(lines), shell, project)

    def _project_agents(self, project: Path) -> list[Path]:
        """The repository's ``AGENTS.md`` files a trusted project would load (if loading them)."""
        if not self.instructions:
            return []
        from dsh.instructions import find_agents_files

        return [f.path for f in find_agents_files(project, codex_home=None)]

    def untrusted(self, project: Path, /) -> Sequence[str]:
        """One line per declared hook that does not run because it is untrusted (with why):
        not trusted, changed or disabled, or in the ``.codex/`` of a project not trusted."""
        catalog, review = self.gated(project, bypass=False)
        lines = _codex_untrusted(catalog)
        lines.extend(() if review is None else review.lines())
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
        """Record Codex trust for every hook ``project`` declares now (not disabled ones),
        and dsh's fingerprints of the project layer as it is now (when they changed).

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
        layer = None
        if catalog.project_trusted and self.catalog is None:
            layer = self._layer(project, catalog).with_hooks(catalog.hooks)
        if layer is not None and not _layer_changed(layer):
            layer = None
        if (not wanted and not projects and layer is None) or catalog.codex_home is None:
            return ()
        config = catalog.codex_home / "config.toml"
        if wanted or projects:
            try:
                record_trust(config, [(h.key, h.trusted_hash) for h in wanted], projects=projects)
            except TrustError as exc:
                return (f"not trusted: {exc}",)
        lines.extend(f"trusted the project {p} in {config}" for p in projects)
        lines.extend(f"trusted {h.key} in {config}" for h in wanted)
        if layer is not None:
            from dsh.hooks.codex.trust._layer import record_layer

            problem = record_layer(layer, self.trust_dir)
            lines.extend(_layer_lines(layer) if problem is None else (f"not trusted: {problem}",))
        return tuple(lines)


def _codex_untrusted(catalog: CodexCatalog) -> list[str]:
    """A line per hook Codex's own trust keeps from running (a changed script is the
    layer review's to say)."""
    return [untrusted_line(h) for h in catalog.hooks if not h.runs and h.trust != SCRIPT_GATED]


def _layer_changed(review: LayerReview) -> bool:
    """Whether ``dsh hooks trust`` has something to record for the layer."""
    return not review.recorded or bool(review.refused() or review.removed or review.refused_hooks())


_SINCE: Final = {
    "changed since trusted": ", changed since last trust",
    "not trusted yet": ", new since last trust",
    "record unreadable": ", the record could not be read",
}


def _layer_lines(review: LayerReview) -> list[str]:
    """What ``dsh hooks trust`` recorded of the layer: each file, what changed."""
    found = []
    for f in review.files:
        if f.fingerprint is None:
            found.append(f"not trusted: {f.path} cannot be read")
            continue
        since = _SINCE.get(f.state, "")
        found.append(f"trusted: Codex project file {f.shown}{f' ({since[2:]})' if since else ''}")
    found += [line for hook in review.hooks for line in hook.trust_lines()]
    found += [f"forgot: Codex project file {s} (no longer loaded)" for s in review.removed]
    return found  # an empty layer is recorded without a line: a file added later needs trust
