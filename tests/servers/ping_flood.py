"""A stdio "server" that never reads what its client answers, for the client's
back-pressure test.

It answers initialize, then writes ping requests without reading its stdin until
its stdout stays full for a second (the client stopped reading) or 4 MiB went
out; says on stderr ``accepted N`` (the pings written); then reads its stdin,
says ``answered M`` once it has read M answers, M = N, and waits for the end.
"""

from __future__ import annotations

import json
import os
import select
import sys

CAP = 4 * 1024 * 1024
STALLED = 1.0


def say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def lines(buffer: bytearray) -> list[bytes]:
    *whole, rest = bytes(buffer).split(b"\n")
    buffer[:] = rest
    return whole


def main() -> None:
    buffer = bytearray()
    while b"\n" not in buffer:
        buffer += os.read(0, 65536)
    first = json.loads(lines(buffer)[0])
    result = {
        "protocolVersion": first["params"]["protocolVersion"],
        "capabilities": {},
        "serverInfo": {"name": "ping-flood", "version": "1"},
    }
    os.write(
        1, json.dumps({"jsonrpc": "2.0", "id": first["id"], "result": result}).encode() + b"\n"
    )

    os.set_blocking(1, False)
    written = sent = 0
    while written < CAP:
        ping = b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % (sent + 1)
        try:
            os.write(1, ping)  # shorter than PIPE_BUF: all of it or nothing
        except BlockingIOError:
            if not select.select([], [1], [], STALLED)[1]:
                break
            continue
        sent += 1
        written += len(ping)
    say(f"accepted {sent} {written}")

    answered = 0
    while answered < sent:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        buffer += chunk
        answered += sum(b'"result"' in one for one in lines(buffer))
    say(f"answered {answered}")
    while os.read(0, 65536):
        pass


if __name__ == "__main__":
    main()
