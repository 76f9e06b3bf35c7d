"""``load_model``: the model a user's spec names (``scripted:FILE`` or an endpoint model name)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from dsh.models._types import Model

__all__ = ["SCRIPTED_PREFIX", "load_model"]

SCRIPTED_PREFIX = "scripted:"


def load_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    record_to: Path | None = None,
    provider: str | None = None,
    codex_profile: bool = False,
    project: Path | None = None,
    profile: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> Model:
    """The model ``spec`` names.

    ``scripted:FILE`` loads a scripted model from FILE (a script or a whole conformance
    ``case.json``; ``record_to`` records its requests). Anything else is a model name, on
    the provider ``_choice.choose_provider`` picks: the Anthropic Messages API
    (``_anthropic``, Claude Code's environment), OpenAI's Responses API (``_responses``,
    Codex's ``config.toml``) or an OpenAI-compatible chat-completions endpoint
    (``base_url`` and ``api_key`` default to the environment, see
    ``OpenAICompatibleModel``). An empty spec is the environment's set-up, if any.
    Under the Codex profile (``codex_profile``), ``project`` and ``profile`` place Codex's
    config layers (``_codex_layers``), whose warnings go to ``warn``.
    Raises ``ValueError`` for an empty spec with no set-up, a spec that looks like a
    mistyped ``scripted:`` and a ``base_url`` that is not an http(s) URL (before any
    request), and ``ScriptError`` for a bad script.
    """
    spec = spec.strip()
    if spec.startswith(SCRIPTED_PREFIX):
        path = spec[len(SCRIPTED_PREFIX) :].strip()
        if not path:
            raise ValueError("model spec 'scripted:' needs a file: scripted:PATH")
        from dsh.models._scripted import ScriptedModel  # chosen: a run on an endpoint never is

        return ScriptedModel.from_file(Path(path).expanduser(), record_to=record_to)
    if spec:
        _check_not_mistyped_scripted(spec)
    if base_url is not None:
        check_base_url(base_url)
    from dsh.models._choice import choose_provider

    choice = choose_provider(
        spec,
        provider=provider,
        base_url=base_url,
        codex_profile=codex_profile,
        project=project,
        profile=profile,
    )
    if choice is None:
        raise ValueError("empty model spec: give scripted:FILE or an endpoint model name")
    if choice.provider == "anthropic":
        from dsh.models._anthropic import anthropic_model

        return anthropic_model(choice.model, base_url=base_url, api_key=api_key)
    if choice.provider == "responses":
        from dsh.models._codex_setup import codex_model

        return codex_model(
            choice.model,
            base_url=base_url,
            api_key=api_key,
            project=project if codex_profile else None,
            profile=profile,
            warn=warn,
        )
    from dsh.models._openai import OpenAICompatibleModel

    return OpenAICompatibleModel(choice.model, base_url=base_url, api_key=api_key)


def check_base_url(url: str) -> None:
    """``ValueError`` unless ``url`` is an ``http://`` or ``https://`` URL with a host."""
    try:
        parts = urlsplit(url.strip())
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"base URL {url!r} is not an http:// or https:// URL (for example https://HOST/v1)"
        )


def _check_not_mistyped_scripted(spec: str) -> None:
    # "script:x.json", "scripted x.json", "Scripted:x", "scripted=x": a file was meant,
    # and sending it to an endpoint as a model name would only fail after retries.
    import difflib  # only for endpoint specs: a scripted run never pays its import

    head = spec.split(":", 1)[0] if ":" in spec else spec.split(maxsplit=1)[0]
    for sep in ("=", " "):
        head = head.split(sep, 1)[0]
    word = head.lower()
    near = difflib.SequenceMatcher(None, word, "scripted").ratio() >= 0.75
    if word == "scripted" or near or spec.lower().startswith("scripted"):
        raise ValueError(
            f"model spec {spec!r} looks like a mistyped scripted model: "
            "write scripted:FILE (no space), or give an endpoint model name"
        )
