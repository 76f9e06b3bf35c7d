"""The OpenAI-compatible chat-completions model (OpenAI, DeepSeek, vLLM, Ollama, llama.cpp servers).

Owns the adaptation of dsh's messages to the chat-completions wire format, the
streaming assembly of text and tool-call deltas, and the retry policy: the SDK's
own retries are off (``max_retries=0``) so backoff is ours, observable and tested.

Message mapping (what the model sees):
- ``UserMessage`` → ``user`` (images become ``image_url`` parts with a data URL);
- ``AssistantMessage`` → ``assistant`` with ``tool_calls``;
- ``ToolResultMessage`` → ``tool`` with the content text verbatim (chat completions
  has no error flag, and the text of a failure already says what went wrong); images
  in tool results follow the results in a ``user`` message, since ``tool`` messages
  are text only;
- ``ContextMessage`` → ``system`` with the text;
- ``SteeringMessage`` → ``user``;
- ``SummaryMessage`` → ``user`` "Summary of the conversation so far:\\n<summary>".
The tool results answering an assistant message stay right after it: any other
message found among them is moved after the last of them.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, final

from dsh._frozen import frozen
from dsh.models._types import ModelError, ModelRequest, TextCallback, ToolSpec
from dsh.session import (
    AssistantMessage,
    Content,
    ContextMessage,
    ImageBlock,
    ModelMessage,
    SteeringMessage,
    SummaryMessage,
    TextBlock,
    ToolResultMessage,
    ToolUse,
    UserMessage,
    freeze_json,
    thaw_json,
)

if TYPE_CHECKING:
    import openai

__all__ = [
    "API_KEY_ENV_VARS",
    "BASE_URL_ENV_VARS",
    "DEFAULT_BASE_URL",
    "SUMMARY_PREFIX",
    "OpenAICompatibleModel",
    "RetryNotice",
    "to_chat_messages",
]

API_KEY_ENV_VARS = ("DSH_API_KEY", "OPENAI_API_KEY")
"""Where the key comes from when none is passed, first found wins."""
BASE_URL_ENV_VARS = ("DSH_BASE_URL", "OPENAI_BASE_URL")
DEFAULT_BASE_URL = "https://api.openai.com/v1"
SUMMARY_PREFIX = "Summary of the conversation so far:\n"

# Sent when there is no key: local servers accept anything, and the SDK insists on one.
_NO_KEY = "dsh-no-api-key"
_RETRYABLE_STATUSES = frozenset({408, 409, 429})
_MAX_BODY_CHARS = 500


@final
@frozen
class RetryNotice:
    """A failed attempt that will be retried after ``delay`` seconds."""

    attempt: int
    delay: float
    error: ModelError


# --- request adaptation -------------------------------------------------------------------------


def _image_part(block: ImageBlock) -> dict[str, Any]:
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{block.media_type};base64,{block.data}"},
    }


def _user_content(content: Content) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    if all(isinstance(b, TextBlock) for b in content):
        return "\n".join(b.text for b in content if isinstance(b, TextBlock))
    return [
        {"type": "text", "text": b.text} if isinstance(b, TextBlock) else _image_part(b)
        for b in content
    ]


def _tool_result(message: ToolResultMessage) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ``tool`` message, and image parts that must follow in a user message."""
    content = message.content
    if isinstance(content, str):
        return {"role": "tool", "tool_call_id": message.tool_use_id, "content": content}, []
    text = "\n".join(b.text for b in content if isinstance(b, TextBlock))
    images = [_image_part(b) for b in content if isinstance(b, ImageBlock)]
    return {"role": "tool", "tool_call_id": message.tool_use_id, "content": text}, images


def _assistant(message: AssistantMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": message.text}
    if message.tool_calls:
        out["content"] = message.text or None
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments_json(call.arguments)},
            }
            for call in message.tool_calls
        ]
    return out


def _arguments_json(arguments: Any) -> str:
    # A call whose arguments did not parse keeps the model's raw text, sent back as it was.
    if isinstance(arguments, str):
        return arguments
    return json.dumps(thaw_json(arguments), ensure_ascii=False)


def _plain(message: ModelMessage) -> dict[str, Any]:
    match message:
        case UserMessage(content=content):
            return {"role": "user", "content": _user_content(content)}
        case ContextMessage(text=text):
            return {"role": "system", "content": text}
        case SteeringMessage(text=text):
            return {"role": "user", "content": text}
        case SummaryMessage(text=text):
            return {"role": "user", "content": SUMMARY_PREFIX + text}
    raise TypeError(f"not a plain message: {message!r}")  # pragma: no cover


def to_chat_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The request's messages in chat-completions form (see the module docstring)."""
    out: list[dict[str, Any]] = []
    if request.system:
        out.append({"role": "system", "content": request.system})
    pending: set[str] = set()  # tool call ids still awaiting their result
    deferred: list[dict[str, Any]] = []  # messages held back until those results are in
    images: list[dict[str, Any]] = []

    def flush() -> None:
        if images:
            out.append({"role": "user", "content": list(images)})
            images.clear()
        out.extend(deferred)
        deferred.clear()

    for message in request.messages:
        if isinstance(message, ToolResultMessage):
            tool_message, tool_images = _tool_result(message)
            out.append(tool_message)
            images.extend(tool_images)
            pending.discard(message.tool_use_id)
            if not pending:
                flush()
            continue
        if isinstance(message, AssistantMessage):
            pending.clear()
            flush()
            out.append(_assistant(message))
            pending = {c.id for c in message.tool_calls}
            continue
        if pending:
            deferred.append(_plain(message))
        else:
            flush()
            out.append(_plain(message))
    flush()
    return out


def _tool_json(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": thaw_json(spec.input_schema),
        },
    }


# --- reply assembly -----------------------------------------------------------------------------


def _parse_arguments(raw: str) -> Any:
    """Frozen JSON arguments; text that is not JSON stays a raw string (the registry rejects it)."""
    if not raw.strip():
        return freeze_json({})
    try:
        return freeze_json(json.loads(raw))
    except (json.JSONDecodeError, TypeError, ValueError):
        return raw


@dataclass(slots=True)
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Attempt:
    """What one attempt has done that a retry could not undo."""

    streamed: bool = False


# --- errors -------------------------------------------------------------------------------------


def _server_message(body: object, response_text: str | None) -> str:
    if isinstance(body, dict):
        for candidate in (body.get("message"), body.get("error"), body.get("detail")):
            if isinstance(candidate, str) and candidate:
                return candidate
            if isinstance(candidate, dict) and isinstance(candidate.get("message"), str):
                return str(candidate["message"])
        return json.dumps(body)[:_MAX_BODY_CHARS]
    if isinstance(body, str) and body.strip():
        return body.strip()[:_MAX_BODY_CHARS]
    if response_text and response_text.strip():
        return response_text.strip()[:_MAX_BODY_CHARS]
    return "(no message from the server)"


def _retry_after(headers: Any, cap: float) -> float | None:
    """The wait the server asks for (``retry-after-ms``/``retry-after``), capped; None if absent."""
    try:
        raw_ms = headers.get("retry-after-ms")
        if raw_ms is not None:
            return _clamp(float(raw_ms) / 1000.0, cap)
        raw = headers.get("retry-after")
    except (AttributeError, ValueError):
        return None
    if raw is None:
        return None
    try:
        return _clamp(float(raw), cap)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    return _clamp(when.timestamp() - time.time(), cap)


def _clamp(seconds: float, cap: float) -> float | None:
    if math.isnan(seconds):
        return None
    return max(0.0, min(seconds, cap))


def _str(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _chunk_parts(chunk: Any) -> tuple[str, list[tuple[int, str, str, str]]]:
    """A streamed chunk's text delta and tool-call deltas ``(index, id, name, arguments)``."""
    content = ""
    deltas: list[tuple[int, str, str, str]] = []
    for choice in chunk.choices or ():
        if getattr(choice, "index", 0) not in (0, None):
            continue
        delta = choice.delta
        if delta is None:
            continue
        content += _str(delta.content)
        for tc in delta.tool_calls or ():
            function = tc.function
            name = _str(function.name) if function is not None else ""
            arguments = _str(function.arguments) if function is not None else ""
            deltas.append((int(tc.index or 0), _str(tc.id), name, arguments))
    return content, deltas


def _completion_parts(completion: Any) -> tuple[str, list[tuple[str, str, str]]]:
    """A whole completion's text and tool calls ``(id, name, arguments)``."""
    if not completion.choices:
        raise ValueError("the reply has no choices")
    message = completion.choices[0].message
    if message is None:
        raise ValueError("the first choice has no message")
    calls: list[tuple[str, str, str]] = []
    for tc in message.tool_calls or ():
        function = getattr(tc, "function", None)
        if function is not None:
            calls.append((_str(tc.id), _str(function.name), _str(function.arguments)))
    return _str(message.content), calls


class OpenAICompatibleModel:
    """A chat-completions model on the ``openai`` SDK, for any OpenAI-compatible server.

    ``base_url`` defaults to ``$DSH_BASE_URL``, then ``$OPENAI_BASE_URL``, then
    OpenAI's; ``api_key`` to ``$DSH_API_KEY``, then ``$OPENAI_API_KEY`` (a server
    that needs no key, like a local Ollama, works without one).

    A call is retried up to ``max_retries`` times on 408, 409, 429, 5xx and
    connection errors, waiting ``backoff_base * 2**n`` seconds (capped at
    ``backoff_max``, with jitter down to half of it), or what the server's
    ``Retry-After`` asks, capped at ``retry_after_max``. A streamed reply that fails
    after text was already passed to ``on_text`` is not retried (the text cannot be
    taken back). ``on_retry`` hears of every retry before the wait.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        max_retries: int = 4,
        stream: bool = True,
        timeout: float = 600.0,
        backoff_base: float = 1.0,
        backoff_max: float = 30.0,
        retry_after_max: float = 60.0,
        max_tokens: int | None = None,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> None:
        if not model:
            raise ValueError("an OpenAI-compatible model needs a model name")
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, not {max_retries}")
        self._model = model
        self.base_url = (base_url or _first_env(BASE_URL_ENV_VARS) or DEFAULT_BASE_URL).rstrip("/")
        self._api_key, self._key_source = _resolve_key(api_key)
        self.max_retries = max_retries
        self.stream = stream
        self.timeout = timeout
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self.max_tokens = max_tokens
        self.on_retry = on_retry
        self._client: openai.AsyncOpenAI | None = None

    @property
    def name(self) -> str:
        return self._model

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel({self._model!r}, base_url={self.base_url!r})"

    async def aclose(self) -> None:
        """Close the HTTP connections (a later call opens new ones)."""
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    async def __aenter__(self) -> OpenAICompatibleModel:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    def _get_client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            # Imported here: the SDK takes ~0.4 s to import and scripted runs never need it.
            import openai

            self._client = openai.AsyncOpenAI(
                api_key=self._api_key or _NO_KEY,
                base_url=self.base_url,
                max_retries=0,
                timeout=self.timeout,
            )
        return self._client

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        attempt = 0
        while True:
            attempt += 1
            state = _Attempt()
            try:
                return await self._attempt(request, on_text, state)
            except _Failure as failure:
                error = failure.error
                if not error.retryable or attempt > self.max_retries or state.streamed:
                    if state.streamed and error.retryable:
                        error.message += " (the reply broke off after streaming began; not retried)"
                    elif attempt > 1:
                        error.message += f" (gave up after {attempt} attempts)"
                    error.args = (error.message,)
                    raise error from failure.__cause__
                delay = failure.retry_after
                if delay is None:
                    delay = min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))
                    delay *= random.uniform(0.5, 1.0)
                if self.on_retry is not None:
                    self.on_retry(RetryNotice(attempt=attempt, delay=delay, error=error))
                await asyncio.sleep(delay)

    async def _attempt(
        self, request: ModelRequest, on_text: TextCallback | None, state: _Attempt
    ) -> AssistantMessage:
        params: dict[str, Any] = {
            "model": self._model,
            "messages": to_chat_messages(request),
        }
        if request.tools:
            params["tools"] = [_tool_json(t) for t in request.tools]
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        import openai

        create: Any = self._get_client().chat.completions.create
        try:
            if self.stream:
                return await self._streamed(await create(**params, stream=True), on_text, state)
            return self._whole(await create(**params), on_text)
        except openai.APIStatusError as e:
            raise self._status_failure(e) from e
        except openai.APIConnectionError as e:
            detail = str(e.__cause__) if e.__cause__ is not None else e.message
            raise _Failure(
                ModelError(
                    f"{self._where()}: cannot get a reply from the server: {e.message} ({detail})"
                    if detail != e.message
                    else f"{self._where()}: cannot get a reply from the server: {e.message}",
                    status=None,
                    retryable=True,
                )
            ) from e
        except openai.OpenAIError as e:
            raise _Failure(ModelError(f"{self._where()}: {e}", status=None, retryable=False)) from e

    async def _streamed(
        self, stream: Any, on_text: TextCallback | None, state: _Attempt
    ) -> AssistantMessage:
        text: list[str] = []
        partial: dict[int, _PartialCall] = {}
        async with stream:
            async for chunk in stream:
                try:
                    content, deltas = _chunk_parts(chunk)
                except (AttributeError, TypeError, ValueError) as e:
                    raise self._malformed(f"a streamed chunk: {e}") from e
                if content:
                    text.append(content)
                    state.streamed = True
                    if on_text is not None:
                        on_text(content)
                for index, call_id, name, arguments in deltas:
                    call = partial.setdefault(index, _PartialCall())
                    call.id = call_id or call.id
                    call.name += name
                    call.arguments.append(arguments)
        calls = [partial[i] for i in sorted(partial)]
        return self._message("".join(text), [(c.id, c.name, "".join(c.arguments)) for c in calls])

    def _whole(self, completion: Any, on_text: TextCallback | None) -> AssistantMessage:
        try:
            text, calls = _completion_parts(completion)
        except (AttributeError, TypeError, ValueError, IndexError) as e:
            raise self._malformed(str(e)) from e
        if text and on_text is not None:
            on_text(text)
        return self._message(text, calls)

    def _malformed(self, detail: str) -> _Failure:
        return _Failure(
            ModelError(f"{self._where()}: malformed reply from the server: {detail}", status=None)
        )

    def _message(self, text: str, calls: Sequence[tuple[str, str, str]]) -> AssistantMessage:
        uses: list[ToolUse] = []
        for n, (call_id, name, arguments) in enumerate(calls):
            if not name:
                raise _Failure(
                    ModelError(
                        f"{self._where()}: the server sent a tool call without a function name",
                        status=None,
                    )
                )
            # Some servers omit ids; the loop needs one to pair the result with its call.
            uses.append(
                ToolUse(
                    call_id or f"call_{n}_{os.urandom(6).hex()}", name, _parse_arguments(arguments)
                )
            )
        return AssistantMessage(text=text, tool_calls=tuple(uses))

    def _where(self) -> str:
        return f"model {self._model!r} at {self.base_url}"

    def _status_failure(self, e: openai.APIStatusError) -> _Failure:
        status = e.status_code
        response_text: str | None
        try:
            response_text = e.response.text
        except Exception:  # a streamed body that was never read
            response_text = None
        message = f"{self._where()}: HTTP {status}: {_server_message(e.body, response_text)}"
        if status in (401, 403):
            message += f". {self._key_hint(status)}"
        elif status == 404:
            message += (
                f". Check the model name ({self._model!r}) and the base URL"
                " (most servers expect it to end in /v1)"
            )
        retryable = status in _RETRYABLE_STATUSES or status >= 500
        retry_after = _retry_after(e.response.headers, self.retry_after_max) if retryable else None
        return _Failure(ModelError(message, status=status, retryable=retryable), retry_after)

    def _key_hint(self, status: int) -> str:
        problem = "missing or invalid" if status == 401 else "not allowed to use this model"
        where = " or ".join(API_KEY_ENV_VARS)
        if self._key_source is None:
            return f"The API key is {problem}: no key was given (set {where}, or pass --api-key)"
        if self._key_source == "argument":
            return f"The API key is {problem}: the server rejected the key that was passed"
        return f"The API key is {problem}: the server rejected the key from ${self._key_source}"


class _Failure(Exception):
    """One failed attempt: the error to raise if it is the last, and the server's wait hint."""

    def __init__(self, error: ModelError, retry_after: float | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.retry_after = retry_after


def _first_env(names: Sequence[str]) -> str | None:
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def _resolve_key(api_key: str | None) -> tuple[str | None, str | None]:
    """The key and where it came from: ``"argument"``, an env var's name, or None."""
    if api_key:
        return api_key, "argument"
    for name in API_KEY_ENV_VARS:
        value = os.environ.get(name)
        if value:
            return value, name
    return None, None
