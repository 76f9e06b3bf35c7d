"""The model seam: the ``Model`` protocol, a scripted model, an OpenAI-compatible client.

``ScriptedModel`` replays scripts in the conformance cases' ``model_script``
vocabulary (tests, the demo, case replays); ``OpenAICompatibleModel`` talks to any
chat-completions server (over dsh's own HTTP/1.1 client, httpx2, or the openai SDK);
``load_model`` picks one from a ``--model`` spec. The
OpenAI-compatible names load on first use, so a scripted run never imports them.
"""

from typing import TYPE_CHECKING, Any

from dsh.models._load import SCRIPTED_PREFIX, check_base_url, load_model
from dsh.models._script import ScriptError
from dsh.models._scripted import ScriptedModel
from dsh.models._types import (
    Model,
    ModelError,
    ModelRefusal,
    ModelRequest,
    TextCallback,
    ToolSpec,
    request_text,
    request_to_json,
)

__all__ = [
    "API_KEY_ENV_VARS",
    "BACKEND_ENV_VAR",
    "BASE_URL_ENV_VARS",
    "DEFAULT_BASE_URL",
    "SCRIPTED_PREFIX",
    "SUMMARY_PREFIX",
    "Model",
    "ModelBackend",
    "ModelError",
    "ModelRefusal",
    "ModelRequest",
    "OpenAICompatibleModel",
    "RetryNotice",
    "ScriptError",
    "ScriptedModel",
    "TextCallback",
    "ToolSpec",
    "check_base_url",
    "load_model",
    "request_text",
    "request_to_json",
    "to_chat_messages",
]

if TYPE_CHECKING:
    from dsh.models._openai import (
        API_KEY_ENV_VARS,
        BACKEND_ENV_VAR,
        BASE_URL_ENV_VARS,
        DEFAULT_BASE_URL,
        SUMMARY_PREFIX,
        ModelBackend,
        OpenAICompatibleModel,
        RetryNotice,
        to_chat_messages,
    )

_OPENAI_NAMES = frozenset(
    {
        "API_KEY_ENV_VARS",
        "BACKEND_ENV_VAR",
        "BASE_URL_ENV_VARS",
        "DEFAULT_BASE_URL",
        "SUMMARY_PREFIX",
        "ModelBackend",
        "OpenAICompatibleModel",
        "RetryNotice",
        "to_chat_messages",
    }
)


def __getattr__(name: str) -> Any:
    if name in _OPENAI_NAMES:
        from dsh.models import _openai

        value = getattr(_openai, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
