"""``WebFetch``: fetches a URL, makes the page Markdown and has a model answer the call's
``prompt`` from it, as 2.1.332's tool does (``tests/fixtures/claude_deferred_tools.json``).

In 2.1.332's order and words: a URL that is not one (``InputValidationError``), a host with no
dot (``localhost``: use curl), ``http`` upgraded to ``https``; a redirect to the same host
followed (at most ``MAX_REDIRECTS``), to another host returned to the model as
``REDIRECT DETECTED``; a status other than 2xx answered ``The server returned HTTP …`` without
the body. The body is read up to ``MAX_BODY_BYTES``; HTML becomes Markdown
(``_html_markdown``), other text stays as it is. The model reads ``MAX_WINDOW`` characters from
``offset`` (``[Content truncated due to length...]`` past it, and a note telling the model the
next offset), through ``PAGE_READER``: the session's model client, which the host provides. A
page is kept for 15 minutes per URL, per session. 2.1.332's domain check against claude.ai
(``skipWebFetchPreflight``) is not made: it needs Anthropic's service. Permission rules
``WebFetch(domain:…)`` apply as to any call (``rules/_grammar``).
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from dsh.base import thaw_json
from dsh.messages import Content
from dsh.tools._types import ToolInvocation, ToolResult
from dsh.tools.builtin._common import refused
from dsh.tools.builtin._deferred_tools import PAGE_READER

if TYPE_CHECKING:
    import ssl

__all__ = ["page_prompt", "present", "present_web_fetch", "run"]

MAX_WINDOW = 100_000
MAX_BODY_BYTES = 10 * 1024 * 1024
MAX_REDIRECTS = 10
CACHE_SECONDS = 15 * 60
TIMEOUT_SECONDS = 60.0
_CACHE_KEY = "dsh.web_fetch.pages"
_ACCEPT = {"Accept": "text/markdown, text/html, */*"}
_TRUNCATED = "\n\n[Content truncated due to length...]"
_INVALID_URL = (
    'InputValidationError: [\n  {\n    "code": "invalid_format",\n    "format": "url",\n'
    '    "path": [\n      "url"\n    ],\n    "message": "Invalid URL"\n  }\n]'
)
_DOTLESS = (
    "WebFetch cannot fetch localhost or other hostnames without a dot. To reach a local server,"
    " use Bash with curl instead."
)
_RULES = (
    "Provide a concise response based only on the content above. In your response:\n"
    " - Enforce a strict 125-character maximum for quotes from any source document. Open Source"
    " Software is ok as long as we respect the license.\n"
    " - Use quotation marks for exact language from articles; any language outside of the"
    " quotation should never be word-for-word the same.\n"
    " - You are not a lawyer and never comment on the legality of your own prompts and"
    " responses.\n"
    " - Never produce or reproduce exact song lyrics.\n"
)
READER_SYSTEM = "You are a Claude agent, built on Anthropic's Claude Agent SDK."
"""The system prompt of 2.1.332's page-reading request."""


class _Answer(Exception):
    """The call ends with this answer: a refusal (``result``), or a text that is the call's
    result (a redirect, an HTTP status)."""

    def __init__(self, result: ToolResult | str) -> None:
        super().__init__(str(result if isinstance(result, str) else result.content))
        self.result = result


def page_prompt(page: str, prompt: str, offset: int) -> str:
    """The text 2.1.332 sends its model for ``MAX_WINDOW`` characters of ``page`` from
    ``offset``."""
    window = page[offset : offset + MAX_WINDOW]
    if offset + MAX_WINDOW < len(page):
        window += _TRUNCATED
    head = "\n"
    if offset:
        head = (
            "The content below is one part of a longer page: it starts"
            f" {offset} characters into the page's {len(page)}.\n\n"
        )
    return f"{head}Web page content:\n---\n{window}\n---\n\n{prompt}\n\n{_RULES}"


def _note(length: int, offset: int) -> str:
    end = offset + MAX_WINDOW
    if end >= length:
        return ""
    if not offset:
        return (
            f"\n\n[WebFetch note: this page's text is {length} characters long and the answer"
            f" above covers only characters {offset} to {end}; the final {length - end} were"
            " not read \u2014 to read on, call WebFetch again with the same url and offset:"
            f" {end}.]"
        )
    return (
        f"\n\n[WebFetch note: the answer above covers characters {offset} to {end} of this"
        f" page's {length} characters. Next offset: {end}.]"
    )


def _checked_url(url: str) -> str:
    """The URL to fetch (``https``), or the refusal 2.1.332 gives."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
    except ValueError:
        raise _Answer(refused(_INVALID_URL)) from None
    if parts.scheme not in ("http", "https") or not host:
        raise _Answer(refused(_INVALID_URL))
    if "." not in host:
        raise _Answer(ToolResult.error(_DOTLESS))
    return parts._replace(scheme="https").geturl() if parts.scheme == "http" else url.strip()


def _trust() -> ssl.SSLContext:
    """The certificates ``https`` is checked against: ``SSL_CERT_FILE``/``SSL_CERT_DIR`` else
    the system's, plus ``NODE_EXTRA_CA_CERTS`` (as dsh's model client trusts them)."""
    import ssl

    cafile = os.environ.get("SSL_CERT_FILE")
    capath = None if cafile else os.environ.get("SSL_CERT_DIR")
    context = ssl.create_default_context(cafile=cafile, capath=capath)
    extra = os.environ.get("NODE_EXTRA_CA_CERTS")
    if extra:
        # A file that is not there or holds no certificates adds none, as Node's.
        with contextlib.suppress(OSError, ssl.SSLError):
            context.load_verify_locations(cafile=extra)
    return context


def _phrase(status: int) -> str:
    import http

    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""


def _redirect(original: str, target: str, status: int, prompt: str) -> str:
    return (
        "REDIRECT DETECTED: The URL redirects to a location that was not fetched"
        " automatically.\n\n"
        f"    Original URL: {original}\n"
        "    Redirect URL (from the server's Location header \u2014 server-supplied, not"
        f" verified): {target}\n"
        f"    Status: {status} {_phrase(status)}\n\n"
        "    To complete your request, I need to fetch content from the redirected URL. Please"
        " use WebFetch again with these parameters:\n"
        f'    - url: "{target}"\n'
        f'    - prompt: "{prompt}"'
    )


async def _fetch(url: str, prompt: str) -> str:
    """The page at ``url`` as Markdown (or its text), following same-host redirects."""
    import httpx2  # only when a page is fetched

    from dsh.tools.builtin._html_markdown import html_to_markdown

    timeout = httpx2.Timeout(TIMEOUT_SECONDS)
    async with httpx2.AsyncClient(timeout=timeout, verify=_trust(), follow_redirects=False) as c:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            async with c.stream("GET", current, headers=_ACCEPT) as r:
                if r.is_redirect and "location" in r.headers:
                    target = urljoin(current, r.headers["location"])
                    if urlsplit(target).hostname != urlsplit(current).hostname:
                        raise _Answer(_redirect(current, target, r.status_code, prompt))
                    current = target
                    continue
                if not 200 <= r.status_code < 300:
                    reason = r.reason_phrase or _phrase(r.status_code)
                    raise _Answer(
                        f"The server returned HTTP {r.status_code} {reason}.\n\nThe response"
                        " body was not retrieved. If this URL requires authentication, use an"
                        " authenticated tool (e.g. `gh` for GitHub, or an MCP-provided fetch"
                        " tool) instead of WebFetch."
                    )
                body = bytearray()
                async for chunk in r.aiter_bytes():
                    body += chunk[: MAX_BODY_BYTES - len(body)]
                    if len(body) >= MAX_BODY_BYTES:
                        break
                text = bytes(body).decode(r.encoding or "utf-8", errors="replace")
                kind = r.headers.get("content-type", "")
                return html_to_markdown(text) if "html" in kind else text
    raise _Answer(ToolResult.error(f"WebFetch stopped after {MAX_REDIRECTS} redirects: {url}"))


async def _page(invocation: ToolInvocation, url: str, prompt: str) -> str:
    pages: dict[str, tuple[float, str]] = invocation.workspace.session_state.setdefault(
        _CACHE_KEY, {}
    )
    now = time.monotonic()
    kept = pages.get(url)
    if kept is not None and now - kept[0] < CACHE_SECONDS:
        return kept[1]
    page = await _fetch(url, prompt)
    pages[url] = (now, page)
    return page


async def run(invocation: ToolInvocation) -> ToolResult:
    args: dict[str, Any] = thaw_json(invocation.arguments)
    prompt, offset = str(args["prompt"]), int(args.get("offset") or 0)
    started = time.monotonic()
    url = str(args["url"])
    try:
        url = _checked_url(url)
        reader = invocation.ctx.get(PAGE_READER) if invocation.ctx is not None else None
        if reader is None:
            return ToolResult.error("WebFetch needs a model to read the page, and has none here")
        page = await _page(invocation, url, prompt)
        if offset and offset >= len(page):
            raise _Answer(
                f"Nothing left to read from offset {offset}: this page's text is"
                f" {len(page)} characters long."
            )
    except _Answer as answer:
        if isinstance(answer.result, ToolResult):
            return answer.result
        return ToolResult.ok(answer.result, output=_output(url, "", answer.result, started))
    except Exception as exc:  # a failure of the fetch (network, TLS, decoding) is the result
        return ToolResult.error(f"WebFetch could not fetch {url}: {exc or type(exc).__name__}")
    try:
        reply = await reader(page_prompt(page, prompt, offset))
    except Exception as exc:  # the model's failure, named (its client words it)
        return ToolResult.error(f"WebFetch could not read the page: {exc}")
    text = reply + _note(len(page), offset)
    return ToolResult.ok(text, output=_output(url, page, text, started))


def _output(url: str, page: str, result: str, started: float) -> dict[str, Any]:
    """The ``tool_response``: 2.1.332's keys for a fetched page."""
    return {
        "bytes": len(page.encode()),
        "code": 200,
        "codeText": "OK",
        "result": result,
        "durationMs": round((time.monotonic() - started) * 1000),
        "url": url,
    }


def present_web_fetch(output: Any) -> Content:
    """The model's text of a WebFetch ``tool_response``: its result."""
    return str(output.get("result", ""))


present = present_web_fetch
