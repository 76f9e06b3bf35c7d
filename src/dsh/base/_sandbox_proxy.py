"""The sandbox's network by domain: a filtering HTTP proxy that a sandboxed command reaches
in a network namespace of its own (Claude Code's ``network.allowedDomains``).

A command whose policy lists domains runs in a **new network namespace** (made by the child
between ``fork`` and ``exec``, ``child_network``): only its loopback, brought up, and on it,
at ``127.0.0.1:PORT``, a listening socket the child made there and handed to dsh over a
socket pair before it ``exec``\\ s. dsh serves the proxy on that socket (``ProxyServer``, in
its own event loop, in its own network namespace: the only way out of the command's), and
the command finds it through ``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY`` (both cases).
The seccomp filter then lets ``AF_INET``/``AF_INET6`` sockets be made: they reach nothing
but that loopback.

The proxy takes ``CONNECT host:port`` (a tunnel: HTTPS, anything over TCP) and plain HTTP
requests in absolute form (``GET http://host/path``), each to a host ``allowed`` accepts:
one of ``allowed_domains`` (``example.com`` itself, ``*.example.com`` its subdomains only,
as in Claude Code's sandbox), none of ``denied_domains`` (which win). Anything else gets
``403 Forbidden`` (``X-Proxy-Error: blocked-by-allowlist``) and a line saying which host;
an unreachable host ``502``. A plain request goes upstream with ``Connection: close``, so a
second request on the connection cannot reach another host unchecked.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import socket
import struct
from collections.abc import Sequence
from typing import Final, final

__all__ = ["PROXY_PORT", "ProxyServer", "allowed", "child_network", "proxy_environment"]

PROXY_PORT: Final = 3128
"""The proxy's port on the command's own loopback (the namespace is new: always free)."""
_SIOCSIFFLAGS: Final = 0x8914
_IFF_UP, _IFF_RUNNING = 0x1, 0x40
_HEAD_BOUND: Final = 64 * 1024
_CONNECT_TIMEOUT: Final = 15.0
_CHUNK: Final = 64 * 1024


def proxy_environment() -> dict[str, str]:
    """The variables that send a command's HTTP clients through the proxy."""
    url = f"http://127.0.0.1:{PROXY_PORT}"
    names = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
    env = dict.fromkeys(names, url) | {name.lower(): url for name in names}
    return env | {"NO_PROXY": "", "no_proxy": ""}


def child_network(handover: int) -> None:
    """In the child (its new network namespace made): loopback up, the proxy's listening
    socket made on it and sent to dsh over ``handover`` (one byte, the descriptor)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH22x", b"lo", _IFF_UP | _IFF_RUNNING)
        fcntl.ioctl(probe.fileno(), _SIOCSIFFLAGS, request)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", PROXY_PORT))
        listener.listen(128)
        with socket.socket(fileno=handover) as channel:
            socket.send_fds(channel, [b"L"], [listener.fileno()])


def _host(text: str) -> str:
    host = text.strip().lower().rstrip(".")
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def allowed(host: str, allowed_domains: Sequence[str], denied_domains: Sequence[str]) -> bool:
    """Whether ``host`` may be reached: it matches an allowed domain and no denied one
    (``*.example.com``: a subdomain of ``example.com``, not itself)."""
    name = _host(host)

    def matches(pattern: str) -> bool:
        wanted = _host(pattern)
        if wanted.startswith("*."):
            return name.endswith(wanted[1:])
        return name == wanted

    return any(matches(p) for p in allowed_domains) and not any(matches(p) for p in denied_domains)


@final
class ProxyServer:
    """The proxy on one command's listening socket (received from its child), until
    ``close``."""

    def __init__(
        self, listener: socket.socket, allowed_domains: Sequence[str], denied_domains: Sequence[str]
    ) -> None:
        self._listener = listener
        self._allowed = tuple(allowed_domains)
        self._denied = tuple(denied_domains)
        self._server: asyncio.Server | None = None
        self._opening: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        """Serve in the running event loop (connections wait in the backlog meanwhile)."""
        self._listener.setblocking(False)
        self._opening = asyncio.get_running_loop().create_task(self._open())

    async def _open(self) -> None:
        self._server = await asyncio.start_server(self._serve, sock=self._listener)

    def close(self) -> None:
        """Stop serving: the listening socket and every connection still open."""
        if self._opening is not None:
            self._opening.cancel()
        if self._server is not None:
            self._server.close()
        with contextlib.suppress(OSError):
            self._listener.close()
        for task in list(self._tasks):
            task.cancel()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._one(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > _HEAD_BOUND:
            raise ValueError("request head too long")
        line, _, rest = head.partition(b"\r\n")
        method, target, version = line.decode("latin-1").split(" ", 2)
        if method.upper() == "CONNECT":
            host, _, port = target.rpartition(":")
            path = b""
        else:
            scheme, _, remainder = target.partition("://")
            if scheme.lower() != "http" or not remainder:
                await _refuse(writer, 400, "Bad Request", "a proxy request needs an http:// URL")
                return
            authority, slash, tail = remainder.partition("/")
            host, colon, port = authority.rpartition(":")
            if not colon or "]" in port:
                host, port = authority, "80"
            path = f"{method} /{tail if slash else ''} {version}".encode("latin-1")
        if not allowed(host, self._allowed, self._denied):
            why = (
                f"dsh: the sandbox's network does not allow {_host(host)} (network.allowedDomains)"
            )
            await _refuse(writer, 403, "Forbidden", why, blocked=True)
            return
        try:
            upstream_reader, upstream = await asyncio.wait_for(
                asyncio.open_connection(_host(host), int(port)), _CONNECT_TIMEOUT
            )
        except (OSError, ValueError, TimeoutError) as exc:
            await _refuse(writer, 502, "Bad Gateway", f"dsh: cannot reach {host}:{port}: {exc}")
            return
        if method.upper() == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        else:
            upstream.write(path + b"\r\n" + _forwarded_headers(rest))
        await _relay(reader, writer, upstream_reader, upstream)


def _forwarded_headers(rest: bytes) -> bytes:
    """The request's headers for the origin: no proxy headers, ``Connection: close``."""
    kept = [
        h
        for h in rest.split(b"\r\n")
        if h and not h.lower().startswith((b"proxy-", b"connection:", b"keep-alive:"))
    ]
    return b"\r\n".join([*kept, b"Connection: close", b"", b""])


async def _refuse(
    writer: asyncio.StreamWriter, code: int, reason: str, text: str, *, blocked: bool = False
) -> None:
    body = (text + "\n").encode()
    extra = b"X-Proxy-Error: blocked-by-allowlist\r\n" if blocked else b""
    writer.write(
        f"HTTP/1.1 {code} {reason}\r\nContent-Type: text/plain\r\n".encode()
        + extra
        + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    await writer.drain()


async def _relay(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    upstream_reader: asyncio.StreamReader,
    upstream: asyncio.StreamWriter,
) -> None:
    async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await source.read(_CHUNK):
                sink.write(data)
                await sink.drain()
            if sink.can_write_eof():
                sink.write_eof()

    try:
        await asyncio.gather(pump(reader, upstream), pump(upstream_reader, writer))
    finally:
        upstream.close()
