"""``load_model``: the model a user's spec names (``scripted:FILE`` or an endpoint model name)."""

from __future__ import annotations

from pathlib import Path

from dsh.models._scripted import ScriptedModel
from dsh.models._types import Model

__all__ = ["SCRIPTED_PREFIX", "load_model"]

SCRIPTED_PREFIX = "scripted:"


def load_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    record_to: Path | None = None,
) -> Model:
    """The model ``spec`` names.

    ``scripted:FILE`` loads a scripted model from FILE (a script or a whole conformance
    ``case.json``; ``record_to`` records its requests). Anything else is a model name on
    an OpenAI-compatible endpoint (``base_url`` and ``api_key`` default to the
    environment, see ``OpenAICompatibleModel``). Raises ``ValueError`` for an empty
    spec and ``ScriptError`` for a bad script.
    """
    spec = spec.strip()
    if spec.startswith(SCRIPTED_PREFIX):
        path = spec[len(SCRIPTED_PREFIX) :].strip()
        if not path:
            raise ValueError("model spec 'scripted:' needs a file: scripted:PATH")
        return ScriptedModel.from_file(Path(path).expanduser(), record_to=record_to)
    if not spec:
        raise ValueError("empty model spec: give scripted:FILE or an endpoint model name")
    from dsh.models._openai import OpenAICompatibleModel

    return OpenAICompatibleModel(spec, base_url=base_url, api_key=api_key)
