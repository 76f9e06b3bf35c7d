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
``tools/pre-execute``. (Claude Code's instructions files, ``CLAUDE.md``,
are ``dsh.instructions``.)
"""

from dsh._public import publish
from dsh.hooks.claude._bridge import ClaudeHooksPlugin, claude_hooks_plugin
from dsh.hooks.claude._catalog import load_catalog
from dsh.hooks.claude._content import claude_content
from dsh.hooks.claude._events import CLAUDE_HOOK_EVENTS, EVENT_SPECS, EventSpec
from dsh.hooks.claude._machinery import shown_reason
from dsh.hooks.claude._outputs import HookAnswer, decode_answer
from dsh.hooks.claude._permissions_add_dir import add_working_directory
from dsh.hooks.claude._permissions_modes import PermissionMode
from dsh.hooks.claude._permissions_plugin import (
    AUTO_REFUSED,
    AutoClassifier,
    AutoDenial,
    ClaudePermissionsPlugin,
    PermissionModeError,
    PermissionState,
    permission_state,
)
from dsh.hooks.claude._permissions_policy import PolicyVerdict, check_call
from dsh.hooks.claude._profile import CLAUDE_PROFILE_NAME, ClaudeCodeMount, ClaudeCodeProfile
from dsh.hooks.claude._report import render_coverage_markdown
from dsh.hooks.claude._rules import PermissionRule, RuleError, parse_rule
from dsh.hooks.claude._support import HOOK_EVENT_HOST_SUPPORT
from dsh.hooks.claude._support_row import EventSupport, SupportStatus
from dsh.hooks.claude._types import Catalog, Diagnostic, HookDeclaration, HookSource

__all__ = [
    "AUTO_REFUSED",
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
    "PermissionMode",
    "PermissionModeError",
    "PermissionRule",
    "PermissionState",
    "PolicyVerdict",
    "RuleError",
    "SupportStatus",
    "add_working_directory",
    "check_call",
    "claude_content",
    "claude_hooks_plugin",
    "decode_answer",
    "load_catalog",
    "parse_rule",
    "permission_state",
    "render_coverage_markdown",
    "shown_reason",
]

publish(globals())
