"""The sandbox's network by domain: a filtering HTTP and SOCKS5 proxy that a sandboxed
command reaches in a network namespace of its own (Claude Code's ``network.allowedDomains``,
Codex's permission profiles' ``domains``).

A command whose policy is proxied runs in a **new network namespace** (made by the child
between ``fork`` and ``exec``, ``child_network``): only its loopback, brought up, and on it
two listening sockets the child made there, ``127.0.0.1:3128`` (HTTP) and ``127.0.0.1:1080``
(SOCKS5), handed to dsh over a socket pair before it ``exec``\\ s. dsh serves the proxy on
them (``ProxyServer``, in its own event loop, in its own network namespace: the only way out
of the command's), and the command finds it through the variables ``proxy_environment``
gives (dsh's, or Claude Code 2.1.332's Linux set). The seccomp filter then lets
``AF_INET``/``AF_INET6`` sockets be made: they reach nothing but that loopback, where the
command may also listen and connect to itself (Claude Code's ``allowLocalBinding`` is
ignored on Linux for that reason: the loopback is the namespace's own).

The HTTP side takes ``CONNECT host:port`` (a tunnel: HTTPS, anything over TCP) and plain
HTTP requests in absolute form (``GET http://host/path``); the SOCKS side SOCKS5's
``CONNECT`` (no authentication, a name or an address). Each goes to a host ``allowed``
accepts: one of the allowed domains (``example.com`` itself, ``*.example.com`` its
subdomains only, as in Claude Code's sandbox), none of the denied ones (which win); a host
neither lists is **asked about** when the rules say so (``ask``: Claude Code's "Network
request outside of sandbox", through dsh's approval seam), else refused. A refusal is
``403 Forbidden`` (``X-Proxy-Error: blocked-by-allowlist``) with a line saying which host
(SOCKS: reply ``02``, not allowed by the ruleset); an unreachable host ``502`` (SOCKS
``04``). A plain request goes upstream with ``Connection: close``, so a second request on
the connection cannot reach another host unchecked. With the user's own proxy
(``httpProxyPort``/``socksProxyPort``) that side is relayed, byte for byte and unfiltered, to
``127.0.0.1:PORT`` on the host: the user's proxy decides, as in Claude Code.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import ipaddress
import socket
import struct
from collections.abc import Awaitable, Callable, Sequence
from typing import Final, Literal, final

from dsh._frozen import frozen

__all__ = [
    "PROXY_PORT",
    "SOCKS_PORT",
    "ProxyRules",
    "ProxyServer",
    "allowed",
    "child_network",
    "proxy_environment",
]

PROXY_PORT: Final = 3128
"""The HTTP proxy's port on the command's own loopback (the namespace is new: always free)."""
SOCKS_PORT: Final = 1080
"""The SOCKS5 proxy's port there (Claude Code 2.1.332's two ports)."""
_SIOCSIFFLAGS: Final = 0x8914
_IFF_UP, _IFF_RUNNING = 0x1, 0x40
_HEAD_BOUND: Final = 64 * 1024
_CONNECT_TIMEOUT: Final = 15.0
_CHUNK: Final = 64 * 1024
_NO_PROXY: Final = "localhost,127.0.0.1,::1,169.254.0.0/16,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16"

Asker = Callable[[str], Awaitable[bool]]
"""Asks whether a sandboxed command may reach a host no rule lists (``True``: allowed)."""


@final
@frozen
class ProxyRules:
    """What the proxy lets through: the domains, and the user's own proxies' ports."""

    allowed: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()
    ask: bool = False
    http_port: int | None = None
    socks_port: int | None = None


def proxy_environment(
    style: Literal["dsh", "claude"] = "dsh",
    http_port: int | None = None,
    socks_port: int | None = None,
) -> dict[str, str]:
    """The variables that send a command's clients through the proxy: dsh's own, or what
    Claude Code 2.1.332 sets for a sandboxed command on Linux (its ``HTTP_PROXY`` family,
    ``ALL_PROXY`` to the HTTP side, ``FTP_PROXY`` and ``RSYNC_PROXY`` to the SOCKS side,
    ``NO_PROXY`` for the loopback and private ranges, ``GIT_SSH_COMMAND`` through ``socat``,
    and the host's own proxy ports when the user set them)."""
    if style == "dsh":
        url = f"http://127.0.0.1:{PROXY_PORT}"
        names = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
        env = dict.fromkeys(names, url) | {name.lower(): url for name in names}
        return env | {"NO_PROXY": "", "no_proxy": ""}
    http = f"http://localhost:{PROXY_PORT}"
    socks = f"socks5h://localhost:{SOCKS_PORT}"
    env = {"SANDBOX_RUNTIME": "1", "NO_PROXY": _NO_PROXY, "no_proxy": _NO_PROXY}
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "GRPC_PROXY"):
        env[name] = env[name.lower()] = http
    env |= {"FTP_PROXY": socks, "ftp_proxy": socks, "RSYNC_PROXY": f"localhost:{SOCKS_PORT}"}
    env |= {"DOCKER_HTTP_PROXY": http, "DOCKER_HTTPS_PROXY": http}
    env |= {"CLOUDSDK_PROXY_TYPE": "http", "CLOUDSDK_PROXY_ADDRESS": "localhost"}
    env["CLOUDSDK_PROXY_PORT"] = str(PROXY_PORT)
    env["GIT_SSH_COMMAND"] = (
        "ssh -o ControlMaster=no -o ControlPath=none -o ProxyCommand="
        f"'socat - PROXY:localhost:%h:%p,proxyport={PROXY_PORT}'"
    )
    if http_port is not None:
        env["CLAUDE_CODE_HOST_HTTP_PROXY_PORT"] = str(http_port)
    if socks_port is not None:
        env["CLAUDE_CODE_HOST_SOCKS_PROXY_PORT"] = str(socks_port)
    return env


def child_network(handover: int) -> None:
    """In the child (its new network namespace made): loopback up, the proxy's two listening
    sockets made on it and sent to dsh over ``handover`` (HTTP's, then SOCKS')."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH22x", b"lo", _IFF_UP | _IFF_RUNNING)
        fcntl.ioctl(probe.fileno(), _SIOCSIFFLAGS, request)
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as http,
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as socks,
    ):
        for listener, port in ((http, PROXY_PORT), (socks, SOCKS_PORT)):
            listener.bind(("127.0.0.1", port))
            listener.listen(128)
        with socket.socket(fileno=handover) as channel:
            socket.send_fds(channel, [b"L"], [http.fileno(), socks.fileno()])


def _host(text: str) -> str:
    host = text.strip().lower().rstrip(".")
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def allowed(host: str, allowed_domains: Sequence[str], denied_domains: Sequence[str]) -> bool:
    """Whether ``host`` may be reached: it matches an allowed domain and no denied one
    (``*.example.com``: a subdomain of ``example.com``, not itself)."""
    return _listed(host, allowed_domains) and not _listed(host, denied_domains)


def _listed(host: str, patterns: Sequence[str]) -> bool:
    name = _host(host)

    def matches(pattern: str) -> bool:
        wanted = _host(pattern)
        if wanted.startswith("*."):
            return name.endswith(wanted[1:])
        return name == wanted

    return any(matches(p) for p in patterns)


@final
class ProxyServer:
    """The proxy on one command's two listening sockets (received from its child), until
    ``close``; ``ask`` settles a host no rule lists (``None``: refused)."""

    def __init__(
        self,
        listeners: Sequence[socket.socket],
        rules: ProxyRules,
        ask: Asker | None = None,
    ) -> None:
        self._listeners = list(listeners)
        self._rules = rules
        self._ask = ask if rules.ask else None
        self._servers: list[asyncio.Server] = []
        self._opening: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        """Serve in the running event loop (connections wait in the backlog meanwhile)."""
        for listener in self._listeners:
            listener.setblocking(False)
        self._opening = asyncio.get_running_loop().create_task(self._open())

    async def _open(self) -> None:
        http, *rest = self._listeners
        sides = [(http, self._rules.http_port, self._serve_http)]
        sides += [(socks, self._rules.socks_port, self._serve_socks) for socks in rest]
        for listener, port, serve in sides:
            handler = serve if port is None else self._relay_to(port)
            self._servers.append(await asyncio.start_server(self._guard(handler), sock=listener))

    def close(self) -> None:
        """Stop serving: the listening sockets and every connection still open."""
        if self._opening is not None:
            self._opening.cancel()
        for server in self._servers:
            server.close()
        for listener in self._listeners:
            with contextlib.suppress(OSError):
                listener.close()
        for task in list(self._tasks):
            task.cancel()

    def _guard(
        self, handler: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
    ) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            if task is not None:
                self._tasks.add(task)
            try:
                await handler(reader, writer)
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
                pass
            finally:
                if task is not None:
                    self._tasks.discard(task)
                writer.close()

        return serve

    async def _permitted(self, host: str) -> bool:
        """Whether ``host`` may be reached: listed, or (unlisted, not denied) allowed when
        asked."""
        if _listed(host, self._rules.denied):
            return False
        if _listed(host, self._rules.allowed):
            return True
        return self._ask is not None and await self._ask(_host(host))

    def _relay_to(
        self, port: int
    ) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]:
        async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            """The user's own proxy decides: every byte both ways, unfiltered."""
            try:
                upstream_reader, upstream = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", port), _CONNECT_TIMEOUT
                )
            except (OSError, TimeoutError):
                return  # nothing listens there: the command sees its connection closed
            await _relay(reader, writer, upstream_reader, upstream)

        return relay

    async def _serve_http(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
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
        if not await self._permitted(host):
            await _refuse(writer, 403, "Forbidden", _not_allowed(host), blocked=True)
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

    async def _serve_socks(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """SOCKS5 (RFC 1928): no authentication, ``CONNECT`` only."""
        version, count = await reader.readexactly(2)
        methods = await reader.readexactly(count)
        if version != 5 or 0 not in methods:
            writer.write(b"\x05\xff")  # no acceptable method
            return
        writer.write(b"\x05\x00")
        version, command, _, kind = await reader.readexactly(4)
        if kind == 1:
            host = str(ipaddress.IPv4Address(await reader.readexactly(4)))
        elif kind == 4:
            host = str(ipaddress.IPv6Address(await reader.readexactly(16)))
        elif kind == 3:
            host = (await reader.readexactly((await reader.readexactly(1))[0])).decode("idna")
        else:
            writer.write(_socks_reply(8))  # address type not supported
            return
        (port,) = struct.unpack("!H", await reader.readexactly(2))
        if version != 5 or command != 1:
            writer.write(_socks_reply(7))  # command not supported
            return
        if not await self._permitted(host):
            writer.write(_socks_reply(2))  # not allowed by the ruleset
            return
        try:
            upstream_reader, upstream = await asyncio.wait_for(
                asyncio.open_connection(_host(host), port), _CONNECT_TIMEOUT
            )
        except (OSError, TimeoutError):
            writer.write(_socks_reply(4))  # host unreachable
            return
        writer.write(_socks_reply(0))
        await _relay(reader, writer, upstream_reader, upstream)


def _socks_reply(code: int) -> bytes:
    return bytes([5, code, 0, 1, 0, 0, 0, 0, 0, 0])


def _not_allowed(host: str) -> str:
    return f"dsh: the sandbox's network does not allow {_host(host)} (network.allowedDomains)"


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
