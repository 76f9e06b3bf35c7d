"""HTTP hooks: the payload POSTed to a URL, the answer read back as a hook's output.

A bridge whose tool has HTTP handlers (Claude Code's ``type: "http"``) gives the
``HookCommand`` an ``HttpTarget``; the executor then sends the request here
instead of spawning a process, and the ``HookRun`` that comes back is read by
the bridge's decoder like a command hook's: a 2xx answer with an empty body or a
JSON object is exit 0 with that body as stdout; anything else (another status,
a body that is not a JSON object, a redirect, which is never followed) is a
failed run (exit 1, the reason on stderr: a non-blocking error, or a blocking
one for a handler declared ``on_failure="block"``); a request that could not be
sent is ``spawn_error``; the timeout and the abort signal end it as they end a
process. This is Claude Code 2.1.332's HTTP hook client (axios with
``maxRedirects: 0``, ``validateStatus`` always true, the answer read as text).

Headers interpolate ``$VAR`` and ``${VAR}`` from the hook's environment, only
for the names in ``allowed_env`` (others become empty strings, the header still
sent); a value loses its CR, LF and NUL characters; dsh's model keys
(``SECRET_ENV_VARS`` and the rest ``spawn_environment`` withholds) are never
interpolated. ``Content-Length`` and ``Transfer-Encoding`` from a declaration
are dropped (the body sets them). A proxy the environment names
(``HTTPS_PROXY``, ``NO_PROXY``, ...) is used as httpx2 reads it. The body read
back is bounded by the capture cap; a longer one is cut there and flagged as
truncated output. httpx2 is imported only when an HTTP hook runs.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, final

from dsh._frozen import frozen
from dsh.base import UnsafeJSONError, load_json
from dsh.hook_protocol._environment import spawn_environment
from dsh.hook_protocol._in_process import Answered, run_in_process

if TYPE_CHECKING:
    from dsh.hook_protocol._declarations import HookCommand
    from dsh.hook_protocol._run import CancelSignal, HookRun

__all__ = ["HttpTarget", "interpolate_header", "run_http_hook"]

_DROPPED_HEADERS: Final = frozenset({"content-length", "transfer-encoding"})
_SHOWN_BODY: Final = 200  # characters of a refused body quoted in the reason, as 2.1.332 quotes

ACCEPT: Final = "application/json, text/plain, */*"
"""The ``Accept`` header 2.1.332 sends (axios's default)."""


@final
@frozen(kw_only=True)
class HttpTarget:
    """Where an HTTP hook sends its payload: ``url``, the declared ``headers`` (values
    uninterpolated, in declaration order) and the variables they may read."""

    url: str
    headers: tuple[tuple[str, str], ...] = ()
    allowed_env: frozenset[str] = frozenset()

    def request_headers(self, env: Mapping[str, str]) -> dict[str, str]:
        """The headers sent, in 2.1.332's order: ``Accept``, ``Content-Type``, the declared
        ones (interpolated from ``env``), then the client's own."""
        out = {"Accept": ACCEPT, "Content-Type": "application/json"}
        for name, value in self.headers:
            if name.strip().lower() in _DROPPED_HEADERS:
                continue
            out[name] = interpolate_header(value, self.allowed_env, env)
        return out


@functools.cache
def _variable() -> re.Pattern[str]:
    # Compiled when a header is first sent: declaring an HTTP hook does not compile it.
    return re.compile(r"\$\{([A-Z_][A-Z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)")


def interpolate_header(value: str, allowed: frozenset[str], env: Mapping[str, str]) -> str:
    """``value`` with each ``$VAR``/``${VAR}`` in ``allowed`` replaced from ``env`` (an unset
    or unlisted one by nothing), without CR, LF and NUL."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env.get(name, "") if name in allowed else ""

    return re.sub(r"[\r\n\x00]", "", _variable().sub(replace, value))


def _body_problem(body: str) -> str | None:
    """Why a 2xx body is not an answer (2.1.332's words), or ``None``."""
    text = body.strip()
    if not text:
        return None
    if not text.startswith("{"):
        shown = text if len(text) <= _SHOWN_BODY else text[:_SHOWN_BODY] + "…"
        return f"HTTP hook must return JSON, but got non-JSON response body: {shown}"
    try:
        data = load_json(text)
    except UnsafeJSONError as exc:
        return f"HTTP hook must return valid JSON, but parsing failed: {exc}"
    if not isinstance(data, dict):
        return "HTTP hook must return a JSON object"
    return None


@final
@frozen
class _HttpCall:
    """One firing's request (an ``InProcessHook``): the target, the headers, the cap."""

    target: HttpTarget
    headers: Mapping[str, str]
    cap: int

    def describe(self) -> str:
        return f"HTTP hook request to {self.target.url}"

    async def __call__(self, payload: bytes) -> Answered:
        status, body, truncated = await _post(self.target.url, payload, self.headers, self.cap)
        if not 200 <= status < 300:
            return Answered(exit_code=1, stderr=f"HTTP {status} from {self.target.url}")
        if truncated:
            reason = f"HTTP hook answer over {self.cap} bytes"
            return Answered(exit_code=1, stderr=reason, stdout_truncated=True)
        problem = _body_problem(body)
        if problem is not None:
            return Answered(exit_code=1, stderr=problem)
        return Answered(exit_code=0, stdout=body)


async def run_http_hook(
    cmd: HookCommand, stdin: bytes, *, body_cap: int, signal: CancelSignal | None
) -> HookRun:
    """POST ``stdin`` to ``cmd.http``; never raises but for cancellation (see the module)."""
    target = cmd.http
    assert target is not None
    headers = target.request_headers(spawn_environment(cmd.env) or {})
    return await run_in_process(cmd, _HttpCall(target, headers, body_cap), stdin, signal)


async def _post(
    url: str, body: bytes, headers: Mapping[str, str], cap: int
) -> tuple[int, str, bool]:
    """``(status, body text, truncated)``: at most ``cap`` bytes of the body are kept."""
    import httpx2  # only when an HTTP hook runs

    sent = {
        **headers,
        "User-Agent": "dsh-hooks",
        "Accept-Encoding": "gzip, deflate",
        "Connection": "keep-alive",
    }
    async with httpx2.AsyncClient(follow_redirects=False, trust_env=True, timeout=None) as client:
        request = client.build_request("POST", url, content=body, headers=sent)
        # In 2.1.332's order (the client's own defaults would come first): Host, ours, the rest.
        rank = {name.lower().encode(): n for n, name in enumerate(["Host", *sent])}
        items = sorted(request.headers.raw, key=lambda kv: rank.get(kv[0].lower(), 99))
        request.headers = httpx2.Headers(items)
        response = await client.send(request, stream=True)
        try:
            kept = bytearray()
            truncated = False
            async for chunk in response.aiter_bytes():
                room = cap - len(kept)
                if len(chunk) > room:
                    kept += chunk[:room]
                    truncated = True
                    break
                kept += chunk
            return response.status_code, kept.decode("utf-8", errors="replace"), truncated
        finally:
            await response.aclose()
