"""A cheap HTTP/1.1 client for server-only comparisons: plain sockets, one thread.

`RawHttpClient` keeps N keep-alive connections, each with one POST in flight: as soon
as an answer is read whole on a connection, the next request goes out on it (a
closed loop, the way N clients calling one at a time load a server). It parses just
enough HTTP/1.1 to find the end of an answer (a Content-Length body, or a chunked
one, which is how SSE answers come) and never decodes JSON, so the same client costs
the same against every server and the server's CPU time is what differs.

`server_cpu_seconds` reads a process's CPU time, all threads, from ``/proc``
(``schedstat``: nanoseconds on the CPU), falling back to ``stat`` (clock ticks).
"""

from __future__ import annotations

import os
import select
import selectors
import socket
import subprocess
from collections.abc import Callable, Sequence
from typing import Final

__all__ = ["RawHttpClient", "RawLineClient", "post", "server_cpu_seconds"]

_READ: Final = 65536
_WAIT_SECONDS: Final = 30.0


def post(target: str, host: str, headers: Sequence[tuple[str, str]], body: bytes) -> bytes:
    """The bytes of one POST with a Content-Length."""
    lines = [f"POST {target} HTTP/1.1", f"host: {host}", f"content-length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class _Answer:
    """An answer being read: its head, then its body by length or by chunks."""

    __slots__ = ("body", "buffer", "done", "headers", "status")

    def __init__(self) -> None:
        self.buffer = b""
        self.status = 0
        self.headers: dict[str, str] = {}
        self.body = b""
        self.done = False

    def feed(self, data: bytes) -> bytes:
        """Take bytes; returns what is left over past the end of this answer."""
        self.buffer += data
        if not self.status:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return b""
            head = self.buffer[:end].decode("latin-1").split("\r\n")
            self.status = int(head[0].split(" ", 2)[1])
            for line in head[1:]:
                name, _, value = line.partition(":")
                self.headers[name.strip().lower()] = value.strip()
            self.buffer = self.buffer[end + 4 :]
        if "content-length" in self.headers:
            size = int(self.headers["content-length"])
            if len(self.buffer) < size:
                return b""
            self.body, rest = self.buffer[:size], self.buffer[size:]
            self.done = True
            return rest
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            return self._chunks()
        raise RuntimeError(f"an answer without a length: {self.headers}")

    def _chunks(self) -> bytes:
        body = bytearray()
        at = 0
        buffer = self.buffer
        while True:
            line_end = buffer.find(b"\r\n", at)
            if line_end < 0:
                return b""
            size = int(buffer[at:line_end].split(b";")[0], 16)
            start = line_end + 2
            if len(buffer) < start + size + 2:
                return b""
            if size == 0:
                # No trailers are sent by the servers measured here.
                self.body = bytes(body)
                self.done = True
                return buffer[start + 2 :]
            body += buffer[start : start + size]
            at = start + size + 2


class RawHttpClient:
    """``connections`` keep-alive connections to ``host:port``, driven in one thread."""

    def __init__(self, host: str, port: int, connections: int) -> None:
        self.host = host
        self.port = port
        self.sockets = [
            socket.create_connection((host, port), timeout=_WAIT_SECONDS)
            for _ in range(connections)
        ]
        for sock in self.sockets:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def close(self) -> None:
        for sock in self.sockets:
            sock.close()

    def exchange(self, sock: socket.socket, request: bytes) -> _Answer:
        """One request on one connection, waited for: for set-up steps."""
        sock.sendall(request)
        answer = _Answer()
        while not answer.done:
            data = sock.recv(_READ)
            if not data:
                raise RuntimeError("the server closed the connection")
            answer.feed(data)
        return answer

    def run(self, calls: int, request_for: Callable[[int], bytes]) -> None:
        """Make ``calls`` calls, each connection ``i`` sending ``request_for(i)``
        again as soon as its previous answer is whole.

        Raises:
            RuntimeError: an answer was not a 200, or a connection closed.
        """
        selector = selectors.DefaultSelector()
        answers: dict[int, _Answer] = {}
        sent = 0
        for index, sock in enumerate(self.sockets):
            if sent == calls:
                break
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, index)
            sock.sendall(request_for(index))
            answers[index] = _Answer()
            sent += 1
        done = 0
        try:
            while done < calls:
                ready = selector.select(timeout=_WAIT_SECONDS)
                if not ready:
                    raise RuntimeError(f"no answer in {_WAIT_SECONDS} s")
                for key, _ in ready:
                    index = key.data
                    sock = self.sockets[index]
                    data = sock.recv(_READ)
                    if not data:
                        raise RuntimeError("the server closed the connection")
                    answer = answers[index]
                    rest = answer.feed(data)
                    if not answer.done:
                        continue
                    if answer.status not in (200, 202):
                        raise RuntimeError(f"answered {answer.status}: {answer.body[:200]!r}")
                    if rest:
                        raise RuntimeError("bytes past the end of an answer")
                    done += 1
                    if sent < calls:
                        answers[index] = _Answer()
                        sock.sendall(request_for(index))
                        sent += 1
        finally:
            selector.close()
            for sock in self.sockets:
                sock.setblocking(True)


def server_cpu_seconds(pid: int) -> float:
    """CPU time (user + system) that process ``pid`` has used, all its threads."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as file:
                total += int(file.read().split()[0])
        return total / 1e9
    except (FileNotFoundError, ProcessLookupError, ValueError):
        pass
    with open(f"/proc/{pid}/stat", "rb") as file:
        fields = file.read().rsplit(b")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


class RawLineClient:
    """A server in a child process, driven over its stdin/stdout one line a message:
    ``in_flight`` lines out at once, the next one written as each answer line comes."""

    def __init__(
        self,
        argv: Sequence[str],
        env: dict[str, str] | None = None,
        wait_seconds: float = _WAIT_SECONDS,
    ) -> None:
        #: How long to wait for an answer (a server under valgrind starts slowly).
        self.wait_seconds = wait_seconds
        self.process = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, env=env
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in = self.process.stdin
        self._out = self.process.stdout.fileno()
        self._buffer = b""

    @property
    def pid(self) -> int:
        return self.process.pid

    def close(self) -> None:
        self._in.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _lines(self) -> list[bytes]:
        while b"\n" not in self._buffer:
            if not select.select([self._out], [], [], self.wait_seconds)[0]:
                raise RuntimeError(f"no answer in {self.wait_seconds} s")
            data = os.read(self._out, _READ)
            if not data:
                raise RuntimeError("the server closed its output")
            self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        return lines

    def exchange(self, line: bytes, answers: int = 1) -> list[bytes]:
        """Write one line, read ``answers`` lines (0 for a notification)."""
        self._in.write(line + b"\n")
        got: list[bytes] = []
        while len(got) < answers:
            got.extend(self._lines())
        return got

    def run(self, calls: int, in_flight: int, request_for: Callable[[int], bytes]) -> None:
        """``calls`` requests, ``in_flight`` at a time; every line read is an answer."""
        sent = min(calls, in_flight)
        self._in.write(b"".join(request_for(i) + b"\n" for i in range(sent)))
        done = 0
        while done < calls:
            lines = self._lines()
            done += len(lines)
            more = min(len(lines), calls - sent)
            if more > 0:
                self._in.write(b"".join(request_for(sent + i) + b"\n" for i in range(more)))
                sent += more
