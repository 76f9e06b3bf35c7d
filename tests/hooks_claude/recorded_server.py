"""What the recording's server and configuration gave Claude Code 2.1.332, for a replay's
scripted model: every reply reported 100 input and 20 output tokens (the stream-json
recordings' ``usage``), and the models are the catalog's ids (``claude-opus-5-5`` by default,
an alias resolved as 2.1.332 resolves it: ``sonnet`` → ``claude-sonnet-5-5``).

A replay makes its scripted models with ``recorded_model`` so that the token figures
(``context_tokens``, ``estimated_cache_write_usd``) and the model ids (``model``,
``from_model``, ``to_model``) of its payloads can be compared with the recordings'.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dsh.models import ScriptedModel
from dsh.models._anthropic import DEFAULT_MODEL, resolve_alias

RECORDED_USAGE: dict[str, Any] = {"type": "usage", "input_tokens": 100, "output_tokens": 20}
"""The usage the recordings' server reported for each reply."""


def with_recorded_usage(script: Mapping[str, Any]) -> dict[str, Any]:
    """``script`` (an ``anthropic`` one, or its body) with each reply reporting
    ``RECORDED_USAGE``; a reply that fails (``http_error``) reports nothing."""
    out: dict[str, Any] = json.loads(json.dumps(script))
    body = out.get("anthropic", out)
    replies = [reply for rule in body.get("rules", []) for reply in rule["responses"]]
    replies += body.get("responses", [])
    for reply in replies:
        if not any(block.get("type") == "http_error" for block in reply):
            reply.append(dict(RECORDED_USAGE))
    default = body.get("default")
    if isinstance(default, dict) and default.get("type") != "http_error":
        body["default"] = [default, dict(RECORDED_USAGE)]
    return out


def recorded_model(
    script: Mapping[str, Any],
    *,
    requested: str | None = None,
    record_to: Path | None = None,
    substitutions: Mapping[str, str] | None = None,
) -> ScriptedModel:
    """The scripted model as the recording's: ``requested`` (an alias or an id; default the
    default model) under its catalog id, each reply reporting the recorded usage."""
    name = resolve_alias(requested) if requested is not None else DEFAULT_MODEL
    return ScriptedModel(
        with_recorded_usage(script),
        record_to=record_to,
        substitutions=substitutions,
        source=requested or name,
        name=name,
    )
