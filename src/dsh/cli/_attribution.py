"""Who made a decision, in words: the plugin, hook or policy that refused a call.

Read from a ``DENIED`` tool result's ``info`` (``by``: the phase; ``info``:
what the deciding listener attached, such as ``{"plugin": NAME}`` or a
bridge's ``{"hook_event": EVENT}``), for the transcript and the live view.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["approval_denial_hint", "decided_by"]


def decided_by(info: Any) -> str | None:
    """Who refused a call, from a ``DENIED`` result's ``info``: a plugin, a hook, a policy."""
    if not isinstance(info, Mapping):
        return None
    detail = info.get("info")
    if isinstance(detail, Mapping):
        for key, label in (("plugin", "plugin "), ("hook", "hook "), ("by", "")):
            if isinstance(detail.get(key), str):
                return label + str(detail[key])
        if isinstance(detail.get("hook_event"), str):
            return f"a {detail['hook_event']} hook"
    by = info.get("by")
    if by == "approval":
        channel = info.get("channel")
        return "a PermissionRequest hook" if channel == "approval/request" else "approval"
    if by == "guard" and isinstance(info.get("guard"), str):
        return f"guard {info['guard']}"
    return f"the {by} policy" if isinstance(by, str) else None


def approval_denial_hint(info: Any) -> str | None:
    """For a call denied because nobody could approve it: why, and how to allow it."""
    if not isinstance(info, Mapping) or info.get("by") != "approval":
        return None
    if info.get("outcome") not in ("no-channel", "no-service"):
        return None
    return (
        "nobody could approve this call (no terminal to ask in this run); to allow it, "
        "run dsh at a terminal and answer the prompt, or answer it with a "
        "PermissionRequest hook (or a permission rule) that allows it"
    )
