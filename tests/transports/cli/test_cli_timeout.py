"""`mcp-core call --timeout` bounds the handshake too: against a server that never
answers it gave up only after the 30 s handshake default."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from limits import HANG


def test_timeout_bounds_the_handshake(tmp_path: Path) -> None:
    silent = tmp_path / "silent.py"
    silent.write_text("import time\ntime.sleep(60)\n")
    argv = [sys.executable, "-m", "transports", "call", "--timeout", "1"]
    started = time.monotonic()
    done = subprocess.run(
        [*argv, f"{sys.executable} {silent}", "anything"],
        capture_output=True,
        text=True,
        timeout=HANG,
        stdin=subprocess.DEVNULL,
    )
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert "no answer in time" in done.stderr
    assert took < 15  # 1 s, then the shutdown ladder of a server that reads nothing
