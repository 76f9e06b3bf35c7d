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

import asyncio
import re
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final, final

from dsh._frozen import frozen
from dsh.base import UnsafeJSONError, load_json
from dsh.hook_protocol._environment import spawn_environment
from dsh.hook_protocol._run import HookRun

if TYPE_CHECKING:
    from dsh.hook_protocol._declarations import HookCommand
    from dsh.hook_protocol._run import CancelSignal

__all__ = ["HttpTarget", "interpolate_header", "run_http_hook"]

_VARIABLE: Final = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)")
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


def interpolate_header(value: str, allowed: frozenset[str], env: Mapping[str, str]) -> str:
    """``value`` with each ``$VAR``/``${VAR}`` in ``allowed`` replaced from ``env`` (an unset
    or unlisted one by nothing), without CR, LF and NUL."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env.get(name, "") if name in allowed else ""

    return re.sub(r"[\r\n\x00]", "", _VARIABLE.sub(replace, value))


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


async def run_http_hook(
    cmd: HookCommand, stdin: bytes, *, body_cap: int, signal: CancelSignal | None
) -> HookRun:
    """POST ``stdin`` to ``cmd.http``; never raises but for cancellation (see the module)."""
    target = cmd.http
    assert target is not None
    started = time.perf_counter()
    if signal is not None and signal.aborted:
        return HookRun.without_output(cmd, 0.0, cancelled=True)
    headers = target.request_headers(spawn_environment(cmd.env) or {})
    request = asyncio.ensure_future(_post(target.url, stdin, headers, body_cap))
    abort: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    remove: Callable[[], None] | None = None
    if signal is not None:

        def on_abort(_reason: str) -> None:
            if not abort.done():
                abort.set_result(None)

        remove = signal.on_abort(on_abort)
    try:
        done, _ = await asyncio.wait(
            (request, abort), timeout=cmd.timeout, return_when=asyncio.FIRST_COMPLETED
        )
    except asyncio.CancelledError:
        request.cancel()
        await asyncio.gather(request, return_exceptions=True)
        raise
    finally:
        if remove is not None:
            remove()
    duration = time.perf_counter() - started
    if request not in done:
        request.cancel()
        await asyncio.gather(request, return_exceptions=True)
        cancelled = abort.done()
        return HookRun(
            command=cmd,
            pid=None,
            exit_code=None,
            signal=None,
            stdout="",
            stderr="",
            duration=duration,
            timed_out=not cancelled,
            cancelled=cancelled,
        )
    try:
        status, body, truncated = request.result()
    except Exception as exc:
        reason = f"HTTP hook request to {target.url} failed: {type(exc).__name__}: {exc}"
        return HookRun.without_output(cmd, duration, spawn_error=reason)
    stdout, stderr, code = body, "", 0
    if not 200 <= status < 300:
        stdout, stderr, code = "", f"HTTP {status} from {target.url}", 1
    elif truncated:
        stdout, stderr, code = "", f"HTTP hook answer over {body_cap} bytes", 1
    else:
        problem = _body_problem(body)
        if problem is not None:
            stdout, stderr, code = "", problem, 1
    return HookRun(
        command=cmd,
        pid=None,
        exit_code=code,
        signal=None,
        stdout=stdout,
        stderr=stderr,
        stdout_truncated=truncated,
        duration=duration,
    )


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
