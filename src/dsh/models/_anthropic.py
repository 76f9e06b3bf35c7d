"""The Anthropic Messages API, streamed, set up as Claude Code 2.1.332 sets it up.

``AnthropicFormat`` is the wire format (``_provider.WireFormat``): the body from
``_anthropic_body``, the headers (``x-api-key`` from ``ANTHROPIC_API_KEY``,
``Authorization: Bearer`` from ``ANTHROPIC_AUTH_TOKEN``, ``anthropic-version``, and
``ANTHROPIC_CUSTOM_HEADERS``' ``Name: Value`` lines), and ``MessagesDecoder``, which
reads the event stream (``message_start``, ``content_block_start``/``_delta``/
``_stop``, ``message_delta``, ``message_stop``; ``ping`` and event types it does not
know are skipped, as the API's versioning asks) into one ``AssistantMessage`` with the
usage reported, cache tokens included. Failures are worded as Claude Code words them
(``API Error: 400 M``, ``Failed to authenticate. API Error: 401 M``,
``API Error: Request rejected (429) · M``); 401, 408, 409, 429 and 5xx (529:
overloaded) are retried up to ``CLAUDE_CODE_MAX_RETRIES`` times (default 10), a server's
``x-should-retry`` and ``Retry-After`` obeyed. A 400 is sent again at once, whatever
``CLAUDE_CODE_MAX_RETRIES`` says, degraded as 2.1.332 degrades its resends (``resent``,
recorded with the binary: ``tests/fixtures/claude_api_retries.json``): five more times,
the first two as they were (2.1.332 leaves out a beta and a thinking display dsh's requests
do not have), the last three without tool search (no ``anthropic-beta``, no
``defer_loading``); a 400 or 422 refusing a ``system`` role (``Unexpected role`` …
``input message role``, or ``not supported`` … ``role: system``) once, with the system
turns as ``<system-reminder>`` user text, and this model sends none again
(2.1.332's ``[mid-conv-system]`` fallback, recorded: ``tests/fixtures/claude_system_turns.json``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import cache
from typing import Any, final

from dsh import __version__
from dsh.base import freeze_json
from dsh.base._env_policy import withhold_variable
from dsh.messages import AssistantMessage, ContextMessage, ToolUse, Usage
from dsh.messages._messages import token_count
from dsh.models import _choice as choice
from dsh.models._anthropic_body import Degraded, ThinkingStore, messages_body
from dsh.models._chat_reply import parse_arguments, server_message
from dsh.models._provider import Backoff, PrefixedFailures, Resend, StreamingModel
from dsh.models._types import ModelError, ModelRefusal, ModelRequest
from dsh.models._wire import StatusError

__all__ = [
    "ALIASES",
    "API_KEY_ENV_VAR",
    "AUTH_TOKEN_ENV_VAR",
    "BASE_URL_ENV_VAR",
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "AnthropicFormat",
    "MessagesDecoder",
    "anthropic_model",
    "resolve_alias",
]

API_KEY_ENV_VAR = "ANTHROPIC_API_KEY"
AUTH_TOKEN_ENV_VAR = "ANTHROPIC_AUTH_TOKEN"
BASE_URL_ENV_VAR = "ANTHROPIC_BASE_URL"
MODEL_ENV_VAR = choice.CLAUDE_MODEL_ENV_VAR
HEADERS_ENV_VAR = "ANTHROPIC_CUSTOM_HEADERS"
RETRIES_ENV_VAR = "CLAUDE_CODE_MAX_RETRIES"
MAX_OUTPUT_ENV_VAR = "CLAUDE_CODE_MAX_OUTPUT_TOKENS"
THINKING_ENV_VAR = "MAX_THINKING_TOKENS"
DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
DEFAULT_MODEL = choice.CLAUDE_DEFAULT_MODEL
"""2.1.332's default model, as the recordings show it (``from_model``)."""
ALIASES: Mapping[str, str] = {
    "opus": "claude-opus-5-5",
    "sonnet": "claude-sonnet-5-5",  # the recordings' set_model "sonnet" → to_model
    "haiku": "claude-haiku-5-5",
}
"""Claude Code's model aliases; ``ANTHROPIC_DEFAULT_<ALIAS>_MODEL`` overrides each."""
_DEFAULT_MAX_TOKENS = 32_000
_RETRYABLE = frozenset({401, 408, 409, 429})
TOOL_SEARCH_BETA = "advanced-tool-use-2025-11-20"
"""The beta 2.1.332 sends for ``defer_loading`` tools and ``tool_reference`` blocks."""
_RESENDS_400 = 5
_AS_SENT_400 = 2
"""The resends of a 400 that 2.1.332 degrades in ways dsh's requests have nothing of."""


@cache
def _system_role() -> re.Pattern[str]:
    # Compiled at the first refusal read: most runs have none.
    return re.compile(r"role .{0,2}system", re.IGNORECASE)


def refuses_system_turns(message: str) -> bool:
    """Whether an API error's text says the API takes no ``system`` role in ``messages``
    (what 2.1.332 answers with its ``[mid-conv-system]`` fallback)."""
    if "Unexpected role" in message and "input message role" in message:
        return True
    return "not supported" in message and _system_role().search(message) is not None


def resolve_alias(name: str) -> str:
    """``sonnet``/``opus``/``haiku`` as the model id they stand for; any other name as is."""
    alias = name.strip().lower()
    if alias in ALIASES:
        return os.environ.get(f"ANTHROPIC_DEFAULT_{alias.upper()}_MODEL") or ALIASES[alias]
    return name.strip()


def scripted_resends(status: int) -> int:
    """How many more times this wire sends a request failing with ``status`` for good: its
    resends, or ``CLAUDE_CODE_MAX_RETRIES`` retries (a scripted model's replay of it)."""
    if status in _RETRYABLE or status >= 500:
        try:
            return _env_int(RETRIES_ENV_VAR, 10)
        except ValueError:
            return 10  # a model of this wire would not have loaded; the default then
    return _RESENDS_400 if status == 400 else 0


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"${name} must be a whole number, not {raw!r}") from None
    if value < 0:
        raise ValueError(f"${name} must be 0 or more, not {value}")
    return value


def custom_headers(text: str) -> dict[str, str]:
    """``ANTHROPIC_CUSTOM_HEADERS``: ``Name: Value`` lines (a line without a colon is skipped)."""
    headers: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip() and not any(c in value for c in "\r\n\0"):
            headers[name.strip()] = value.strip()
    return headers


@final
class AnthropicFormat(PrefixedFailures):
    """The Messages API as a ``WireFormat``."""

    failure_prefix = "API Error: "

    label = "Anthropic Messages"
    path = "/v1/messages"
    streamed = True

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None,
        auth_token: str | None,
        max_tokens: int = _DEFAULT_MAX_TOKENS,
        thinking_budget: int | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> None:
        self.model = model
        self._api_key = api_key
        self._auth_token = auth_token
        self.max_tokens = max_tokens
        self.thinking_budget = thinking_budget
        self._extra = dict(extra_headers or {})
        self.thinking = ThinkingStore()
        self.system_turns = True
        """``False`` once the API refused them: every later request sends them as user text."""

    def headers(self, *, tool_search: bool = True) -> dict[str, str]:
        headers = {
            "Accept": "application/json",
            "Content-Type": "application/json",
            "User-Agent": f"dsh/{__version__}",
            "anthropic-version": API_VERSION,
        }
        if tool_search:
            headers["anthropic-beta"] = TOOL_SEARCH_BETA
        if self._api_key:
            headers["x-api-key"] = self._api_key
        if self._auth_token:
            headers["Authorization"] = f"Bearer {self._auth_token}"
        headers.update(self._extra)
        return headers

    def body(self, request: ModelRequest, *, tool_search: bool = True) -> Mapping[str, Any]:
        return messages_body(
            self.model,
            request,
            max_tokens=self.max_tokens,
            thinking=self.thinking,
            thinking_budget=self.thinking_budget,
            form=Degraded(tool_search=tool_search, system_turns=self.system_turns),
        )

    def resent(self, request: ModelRequest, n: int, error: ModelError) -> Resend | None:
        """The ``n``-th resend of a refused request, as 2.1.332 resends it (the module's
        docstring), or ``None``: the failure stands."""
        if error.status not in (400, 422):
            return None
        if refuses_system_turns(error.message):
            turns = any(isinstance(m, ContextMessage) for m in request.messages)
            if not (turns and self.system_turns):
                return None
            self.system_turns = False
            return self.body(request), None
        if error.status != 400 or n > _RESENDS_400:
            return None
        search = n <= _AS_SENT_400
        return self.body(request, tool_search=search), None if search else self.headers(
            tool_search=False
        )

    def decoder(self) -> MessagesDecoder:
        return MessagesDecoder(self.thinking)

    count_path = "/v1/messages/count_tokens"

    def count_body(self, request: ModelRequest) -> Mapping[str, Any]:
        """``count_tokens``' body: the request's model, system, messages and tools."""
        body = self.body(request)
        return {k: body[k] for k in ("model", "system", "messages", "tools") if k in body}

    def counted(self, reply: object) -> int | None:
        """The ``input_tokens`` a ``count_tokens`` reply gives (``None``: not a count)."""
        return token_count(reply.get("input_tokens")) if isinstance(reply, Mapping) else None

    def status_error(self, e: StatusError) -> ModelError:
        message = server_message(e.data, e.text)
        status = e.status
        if status == 401:
            text = f"Failed to authenticate. API Error: 401 {message}"
            if not (self._api_key or self._auth_token):
                text += f" (no key: set ${API_KEY_ENV_VAR} or ${AUTH_TOKEN_ENV_VAR})"
        elif status == 429:
            text = f"API Error: Request rejected (429) · {message}"
        else:
            text = f"API Error: {status} {message}"
        retryable = status in _RETRYABLE or status >= 500
        should = str(e.headers.get("x-should-retry", "")).lower()
        if should in ("true", "false"):
            retryable = should == "true"
        return ModelError(text, status=status, retryable=retryable)

    def resends(self, status: int) -> int:
        return _RESENDS_400 if status == 400 else 0


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} is not a string")
    return value


def _object(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{what} is not an object")
    return value


def _index(event: Mapping[str, Any]) -> int:
    index = event.get("index")
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < 4096:
        raise ValueError(f"a {event.get('type')} event has no valid index")
    return index


@final
class MessagesDecoder:
    """A Messages event stream read into one reply (see the module docstring)."""

    __slots__ = ("_blocks", "_started", "_stop", "_stopped", "_thinking", "_usage", "size")

    def __init__(self, thinking: ThinkingStore) -> None:
        self._thinking = thinking
        self._blocks: dict[int, dict[str, Any]] = {}
        self._started = False
        self._stopped = False
        self._stop: str | None = None
        self._usage: dict[str, int] = {}
        self.size = 0

    def feed(self, event: object) -> str:
        data = _object(event, "an event")
        kind = data.get("type")
        if kind == "error":
            error = data.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            raise ModelError(f"API Error: {message or 'an error event in the stream'}")
        if kind == "message_start":
            self._started = True
            self._take_usage(_object(data.get("message"), "message_start's message").get("usage"))
        elif kind == "content_block_start":
            block = dict(_object(data.get("content_block"), "a content block"))
            _text(block.get("type"), "a content block's type")
            self._blocks[_index(data)] = {**block, "_json": []}
        elif kind == "content_block_delta":
            return self._delta(_index(data), _object(data.get("delta"), "a delta"))
        elif kind == "message_delta":
            delta = _object(data.get("delta"), "message_delta's delta")
            stop = delta.get("stop_reason")
            self._stop = stop if isinstance(stop, str) else self._stop
            self._take_usage(data.get("usage"))
        elif kind == "message_stop":
            self._stopped = True
        elif not isinstance(kind, str):
            raise ValueError("an event without a type")
        return ""  # content_block_stop, ping, and event types added later

    def _delta(self, index: int, delta: Mapping[str, Any]) -> str:
        block = self._blocks.get(index)
        if block is None:
            raise ValueError(f"a delta for block {index}, which was not started")
        kind = delta.get("type")
        if kind == "text_delta":
            text = _text(delta.get("text"), "a text delta")
            block["text"] = _text(block.get("text", ""), "a text block's text") + text
            self.size += len(text)
            return text
        if kind == "input_json_delta":
            piece = _text(delta.get("partial_json"), "an input delta")
            block["_json"].append(piece)
            self.size += len(piece)
        elif kind in ("thinking_delta", "signature_delta"):
            field = "thinking" if kind == "thinking_delta" else "signature"
            piece = _text(delta.get(field), f"a {field} delta")
            block[field] = _text(block.get(field, ""), f"a block's {field}") + piece
            self.size += len(piece)
        return ""

    def _take_usage(self, usage: object) -> None:
        if not isinstance(usage, dict):
            return
        for name in (
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ):
            count = token_count(usage.get(name))
            if count is not None:
                self._usage[name] = count

    def finish(self) -> AssistantMessage:
        if not self._started or not self._stopped:
            raise ValueError("the event stream ended before message_stop")
        texts: list[str] = []
        calls: list[ToolUse] = []
        thinking: list[Mapping[str, Any]] = []
        for index in sorted(self._blocks):
            block = self._blocks[index]
            kind = block["type"]
            if kind == "text":
                texts.append(_text(block.get("text", ""), "a text block's text"))
            elif kind == "tool_use":
                calls.append(self._call(block))
            elif kind in ("thinking", "redacted_thinking"):
                thinking.append({k: v for k, v in block.items() if k != "_json"})
        if self._stop == "refusal" and not texts and not calls:
            raise ModelRefusal("API Error: the model declined to answer (stop_reason: refusal)")
        usage = Usage(**self._usage) if self._usage else None
        message = AssistantMessage(text="".join(texts), tool_calls=tuple(calls), usage=usage)
        self._thinking.keep(message, tuple(thinking))
        return message

    @staticmethod
    def _call(block: Mapping[str, Any]) -> ToolUse:
        call_id = _text(block.get("id"), "a tool_use block's id")
        name = _text(block.get("name"), "a tool_use block's name")
        if not name:
            raise ValueError("a tool_use block without a name")
        raw = "".join(block["_json"])
        if raw:
            return ToolUse(call_id, name, parse_arguments(raw))
        given = block.get("input")
        return ToolUse(call_id, name, freeze_json(given if isinstance(given, dict) else {}))


def anthropic_model(
    name: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    on_retry: Any = None,
) -> StreamingModel:
    """A Messages-API model set up from Claude Code's environment (see the module docstring).

    ``base_url`` defaults to ``$ANTHROPIC_BASE_URL``, then Anthropic's; ``api_key`` to
    ``$ANTHROPIC_API_KEY`` (sent as ``x-api-key``), with ``$ANTHROPIC_AUTH_TOKEN`` sent as
    a Bearer token. Raises ``ValueError`` for a bad ``CLAUDE_CODE_*`` number.
    """
    model = resolve_alias(name)
    if not model:
        raise ValueError("an Anthropic model needs a model name")
    url = base_url or os.environ.get(BASE_URL_ENV_VAR) or DEFAULT_BASE_URL
    budget = _env_int(THINKING_ENV_VAR, 0)
    max_tokens = _env_int(MAX_OUTPUT_ENV_VAR, _DEFAULT_MAX_TOKENS) or _DEFAULT_MAX_TOKENS
    wire = AnthropicFormat(
        model,
        api_key=api_key or os.environ.get(API_KEY_ENV_VAR) or None,
        auth_token=os.environ.get(AUTH_TOKEN_ENV_VAR) or None,
        max_tokens=max(max_tokens, budget + 1) if budget else max_tokens,
        thinking_budget=budget or None,
        extra_headers=custom_headers(os.environ.get(HEADERS_ENV_VAR, "")),
    )
    # Custom headers may carry credentials (a gateway's): no tool or hook inherits them.
    withhold_variable(HEADERS_ENV_VAR)
    backoff = Backoff(retries=_env_int(RETRIES_ENV_VAR, 10))
    return StreamingModel(model, wire, url, backoff=backoff, on_retry=on_retry)
