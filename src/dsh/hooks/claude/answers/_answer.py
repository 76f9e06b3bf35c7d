"""A Claude Code hook's decoded answer: ``HookAnswer`` (and PermissionRequest's decision).

The value every decoder of ``dsh.hooks.claude.answers`` returns and the runtime
applies; below the decoders, so they import it and not each other.
"""

from __future__ import annotations

from typing import Any, Literal, final

from dsh._frozen import frozen

__all__ = ["HookAnswer", "PermissionDecision", "PermissionRequestAnswer"]

PermissionDecision = Literal["allow", "deny", "ask", "defer"]


@final
@frozen(kw_only=True)
class PermissionRequestAnswer:
    """A PermissionRequest hook's ``decision``: allow or deny, with what came along."""

    behavior: Literal["allow", "deny"]
    message: str | None = None
    interrupt: bool = False
    updated_input: dict[str, Any] | None = None
    updated_permissions: list[Any] | None = None


@final
@frozen(kw_only=True)
class HookAnswer:
    """One hook's decoded answer, before the event's rules apply it.

    ``blocking_error`` holds stderr for an exit 2 (``""`` when it printed none);
    ``plain`` is plain-text stdout of an exit 0; ``json`` the parsed object, if any.
    """

    exit_code: int
    blocking_error: str | None = None
    plain: str | None = None
    json: dict[str, Any] | None = None
    halt: bool = False
    stop_reason: str | None = None
    system_message: str | None = None
    decision: Literal["block", "approve"] | None = None
    reason: str | None = None
    additional_context: str | None = None
    permission_decision: PermissionDecision | None = None
    permission_reason: str | None = None
    updated_input: dict[str, Any] | None = None
    suppress_original_prompt: bool = False
    permission_request: PermissionRequestAnswer | None = None
    display_content: str | None = None
    watch_paths: tuple[str, ...] | None = None
    updated_tool_output: Any = None
    extensions: dict[str, Any] | None = None
    """``hookSpecificOutput.dsh``: dsh's opt-in extensions (Claude Code ignores the key)."""

    @property
    def blocks(self) -> bool:
        """Exit 2, or a top-level ``decision: "block"``."""
        return self.blocking_error is not None or self.decision == "block"

    @property
    def block_reason(self) -> str:
        """The JSON block reason if it gives one, else exit 2's stderr."""
        if self.decision == "block" and self.reason:
            return self.reason
        if self.blocking_error:
            return self.blocking_error.strip()
        return self.reason or "blocked by hook"

    def to_json(self) -> dict[str, Any]:
        """The plain-JSON form recorded in ``hook/result``."""
        out: dict[str, Any] = {"exit_code": self.exit_code}
        if self.json is not None:
            out["output"] = self.json
        if self.plain is not None:
            out["plain"] = self.plain
        if self.blocking_error is not None:
            out["blocking_error"] = self.blocking_error
        return out
