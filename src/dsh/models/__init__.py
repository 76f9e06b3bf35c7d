"""The model seam: the ``Model`` protocol, a scripted model, an OpenAI-compatible client.

``ScriptedModel`` replays scripts in the conformance cases' ``model_script``
vocabulary (tests, the demo, case replays); ``OpenAICompatibleModel`` talks to any
chat-completions server (over dsh's own HTTP/1.1 client, httpx2, or the openai SDK);
``load_model`` picks one from a ``--model`` spec. The OpenAI-compatible names load on
first use, so a scripted run never imports them; the scripted ones likewise, so a run on
an endpoint never imports them.
"""

from typing import TYPE_CHECKING

from dsh._public import lazy, publish
from dsh.models._load import load_model
from dsh.models._types import Model, ModelError, ModelRefusal, ModelRequest, TextCallback, ToolSpec

if TYPE_CHECKING:
    from dsh.models._openai import ModelBackend, OpenAICompatibleModel
    from dsh.models._provider import RetryNotice
    from dsh.models._script import ScriptError
    from dsh.models._scripted import ScriptedModel

__all__ = [
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
    "load_model",
]

publish(globals())

__getattr__ = lazy(
    globals(),
    {
        "dsh.models._openai": ("ModelBackend", "OpenAICompatibleModel"),
        "dsh.models._provider": ("RetryNotice",),
        "dsh.models._script": ("ScriptError",),
        "dsh.models._scripted": ("ScriptedModel",),
    },
)
