"""The stdio transport's byte layer: StdioStream, the server side and the client side.

Every test runs under asyncio and trio. Children are small Python scripts; the server-side
tests run `stdio_server_stream` in the child, on the same backend as the test.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import tracemalloc
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from limits import HANG

from mcp_core.wire import LineTooLong
from mcp_core.wire.framing import HEAD_BYTES
from transports.stdio_process import INHERITED_ENV_VARS, StdioProcess, open_stdio_process
from transports.stdio_streams import StdioStream

pytestmark = pytest.mark.anyio

#: Seconds any one test may take; every wait below is bounded by it.
LIMIT = HANG
#: Short enough to keep the shutdown-ladder tests quick, long enough for a loaded machine to
#: start a Python child's signal handlers before they matter (each test waits for "ready").
LADDER = 0.3


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def py(code: str, *args: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code), *args]


ECHO = py(
    """
    import sys
    for line in sys.stdin.buffer:
        sys.stdout.buffer.write(line)
        sys.stdout.flush()
    """
)


async def receive_all(stream: StdioStream) -> list[bytes | LineTooLong]:
    return [item async for item in stream]


async def received(stream: StdioStream) -> bytes:
    """The next item, which must be a message."""
    item = await stream.receive()
    assert isinstance(item, bytes)
    return item


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody has reaped yet counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


async def wait_dead(pid: int) -> None:
    # Not our child, so there is nothing to wait on but its /proc entry.
    while alive(pid):
        await anyio.sleep(0.02)


# -- StdioStream on plain pipes, in process ---------------------------------------------------


class Pipes:
    """Two pipes, unpacked as (our_read, peer_write, peer_read, our_write).

    Teardown closes what is still open; a test that closes a descriptor says so, so that
    teardown never closes a number the event loop has reused since.
    """

    def __init__(self) -> None:
        our_r, peer_w = os.pipe()
        peer_r, our_w = os.pipe()
        self.fds = (our_r, peer_w, peer_r, our_w)
        self.open = set(self.fds)

    def __iter__(self) -> Iterator[int]:
        return iter(self.fds)

    def close(self, fd: int) -> None:
        os.close(fd)
        self.closed_elsewhere(fd)

    def closed_elsewhere(self, *fds: int) -> None:
        self.open.difference_update(fds)


@pytest.fixture
def pipes() -> Iterator[Pipes]:
    pair = Pipes()
    yield pair
    for fd in pair.open:
        os.close(fd)


async def test_stream_frames_and_restores_flags(pipes: Pipes) -> None:
    our_r, peer_w, peer_r, our_w = pipes
    stream = StdioStream(our_r, our_w, close_fds=False)
    assert not os.get_blocking(our_r) and not os.get_blocking(our_w)
    os.write(peer_w, b'{"a":\r\n\n  \n{"b":2}\r\n{"c":')
    os.write(peer_w, b"3}\n")
    with anyio.fail_after(LIMIT):
        assert await stream.receive() == b'{"a":'
        assert await stream.receive() == b'{"b":2}'
        assert await stream.receive() == b'{"c":3}'
        await stream.send(b'{"out":1}')
    assert os.read(peer_r, 100) == b'{"out":1}\n'
    await stream.aclose()
    await stream.aclose()  # idempotent
    assert os.get_blocking(our_r) and os.get_blocking(our_w)
    with pytest.raises(anyio.ClosedResourceError):
        await stream.receive()
    with pytest.raises(anyio.ClosedResourceError):
        await stream.send(b"{}")


async def test_stream_refuses_bad_items(pipes: Pipes) -> None:
    our_r, _, peer_r, our_w = pipes
    stream = StdioStream(our_r, our_w, close_fds=False)
    with pytest.raises(ValueError):
        await stream.send(b'{"a":\n1}')
    with pytest.raises(TypeError):
        await stream.send(LineTooLong(10))
    await stream.send(b"{}")  # still usable
    assert os.read(peer_r, 100) == b"{}\n"
    await stream.aclose()


async def test_stream_final_line_without_newline(pipes: Pipes) -> None:
    our_r, peer_w, _, our_w = pipes
    stream = StdioStream(our_r, our_w, max_line_bytes=8, close_fds=False)
    os.write(peer_w, b"x" * 20 + b'\n{"a":1}\r')
    pipes.close(peer_w)
    with anyio.fail_after(LIMIT):
        assert await receive_all(stream) == [LineTooLong(9, b"x" * 9), b'{"a":1}']
        with pytest.raises(anyio.EndOfStream):
            await stream.receive()
    await stream.aclose()


async def test_aclose_wakes_blocked_receive_and_send(pipes: Pipes) -> None:
    our_r, _, _, our_w = pipes
    stream = StdioStream(our_r, our_w, close_fds=False)
    errors: list[type[BaseException]] = []

    async def run(op: Callable[[], Awaitable[object]]) -> None:
        try:
            await op()
        except Exception as exc:
            errors.append(type(exc))

    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run, stream.receive)
            # Far more than a pipe holds and nobody reads: the send blocks.
            tg.start_soon(run, lambda: stream.send(b"x" * (1 << 20)))
            await anyio.sleep(0.05)
            await stream.aclose()
    assert errors == [anyio.ClosedResourceError, anyio.ClosedResourceError]


async def test_two_receivers_are_refused(pipes: Pipes) -> None:
    our_r, peer_w, _, our_w = pipes
    stream = StdioStream(our_r, our_w, close_fds=False)
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(stream.receive)
            await anyio.sleep(0.05)
            with pytest.raises(anyio.BusyResourceError):
                await stream.receive()
            os.write(peer_w, b"{}\n")
    await stream.aclose()


async def test_send_cancelled_mid_message_breaks_the_stream(
    pipes: Pipes,
) -> None:
    our_r, _, _, our_w = pipes
    stream = StdioStream(our_r, our_w, close_fds=False)
    with anyio.move_on_after(0.1):
        await stream.send(b"x" * (1 << 20))  # the first 64 KiB go out, then it blocks
    # Glueing the next message onto the torn line would corrupt both.
    with pytest.raises(anyio.BrokenResourceError):
        await stream.send(b"{}")
    await stream.aclose()


async def test_send_cancelled_before_writing_keeps_the_stream(
    pipes: Pipes,
) -> None:
    our_r, _, peer_r, our_w = pipes
    stream = StdioStream(our_r, our_w, close_fds=False)
    filled = 0
    try:
        while True:
            filled += os.write(our_w, b"." * 4096)
    except BlockingIOError:
        pass
    with anyio.move_on_after(0.05) as scope:
        await stream.send(b"{}")
    assert scope.cancelled_caught
    while filled:
        filled -= len(os.read(peer_r, filled))
    with anyio.fail_after(LIMIT):
        await stream.send(b'{"ok":1}')
    assert os.read(peer_r, 100) == b'{"ok":1}\n'
    await stream.aclose()


async def test_send_to_closed_reader_is_broken(pipes: Pipes) -> None:
    our_r, _, peer_r, our_w = pipes
    stream = StdioStream(our_r, our_w, close_fds=False)
    pipes.close(peer_r)
    with pytest.raises(anyio.BrokenResourceError):
        await stream.send(b"{}")
    await stream.aclose()


async def test_send_eof_closes_write_side_only(pipes: Pipes) -> None:
    our_r, peer_w, peer_r, our_w = pipes
    stream = StdioStream(our_r, our_w)
    await stream.send(b"{}")
    await stream.send_eof()
    pipes.closed_elsewhere(our_w)
    assert os.read(peer_r, 100) == b"{}\n"
    assert os.read(peer_r, 100) == b""  # end of input for the peer
    with pytest.raises(anyio.ClosedResourceError):
        await stream.send(b"{}")
    os.write(peer_w, b'{"still":1}\n')
    with anyio.fail_after(LIMIT):
        assert await stream.receive() == b'{"still":1}'
    await stream.aclose()
    pipes.closed_elsewhere(our_r)
    with pytest.raises(OSError):
        os.fstat(our_r)  # close_fds=True closed it (checked before anything can reuse it)


async def test_send_eof_on_a_socket_leaves_a_waiting_receive_waiting() -> None:
    # One descriptor for both sides: ending the write side wakes every wait on the
    # descriptor, and the receive that was waiting must wait on for the next line.
    ours, peer = socket.socketpair()
    with ours, peer:
        stream = StdioStream(ours.fileno(), ours.fileno(), close_fds=False)
        got: list[bytes | LineTooLong] = []

        async def receive() -> None:
            got.append(await stream.receive())

        with anyio.fail_after(LIMIT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(receive)
                await anyio.wait_all_tasks_blocked()
                await stream.send_eof()
                await anyio.wait_all_tasks_blocked()
                assert got == []
                peer.sendall(b'{"late":1}\n')
            assert got == [b'{"late":1}']
            with pytest.raises(anyio.ClosedResourceError):
                await stream.send(b"{}")
            await stream.aclose()


def read_exactly(fd: int, size: int) -> bytes:
    """``size`` bytes from a blocking descriptor (in a worker thread)."""
    data = b""
    while len(data) < size:
        data += os.read(fd, size - len(data))
    return data


async def test_send_batch_nowait_writes_at_once_or_keeps_the_rest(pipes: Pipes) -> None:
    our_r, _, peer_r, our_w = pipes
    stream = StdioStream(our_r, our_w, close_fds=False)
    assert stream.send_batch_nowait([b'{"a":1}', b'{"b":2}']) is True
    assert os.read(peer_r, 100) == b'{"a":1}\n{"b":2}\n'

    # More than the pipe holds: the first 64 KiB go out, the rest is kept, and what
    # follows queues behind it, in order.
    big = b'"' + b"x" * (200 * 1024) + b'"'
    assert stream.send_batch_nowait([big]) is False
    assert stream.send_batch_nowait([b'{"c":3}']) is False
    expected = big + b'\n{"c":3}\n{"d":4}\n'
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(stream.send_batch, [b'{"d":4}'])
            got = await anyio.to_thread.run_sync(
                read_exactly, peer_r, len(expected), abandon_on_cancel=True
            )
    assert got == expected
    await stream.send_batch([])  # nothing kept: nothing to do
    assert stream.send_batch_nowait([b"{}"]) is True
    assert os.read(peer_r, 100) == b"{}\n"
    await stream.aclose()
    with pytest.raises(anyio.ClosedResourceError):
        stream.send_batch_nowait([b"{}"])


async def test_send_batch_nowait_keeps_a_torn_line_torn(pipes: Pipes) -> None:
    our_r, _, _, our_w = pipes
    stream = StdioStream(our_r, our_w, close_fds=False)
    with pytest.raises(ValueError):
        stream.send_batch_nowait([b"{\n}"])
    # A kept rest is part of a message already on the wire: a send that is cancelled
    # before finishing it tears the line, as a send cancelled mid-message does.
    assert stream.send_batch_nowait([b"x" * (1 << 20)]) is False
    with anyio.move_on_after(0.05) as scope:
        await stream.send(b"{}")
    assert scope.cancelled_caught
    with pytest.raises(anyio.BrokenResourceError):
        stream.send_batch_nowait([b"{}"])
    await stream.aclose()


async def test_send_batch_nowait_while_another_send_waits_is_busy(pipes: Pipes) -> None:
    our_r, _, _, our_w = pipes
    stream = StdioStream(our_r, our_w, close_fds=False)
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(stream.send, b"y" * (1 << 20))  # blocks: nobody reads
            await anyio.wait_all_tasks_blocked()
            with pytest.raises(anyio.BusyResourceError):
                stream.send_batch_nowait([b"{}"])
            tg.cancel_scope.cancel()
    await stream.aclose()


async def test_send_batch_nowait_to_closed_reader_is_broken(pipes: Pipes) -> None:
    our_r, _, peer_r, our_w = pipes
    stream = StdioStream(our_r, our_w, close_fds=False)
    pipes.close(peer_r)
    with pytest.raises(anyio.BrokenResourceError):
        stream.send_batch_nowait([b"{}"])
    await stream.aclose()


async def test_regular_file_and_dev_null(tmp_path: Path) -> None:
    # epoll cannot watch these; the stream never needs to, since they never return EAGAIN.
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"a":1}\n' * 1000 + b'{"last":1}')
    read_fd = os.open(path, os.O_RDONLY)
    write_fd = os.open(os.devnull, os.O_WRONLY)
    stream = StdioStream(read_fd, write_fd)
    with anyio.fail_after(LIMIT):
        items = await receive_all(stream)
        await stream.send(b"{}")
    assert items == [b'{"a":1}'] * 1000 + [b'{"last":1}']
    await stream.aclose()


# -- client side: open_stdio_process ----------------------------------------------------------


async def test_echo_both_ways() -> None:
    big = b'"' + b"x" * (1 << 20) + b'"'  # 16 pipe-fulls: partial writes on both sides
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(ECHO) as proc:
            assert proc.pid > 0 and proc.returncode is None
            for i in range(200):
                await proc.stream.send(b'{"i":%d}' % i)
                assert await proc.stream.receive() == b'{"i":%d}' % i
            async with anyio.create_task_group() as tg:
                tg.start_soon(proc.stream.send, big)
                assert await proc.stream.receive() == big
    assert proc.returncode == 0  # it exited on stdin EOF; no signal was needed


async def test_partial_lines_crlf_blank_lines_from_child() -> None:
    child = py(
        r"""
        import sys
        out = sys.stdout.buffer
        out.write(b'{"a":'); out.flush()
        sys.stderr.write("half\n"); sys.stderr.flush()
        sys.stdin.readline()
        out.write(b'1}\r\n\n\r\n   \n{"b":2}\n{"c":'); out.flush()
        out.write(b'3}')
        """
    )
    half = anyio.Event()
    got: list[bytes | LineTooLong] = []

    async def collect(stream: StdioStream) -> None:
        got.extend(await receive_all(stream))

    with anyio.fail_after(LIMIT):
        async with (
            open_stdio_process(child, stderr=lambda line: half.set()) as proc,
            anyio.create_task_group() as tg,
        ):
            tg.start_soon(collect, proc.stream)
            await half.wait()  # the first half is written; our reader is waiting for more
            await proc.stream.send(b'"go"')
    assert got == [b'{"a":1}', b'{"b":2}', b'{"c":3}']


async def test_line_over_cap_gives_one_marker_and_goes_on() -> None:
    child = py(
        """
        import sys
        sys.stdout.buffer.write(b"x" * 64 + b"\\n" + b"y" * 65 + b"\\r\\n" + b"z" * 5000)
        sys.stdout.buffer.write(b'\\n{"ok":1}\\n')
        """
    )
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(child, max_line_bytes=64) as proc:
            got = await receive_all(proc.stream)
    assert got == [
        b"x" * 64,
        LineTooLong(65, b"y" * 65),
        LineTooLong(65, b"z" * 65),
        b'{"ok":1}',
    ]


async def test_huge_line_without_newline_stays_bounded() -> None:
    # 200 MiB in one line: the framer drops it as it arrives, so memory stays near one read.
    child = py(
        """
        import sys
        chunk = b"x" * (1 << 20)
        for _ in range(200):
            sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.write(b'\\n{"after":1}\\n')
        """
    )
    cap = 64 * 1024
    tracemalloc.start()
    try:
        with anyio.fail_after(LIMIT):
            async with open_stdio_process(child, max_line_bytes=cap) as proc:
                tracemalloc.reset_peak()
                assert await proc.stream.receive() == LineTooLong(cap + 1, b"x" * HEAD_BYTES)
                assert proc.stream.buffered_bytes <= cap + 1
                assert await proc.stream.receive() == b'{"after":1}'
                _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, peak


async def test_stderr_lines_reach_the_callback() -> None:
    child = py(
        r"""
        import sys
        sys.stderr.buffer.write(b"one\ntwo\r\n\n" + b"L" * 20 + b"\nlast\n" + b"M" * 20)
        print('{}')
        """
    )
    lines: list[bytes] = []
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(child, stderr=lines.append, max_line_bytes=8) as proc:
            assert await receive_all(proc.stream) == [b"{}"]
    # Long lines come in pieces of the cap, whether complete (L) or still open (M).
    l8, m8 = b"L" * 8, b"M" * 8
    assert lines == [b"one", b"two", b"", l8, l8, b"LLLL", b"last", m8, m8, b"MMMM"]


async def test_stderr_to_devnull() -> None:
    child = py("import sys; sys.stderr.write('x' * 100000); print('{}')")
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(child, stderr=subprocess.DEVNULL) as proc:
            assert await proc.stream.receive() == b"{}"


async def test_child_exit_ends_the_stream() -> None:
    child = py("""print('{"bye":1}'); raise SystemExit(3)""")
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(child) as proc:
            assert await proc.stream.receive() == b'{"bye":1}'
            with pytest.raises(anyio.EndOfStream):
                await proc.stream.receive()
            assert await proc.wait() == 3
            # Its stdin has no reader any more.
            with pytest.raises(anyio.BrokenResourceError):
                await proc.stream.send(b"{}")


async def test_child_exit_ends_the_stream_despite_a_grandchild_holding_stdout() -> None:
    child = py(
        """
        import subprocess, sys, time
        grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print('{"grandchild":%d}' % grandchild.pid, flush=True)
        """
    )
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(child) as proc:
            grandchild = json.loads(await received(proc.stream))["grandchild"]
            try:
                with pytest.raises(anyio.EndOfStream):
                    await proc.stream.receive()
            finally:
                os.kill(grandchild, signal.SIGKILL)
                await wait_dead(grandchild)


async def test_environment_is_filtered_and_merged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MCP_CORE_TEST_SECRET", "hunter2")
    monkeypatch.setenv("PATH", os.environ.get("PATH", "/usr/bin"))
    child = py("import json, os; print(json.dumps([dict(os.environ), os.getcwd()]))")
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(child, env={"EXTRA": "1"}, cwd=tmp_path) as proc:
            raw = await proc.stream.receive()
    assert isinstance(raw, bytes)
    environ, cwd = json.loads(raw)
    assert "MCP_CORE_TEST_SECRET" not in environ
    assert environ["EXTRA"] == "1"
    assert environ["PATH"] == os.environ["PATH"]
    assert set(environ) - {"EXTRA"} <= set(INHERITED_ENV_VARS)
    assert os.path.samefile(cwd, tmp_path)


async def test_spawn_failure_leaks_no_descriptors() -> None:
    before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(OSError):
        async with open_stdio_process(["/nonexistent/mcp-server"]):
            pass  # pragma: no cover
    assert set(os.listdir("/proc/self/fd")) <= before


async def test_bad_arguments_are_refused() -> None:
    with pytest.raises(TypeError):
        async with open_stdio_process("python -c pass"):
            pass  # pragma: no cover
    for bad in (subprocess.PIPE, subprocess.STDOUT):
        with pytest.raises(ValueError):
            async with open_stdio_process(ECHO, stderr=bad):
                pass  # pragma: no cover
    with pytest.raises(ValueError):
        async with open_stdio_process(ECHO, max_line_bytes=0):
            pass  # pragma: no cover


async def test_error_in_body_propagates_unwrapped_after_shutdown() -> None:
    seen: list[StdioProcess] = []
    with anyio.fail_after(LIMIT), pytest.raises(LookupError):
        async with open_stdio_process(ECHO) as proc:
            seen.append(proc)
            raise LookupError
    assert seen[0].returncode == 0


async def test_cancelled_body_still_shuts_down() -> None:
    seen: list[StdioProcess] = []
    with anyio.fail_after(LIMIT):
        with anyio.move_on_after(0.05):
            async with open_stdio_process(ECHO) as proc:
                seen.append(proc)
                await proc.stream.receive()  # never answered
    assert seen[0].returncode == 0


# -- the shutdown ladder ----------------------------------------------------------------------


async def test_sigterm_when_stdin_close_is_ignored() -> None:
    child = py("import time; print('ready', flush=True); time.sleep(60)")
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(child, shutdown_timeout=LADDER) as proc:
            assert await proc.stream.receive() == b"ready"
    assert proc.returncode == -signal.SIGTERM


async def test_sigkill_when_sigterm_is_ignored() -> None:
    child = py(
        """
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print('ready', flush=True)
        time.sleep(60)
        """
    )
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(child, shutdown_timeout=LADDER) as proc:
            assert await proc.stream.receive() == b"ready"
    assert proc.returncode == -signal.SIGKILL


async def test_the_whole_process_group_is_stopped() -> None:
    # The child dies of SIGTERM; its grandchild ignores SIGTERM and falls to the SIGKILL.
    grandchild_code = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('up', flush=True); time.sleep(60)"
    )
    child = py(
        f"""
        import subprocess, sys, time
        g = subprocess.Popen([sys.executable, "-c", {grandchild_code!r}],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        g.stdout.readline()
        print(g.pid, flush=True)
        time.sleep(60)
        """
    )
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(child, shutdown_timeout=LADDER) as proc:
            grandchild = int(await received(proc.stream))
            assert alive(grandchild)
        assert proc.returncode == -signal.SIGTERM
        await wait_dead(grandchild)


# -- server side: stdio_server_stream in a child ----------------------------------------------

SERVER = """
import json, os, subprocess, sys
import anyio
from mcp_core.wire import LineTooLong
from transports.stdio_streams import stdio_server_stream

print("buffered before serving")  # stdout is a pipe, so this waits in Python's buffer

async def main():
    async with stdio_server_stream(max_line_bytes=int(sys.argv[2])) as stream:
        print("print junk")
        os.write(1, b"fd junk\\n")
        subprocess.run(["sh", "-c", "echo child junk"])
        try:
            async with stdio_server_stream():
                pass
        except RuntimeError:
            nested = "refused"
        # While serving, stdin is /dev/null: a child or a stray read cannot eat messages.
        state = [nested, os.get_blocking(0), sys.stdin.read()]
        async for item in stream:
            if isinstance(item, LineTooLong):
                item = b'"too long"'
            elif item == b'"state"':
                item = json.dumps(state).encode()
            await stream.send(item)
    print(json.dumps([os.get_blocking(0), os.get_blocking(1), sys.stdout is sys.__stdout__]))

anyio.run(main, backend=sys.argv[1])
"""


async def test_server_echoes_and_keeps_stdout_clean(anyio_backend: str) -> None:
    cap = 2 << 20
    big = b'"' + b"y" * (1 << 20) + b'"'  # the server's write of it fills the pipe 16 times
    lines: list[bytes] = []
    argv = py(SERVER, anyio_backend, str(cap))
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(argv, stderr=lines.append) as proc:
            stream = proc.stream
            await stream.send(b'"state"')
            assert json.loads(await received(stream)) == ["refused", True, ""]
            for i in range(100):
                await stream.send(b'{"i":%d}' % i)
                assert await stream.receive() == b'{"i":%d}' % i
            async with anyio.create_task_group() as tg:
                tg.start_soon(stream.send, big)
                assert await stream.receive() == big
            async with anyio.create_task_group() as tg:
                tg.start_soon(stream.send, b"z" * (cap + 1))
                assert await stream.receive() == b'"too long"'
            await stream.send(b'{"after":1}')
            assert await stream.receive() == b'{"after":1}'
            await stream.send_eof()
            # After serving, everything is back: fds blocking, sys.stdout, fd 1 on the wire.
            assert json.loads(await received(stream)) == [True, True, True]
            with pytest.raises(anyio.EndOfStream):
                await stream.receive()
    assert proc.returncode == 0
    assert lines == [b"buffered before serving", b"print junk", b"fd junk", b"child junk"]


SERVER_HANGS_UP = """
import sys
import anyio
from transports.stdio_streams import stdio_server_stream

async def main():
    async with stdio_server_stream() as stream:
        await stream.send(b'{"last":1}')
        await stream.send_eof()
        got = [item async for item in stream]
        sys.stderr.write("got %d\\n" % len(got))
    print("after", flush=True)  # the wire's stdout is gone; this goes to stderr

anyio.run(main, backend=sys.argv[1])
"""


async def test_server_send_eof_ends_the_clients_stream(anyio_backend: str) -> None:
    lines: list[bytes] = []
    argv = py(SERVER_HANGS_UP, anyio_backend)
    with anyio.fail_after(LIMIT):
        async with open_stdio_process(argv, stderr=lines.append) as proc:
            assert await proc.stream.receive() == b'{"last":1}'
            with pytest.raises(anyio.EndOfStream):
                await proc.stream.receive()
            assert proc.returncode is None  # the server hung up but still runs
            await proc.stream.send(b"{}")
    assert proc.returncode == 0
    assert lines == [b"got 1", b"after"]
