"""The configuration's vocabularies: the values a key of ``config.toml`` may name.

Both the configuration (``_config``) and its schema (``_config_schema``, which
imports msgspec and is loaded only when a layer has keys) need them, so they
sit below both.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "ApprovalPolicyName",
    "HookHelpersName",
    "OutputFormatName",
    "PermissionModeName",
    "ProcessContainmentName",
    "ProviderName",
    "SandboxModeName",
]

PermissionModeName = Literal[
    "default", "acceptEdits", "plan", "auto", "bypassPermissions", "dontAsk", "manual"
]
OutputFormatName = Literal["text", "json", "stream-json"]
HookHelpersName = Literal["hook", "session"]
ProviderName = Literal["anthropic", "responses", "chat"]
"""The model providers (``dsh.models``): Anthropic Messages, OpenAI Responses, chat completions."""
ProcessContainmentName = Literal["namespace", "marks"]
SandboxModeName = Literal["read-only", "workspace-write", "danger-full-access"]
"""Codex's sandbox modes (``dsh.base._sandbox.SandboxMode``): the shell tools' sandbox."""
ApprovalPolicyName = Literal["untrusted", "on-failure", "on-request", "never"]
"""Codex's approval policies (``dsh.tools._sandbox_approval``)."""
