"""Python opcodes and frames per call in a stdio server process, by function.

    python -m benchmarks.stdio_opcodes KIND ERA BACKEND [CALLS [TOP]]

What `benchmarks.stdio_counts` counts in instructions, broken down by Python
function: the server (``KIND`` ``ours`` or ``lines``, as there) runs with a
tracer that a signal switches on after 200 warm-up calls (``sys.settrace`` with
``f_trace_opcodes``) and off after CALLS calls, one at a time; it then writes,
per function, the opcodes it ran and the frames entered or resumed, and this
prints the TOP functions per call. Tracing slows the server several times: the
counts are exact, its time is meaningless.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from types import FrameType
from typing import Any

__all__ = ["main"]

_ENV = "MCP_CORE_OPCODES_OUT"


def _serve_traced(argv: list[str]) -> int:
    # The server side: `benchmarks.stdio_server` with the tracer behind two signals.
    ops: Counter[str] = Counter()
    frames: Counter[str] = Counter()

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        key = f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}:{code.co_name}"
        if event == "call":
            frames[key] += 1
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
        elif event == "opcode":
            ops[key] += 1
        return trace

    def start(*_: object) -> None:
        ops.clear()
        frames.clear()
        sys.settrace(trace)

    def dump(*_: object) -> None:
        sys.settrace(None)
        out = os.environ[_ENV]
        with open(out + ".part", "w") as file:
            json.dump({"ops": ops, "frames": frames}, file)
        os.replace(out + ".part", out)  # whole, or not there

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, dump)
    from .stdio_server import main as serve

    return serve(argv)


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        sys.exit(_serve_traced(sys.argv[2:]))
    from .raw_client import RawLineClient
    from .servers import _ROOT, _line_legacy, _line_modern, _line_requester
    from .stdio_counts import _in_batches

    kind, era, backend = sys.argv[1:4]
    calls = int(sys.argv[4]) if len(sys.argv) > 4 else 300
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 60
    out = os.path.join(tempfile.mkdtemp(), "opcodes.json")
    argv = [sys.executable, "-m", "benchmarks.stdio_opcodes", "--serve", kind, backend]
    env = {**os.environ, "PYTHONPATH": _ROOT, _ENV: out}
    client = RawLineClient(argv, env=env, wait_seconds=60)
    try:
        if kind == "lines":
            request_for = _line_requester("}")
        else:
            request_for = _line_legacy(client) if era == "legacy" else _line_modern(client)
        _in_batches(client, 200, 1, request_for)
        os.kill(client.pid, signal.SIGUSR1)
        _in_batches(client, calls, 1, request_for)
        os.kill(client.pid, signal.SIGUSR2)
        # The dump runs when the server next wakes: one more call, then the file.
        _in_batches(client, 1, 1, request_for)
        deadline = time.monotonic() + 30
        while not os.path.exists(out):
            if time.monotonic() > deadline:
                raise RuntimeError("the server wrote no counts")
            time.sleep(0.01)
    finally:
        client.close()
    with open(out) as file:
        data = json.load(file)
    os.unlink(out)
    os.rmdir(os.path.dirname(out))
    ops, frames = Counter(data["ops"]), Counter(data["frames"])
    print(
        f"{kind} {era} {backend}: {sum(ops.values()) / calls:,.0f} opcodes and "
        f"{sum(frames.values()) / calls:.1f} frames per call"
    )
    for key, count in ops.most_common(top):
        print(f"{count / calls:8.1f} {frames[key] / calls:6.2f}  {key}")


if __name__ == "__main__":
    main()
