"""The Claude Code bridge: settings discovery, the hook catalog, the coverage table.

``load_catalog(project_dir)`` finds every Claude Code hook source (user, project,
local, ``--settings``, managed settings, plugins), validates every declaration and
admits the ``command`` hooks this host runs; everything else gets a
``Diagnostic``. ``HOOK_EVENT_HOST_SUPPORT`` says which event runs on which dsh
seam, what applies and what does not; ``docs/hooks-claude.md`` is rendered from
it (``python -m dsh.hooks.claude coverage``). ``claude_hooks_plugin(catalog)`` runs the
admitted hooks on the agent's seams, with Claude Code's payloads, exit codes, JSON
answers and model-visible wording; ``ClaudePermissionsPlugin`` (``permission_state``)
enforces Claude Code's permission rules and modes (``parse_rule``, ``check_call``) on
``tools/pre-execute``. ``generated_payload``, ``hooks_for`` and ``try_hook`` run one
payload through the hooks by hand (``dsh hooks test``, ``dsh.testing``). (Claude Code's
instructions files, ``CLAUDE.md``, are ``dsh.instructions``.)
"""

from typing import TYPE_CHECKING

from dsh._public import lazy, publish
from dsh.hooks.claude._mount import ClaudeCodeMount
from dsh.hooks.claude._profile import CLAUDE_PROFILE_NAME, ClaudeCodeProfile
from dsh.hooks.claude.permissions._auto import AutoClassifier, AutoDenial
from dsh.hooks.claude.permissions._plugin import (
    ClaudePermissionsPlugin,
    PermissionModeError,
    PermissionState,
    permission_state,
)
from dsh.hooks.claude.permissions._policy import PermissionCheck, check_call
from dsh.hooks.claude.rules._grammar import PermissionRule, RuleError, parse_rule
from dsh.hooks.claude.rules._modes import PermissionMode
from dsh.hooks.claude.settings._catalog import load_catalog
from dsh.hooks.claude.settings._types import Catalog, Diagnostic, HookDeclaration, HookSource

__all__ = [
    "CLAUDE_HOOK_EVENTS",
    "CLAUDE_PROFILE_NAME",
    "EVENT_SPECS",
    "HOOK_EVENT_HOST_SUPPORT",
    "AutoClassifier",
    "AutoDenial",
    "Catalog",
    "ClaudeCodeMount",
    "ClaudeCodeProfile",
    "ClaudeHooksPlugin",
    "ClaudePermissionsPlugin",
    "Diagnostic",
    "EventSpec",
    "EventSupport",
    "HookAnswer",
    "HookDeclaration",
    "HookSource",
    "HookTrial",
    "PermissionCheck",
    "PermissionMode",
    "PermissionModeError",
    "PermissionRule",
    "PermissionState",
    "RuleError",
    "SupportStatus",
    "add_working_directory",
    "check_call",
    "claude_content",
    "claude_hooks_plugin",
    "consequences",
    "decode_answer",
    "explain_hooks",
    "frontmatter_report",
    "generated_payload",
    "hooks_for",
    "load_catalog",
    "parse_rule",
    "permission_state",
    "pre_tool_decision",
    "render_coverage_markdown",
    "shown_reason",
    "try_hook",
]

publish(globals())

# Loaded when first asked for: what a run with no hook does not use (the runtime that runs
# hooks, the answers' decoder, the event table, the coverage report) and running one payload by
# hand (``dsh hooks test``, ``dsh.testing``).
if TYPE_CHECKING:
    from dsh.hooks.claude._report import render_coverage_markdown
    from dsh.hooks.claude._why import explain_hooks
    from dsh.hooks.claude.answers._answer import HookAnswer
    from dsh.hooks.claude.answers._decode import decode_answer
    from dsh.hooks.claude.events._specs import CLAUDE_HOOK_EVENTS, EVENT_SPECS, EventSpec
    from dsh.hooks.claude.events._support import HOOK_EVENT_HOST_SUPPORT
    from dsh.hooks.claude.events._support_row import EventSupport, SupportStatus
    from dsh.hooks.claude.permissions._add_dir import add_working_directory
    from dsh.hooks.claude.runtime._answers import shown_reason
    from dsh.hooks.claude.runtime._bridge import ClaudeHooksPlugin, claude_hooks_plugin
    from dsh.hooks.claude.runtime._trial import (
        HookTrial,
        consequences,
        generated_payload,
        hooks_for,
        pre_tool_decision,
        try_hook,
    )
    from dsh.hooks.claude.settings._frontmatter_report import frontmatter_report
    from dsh.hooks.claude.transcript._content import claude_content

__getattr__ = lazy(
    globals(),
    {
        "dsh.hooks.claude._report": ("render_coverage_markdown",),
        "dsh.hooks.claude._why": ("explain_hooks",),
        "dsh.hooks.claude.answers._answer": ("HookAnswer",),
        "dsh.hooks.claude.answers._decode": ("decode_answer",),
        "dsh.hooks.claude.events._specs": ("CLAUDE_HOOK_EVENTS", "EVENT_SPECS", "EventSpec"),
        "dsh.hooks.claude.events._support": ("HOOK_EVENT_HOST_SUPPORT",),
        "dsh.hooks.claude.events._support_row": ("EventSupport", "SupportStatus"),
        "dsh.hooks.claude.permissions._add_dir": ("add_working_directory",),
        "dsh.hooks.claude.runtime._bridge": ("ClaudeHooksPlugin", "claude_hooks_plugin"),
        "dsh.hooks.claude.runtime._answers": ("shown_reason",),
        "dsh.hooks.claude.settings._frontmatter_report": ("frontmatter_report",),
        "dsh.hooks.claude.runtime._trial": (
            "HookTrial",
            "consequences",
            "generated_payload",
            "hooks_for",
            "pre_tool_decision",
            "try_hook",
        ),
        "dsh.hooks.claude.transcript._content": ("claude_content",),
    },
)
