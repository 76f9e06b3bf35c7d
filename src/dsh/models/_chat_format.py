"""OpenAI chat completions as a ``WireFormat``: the third format on ``StreamingModel``.

``ChatFormat`` says where a request goes (``<base>/chat/completions``), its headers
(``_wire.request_headers``: the key as a Bearer token, ``OpenAI-Organization``/
``OpenAI-Project``), its body (``_chat_body.ChatBodyEncoder``: kept across requests, so a
step encodes only its new messages) and how its failures read: ``model 'M' at URL: HTTP
401: <the server's message>. The API key is …``, a hint naming where the key or the URL came
from; ``… cannot get a reply from the server: …``; ``(gave up after N attempts)``. 408,
409, 429 and 5xx are retried. ``ChatDecoder`` reads a stream's chunks (text and tool-call
deltas by index, a ``refusal``, the last chunk's ``usage``) or, for ``stream=False``, one
whole completion, into one ``AssistantMessage``; a reply that is only a refusal is a
``ModelRefusal``. The message mapping (hook context as a ``user`` turn in Claude Code's
``<system-reminder>`` framing, never a mid-conversation ``system`` one) is ``_chat_request``'s.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, final

from dsh.messages import AssistantMessage, ToolUse, Usage
from dsh.models._chat_body import ChatBodyEncoder
from dsh.models._chat_reply import (
    chunk_parts,
    completion_parts,
    parse_arguments,
    refusal_text,
    server_message,
)
from dsh.models._types import ModelError, ModelRefusal, ModelRequest
from dsh.models._usage import chat_usage
from dsh.models._wire import StatusError, request_headers

__all__ = ["API_KEY_ENV_VARS", "BASE_URL_ENV_VARS", "ChatDecoder", "ChatFormat"]

API_KEY_ENV_VARS = ("DSH_API_KEY", "OPENAI_API_KEY")
"""Where the key comes from when none is passed, first found wins."""
BASE_URL_ENV_VARS = ("DSH_BASE_URL", "OPENAI_BASE_URL")
_RETRYABLE = frozenset({408, 409, 429})
# Sent when there is no key: local servers accept anything, and the SDK insists on one.
NO_KEY = "dsh-no-api-key"


@final
class ChatFormat:
    """Chat completions as a ``WireFormat`` (``_provider``).

    ``key_source``/``url_source``: where the key and the base URL came from
    (``"argument"``, the variable's name, or None), for the hints of a 401/403/404.
    """

    label = "chat completions"
    path = "/chat/completions"

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api_key: str | None,
        key_source: str | None,
        url_source: str | None,
        streamed: bool = True,
        max_tokens: int | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.api_key = api_key or NO_KEY
        self._key_source = key_source
        self._url_source = url_source
        self.streamed = streamed
        self.max_tokens = max_tokens
        self._encoder: ChatBodyEncoder | None = None  # the history's JSON, kept across requests

    def where(self) -> str:
        return f"model {self.model!r} at {self.base_url}"

    def headers(self) -> dict[str, str]:
        return request_headers(self.api_key)

    def body(self, request: ModelRequest) -> Mapping[str, Any]:
        if self._encoder is None:
            self._encoder = ChatBodyEncoder(self.model)
        return self._encoder.encode(request, stream=self.streamed, max_tokens=self.max_tokens)

    def decoder(self) -> ChatDecoder:
        return ChatDecoder(self, whole=not self.streamed)

    def status_error(self, e: StatusError) -> ModelError:
        status = e.status
        message = f"{self.where()}: HTTP {status}: {server_message(e.data, e.text)}"
        if status in (401, 403):
            message += f". {self._key_hint(status)}"
        elif status == 404:
            message += (
                f". Check the model name ({self.model!r}) and the base URL"
                f" ({self._url_hint()}; most servers expect it to end in /v1)"
            )
        retryable = status in _RETRYABLE or status >= 500
        return ModelError(message, status=status, retryable=retryable)

    def failure(self, message: str) -> ModelError:
        return ModelError(f"{self.where()}: {message}", status=None, retryable=False)

    def unreachable(self, message: str, detail: str | None, base_url: str) -> ModelError:
        text = f"{self.where()}: cannot get a reply from the server: {message}"
        if detail is not None and detail != message:
            text += f" ({detail})"
        return ModelError(text, status=None, retryable=True)

    def given_up(self, error: ModelError, attempts: int, streamed: bool) -> ModelError:
        if streamed and error.retryable:
            error.message += " (the reply broke off after streaming began; not retried)"
        elif attempts > 1:
            error.message += f" (gave up after {attempts} attempts)"
        error.args = (error.message,)
        return error

    def resends(self, status: int) -> int:
        return 0

    def _url_hint(self) -> str:
        if self._url_source is None:
            return f"the default; set {' or '.join(BASE_URL_ENV_VARS)}, or pass --base-url"
        if self._url_source == "argument":
            return "as passed"
        return f"from ${self._url_source}"

    def _key_hint(self, status: int) -> str:
        problem = "missing or invalid" if status == 401 else "not allowed to use this model"
        where = " or ".join(API_KEY_ENV_VARS)
        if self._key_source is None:
            return f"The API key is {problem}: no key was given (set {where})"
        if self._key_source == "argument":
            return f"The API key is {problem}: the server rejected the key that was passed"
        return f"The API key is {problem}: the server rejected the key from ${self._key_source}"


@final
class ChatDecoder:
    """A chat-completions reply read into one message: a stream's chunks, or one whole
    completion (``whole``)."""

    __slots__ = ("_calls", "_format", "_refusal", "_text", "_usage", "_whole", "size")

    def __init__(self, fmt: ChatFormat, *, whole: bool = False) -> None:
        self._format = fmt
        self._whole = whole
        self._text: list[str] = []
        self._refusal: list[str] = []
        self._calls: dict[int, tuple[str, list[str], list[str]]] = {}  # index: id, name, args
        self._usage: Usage | None = None  # the last chunk's, asked for with stream_options
        self.size = 0

    def feed(self, event: object) -> str:
        try:
            if self._whole:
                return self._completion(event)
            content, deltas = chunk_parts(event)
            refusal = refusal_text(event, "delta")
            self._usage = chat_usage(event) or self._usage
        except (TypeError, ValueError) as e:
            what = "" if self._whole else "a streamed chunk: "
            raise self._format.failure(f"malformed reply from the server: {what}{e}") from e
        self._refusal.append(refusal)
        self.size += len(content) + len(refusal)
        if content:
            self._text.append(content)
        for index, call_id, name, arguments in deltas:
            known_id, names, parts = self._calls.setdefault(index, ("", [], []))
            self._calls[index] = (call_id or known_id, names, parts)
            names.append(name)
            parts.append(arguments)
            self.size += len(name) + len(arguments)
        return content

    def _completion(self, completion: object) -> str:
        text, calls = completion_parts(completion)
        refusal = refusal_text(completion, "message")
        self._usage = chat_usage(completion)
        self._refusal.append(refusal)
        self._text.append(text)
        self.size += len(text) + len(refusal)
        for index, (call_id, name, arguments) in enumerate(calls):
            self._calls[index] = (call_id, [name], [arguments])
            self.size += len(name) + len(arguments)
        return text

    def finish(self) -> AssistantMessage:
        text = "".join(self._text)
        calls = [self._calls[i] for i in sorted(self._calls)]
        refusal = "".join(self._refusal)
        if refusal and not (text or calls):
            raise ModelRefusal(f"{self._format.where()}: the model refused: {refusal}")
        return AssistantMessage(text=text, tool_calls=self._uses(calls), usage=self._usage)

    def _uses(self, calls: Sequence[tuple[str, list[str], list[str]]]) -> tuple[ToolUse, ...]:
        uses: list[ToolUse] = []
        for n, (call_id, names, parts) in enumerate(calls):
            name = "".join(names)
            if not name:
                raise self._format.failure("the server sent a tool call without a function name")
            # Some servers omit ids; the loop needs one to pair the result with its call.
            call_id = call_id or f"call_{n}_{os.urandom(6).hex()}"
            uses.append(ToolUse(call_id, name, parse_arguments("".join(parts))))
        return tuple(uses)
