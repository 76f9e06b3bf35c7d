"""A loopback TCP server that answers with whatever bytes a test scripts, hostile ones included.

Each accepted connection runs ``script(conn)`` in its own thread, where ``conn``
reads requests (``request()``: the head and a ``Content-Length`` body) and
sends raw bytes. ``closed`` is set for a connection once the client closed it
(the script's ``wait_for_close``), ``requests`` holds every request read.
"""

from __future__ import annotations

import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Request:
    line: str
    headers: dict[str, str]
    body: bytes
    head: bytes = b""  # as sent


@dataclass
class RawConn:
    sock: socket.socket
    server: RawServer
    buffer: bytes = b""
    index: int = 0

    def request(self) -> Request | None:
        """The next request on this connection, or None when the client closed it."""
        while b"\r\n\r\n" not in self.buffer:
            data = self.sock.recv(65536)
            if not data:
                return None
            self.buffer += data
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        line, *fields = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (f.partition(":") for f in fields)}
        length = int(headers.get("content-length", "0"))
        while len(self.buffer) < length:
            data = self.sock.recv(65536)
            if not data:
                return None
            self.buffer += data
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        request = Request(line, headers, body, head)
        with self.server.lock:
            self.server.requests.append(request)
        return request

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def trickle(self, data: bytes, every: float) -> None:
        """One byte at a time (a slow loris), until the client goes."""
        for i in range(len(data)):
            self.sock.sendall(data[i : i + 1])
            time.sleep(every)

    def reset(self) -> None:
        """Close with a TCP reset (SO_LINGER 0), as a crashed peer or a middlebox does."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()

    def wait_for_close(self, limit: float = 30) -> bool:
        """Reads until the client closes (True) or ``limit`` seconds pass."""
        self.sock.settimeout(limit)
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass
        return True


@dataclass
class RawServer:
    script: Callable[[RawConn], None]
    tls: ssl.SSLContext | None = None
    requests: list[Request] = field(default_factory=list)
    connections: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    closed: threading.Event = field(default_factory=threading.Event)
    errors: list[BaseException] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        scheme = "https" if self.tls else "http"
        host = "localhost" if self.tls else "127.0.0.1"
        self.url = f"{scheme}://{host}:{self.port}/v1"
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        self.listener.settimeout(0.02)  # to see the stop: closing does not wake accept()
        while not self._stop:
            try:
                sock, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.settimeout(None)
            threading.Thread(target=self._run, args=(sock,), daemon=True).start()

    def _run(self, sock: socket.socket) -> None:
        with self.lock:
            self.connections += 1
            index = self.connections
        try:
            if self.tls is not None:
                sock = self.tls.wrap_socket(sock, server_side=True)
            self.script(RawConn(sock, self, index=index))
        except OSError:
            pass  # the client went away: what a hostile script is for
        except BaseException as e:  # a broken script shows in the test, not as a hang
            self.errors.append(e)
        finally:
            self.closed.set()
            sock.close()


@contextmanager
def raw_serving(
    script: Callable[[RawConn], None], tls: ssl.SSLContext | None = None
) -> Iterator[RawServer]:
    server = RawServer(script, tls)
    server._thread.start()
    try:
        yield server
    finally:
        server._stop = True
        server._thread.join(timeout=5)
        server.listener.close()
        assert not server.errors, server.errors


def sse(*events: str) -> bytes:
    return b"".join(f"data: {e}\n\n".encode() for e in events)


CHUNK_HI = '{"choices":[{"index":0,"delta":{"content":"hi"}}]}'
COMPLETION_OK = b'{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"}}]}'
