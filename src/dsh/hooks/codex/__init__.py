"""The Codex bridge: Codex 0.171's hook sources, trust, strict answers, on dsh's seams.

``load_codex_catalog(project)`` collects every Codex hook source (managed
``requirements.toml``, ``/etc/codex``, ``$CODEX_HOME``, the project's ``.codex/``
when the project is trusted; ``hooks.json`` and ``[hooks]`` in ``config.toml``)
with Codex's whole-file rejections as diagnostics, and gives each hook its
trust (``trusted_hash`` with Codex's recipe, ``hook_hash``).
``codex_hooks_plugin(catalog)`` runs the hooks that run on dsh's seams with
Codex's payloads, strict output parsing and model-visible wording;
``CodexProfile`` is what a host mounts (``dsh run --hooks codex``), and records
trust in Codex's own format. ``CODEX_EVENT_SUPPORT`` says which event runs
where; ``docs/hooks-codex.md`` is rendered from it
(``python -m dsh.hooks.codex coverage``). ``codex_payload``, ``codex_hooks_for`` and
``try_codex_hook`` run one payload through the hooks by hand (``dsh.testing``). Nothing
is imported from the Claude Code bridge: both stand on ``dsh.hook_protocol``.
"""

from typing import TYPE_CHECKING

from dsh._public import lazy, publish
from dsh.hooks.codex._profile import CODEX_PROFILE_NAME, CodexMount, CodexProfile
from dsh.hooks.codex.config._catalog import codex_home, load_codex_catalog
from dsh.hooks.codex.config._trust import TrustError, hook_hash, record_trust
from dsh.hooks.codex.config._types import CodexCatalog, CodexDiagnostic, CodexHook, TrustStatus
from dsh.hooks.codex.events._specs import CODEX_HOOK_EVENTS

__all__ = [
    "CODEX_EVENT_SUPPORT",
    "CODEX_HOOK_EVENTS",
    "CODEX_PROFILE_NAME",
    "CodexAnswer",
    "CodexCatalog",
    "CodexDiagnostic",
    "CodexEventSupport",
    "CodexHook",
    "CodexHookTrial",
    "CodexHooksPlugin",
    "CodexMount",
    "CodexProfile",
    "TrustError",
    "TrustStatus",
    "codex_home",
    "codex_hooks_for",
    "codex_hooks_plugin",
    "codex_payload",
    "codex_pre_tool_decision",
    "decode_codex_answer",
    "explain_codex_hooks",
    "hook_hash",
    "load_codex_catalog",
    "record_trust",
    "render_codex_coverage",
    "try_codex_hook",
]

publish(globals())

# Loaded when first asked for: what mounting the bridge does not use (the runtime that runs
# hooks, which the profile imports only when a hook is declared; the answers' decoder, which
# the runtime imports; the support table; the coverage page) and running one payload by hand
# (``dsh hooks test``, ``dsh.testing``), which a session never pays for.
if TYPE_CHECKING:
    from dsh.hooks.codex._report import render_codex_coverage
    from dsh.hooks.codex._why import explain_codex_hooks
    from dsh.hooks.codex.answers._decode import CodexAnswer, decode_codex_answer
    from dsh.hooks.codex.events._support import CODEX_EVENT_SUPPORT, CodexEventSupport
    from dsh.hooks.codex.runtime._bridge import CodexHooksPlugin, codex_hooks_plugin
    from dsh.hooks.codex.runtime._trial import (
        CodexHookTrial,
        codex_hooks_for,
        codex_payload,
        codex_pre_tool_decision,
        try_codex_hook,
    )

__getattr__ = lazy(
    globals(),
    {
        "dsh.hooks.codex._report": ("render_codex_coverage",),
        "dsh.hooks.codex._why": ("explain_codex_hooks",),
        "dsh.hooks.codex.answers._decode": ("CodexAnswer", "decode_codex_answer"),
        "dsh.hooks.codex.events._support": ("CODEX_EVENT_SUPPORT", "CodexEventSupport"),
        "dsh.hooks.codex.runtime._bridge": ("CodexHooksPlugin", "codex_hooks_plugin"),
        "dsh.hooks.codex.runtime._trial": (
            "CodexHookTrial",
            "codex_hooks_for",
            "codex_payload",
            "codex_pre_tool_decision",
            "try_codex_hook",
        ),
    },
)
