"""The Debian programs some tests run for real (redis-server, haproxy): found on
PATH, or installed with apt-get when the tests run as root on a machine that has
it (a fresh CI machine), so that the README's test command needs nothing else.
Elsewhere a missing program is an error that says how to install it."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Final

INSTALL_LIMIT: Final = 600.0
_tried: set[str] = set()


def debian_program(name: str, package: str) -> str:
    """The path of program ``name``, installing Debian ``package`` if needed.

    Raises:
        RuntimeError: not installed, and it cannot be installed here.
    """
    found = shutil.which(name)
    if found is not None:
        return found
    apt = shutil.which("apt-get")
    if apt is not None and os.geteuid() == 0 and package not in _tried:
        _tried.add(package)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for step in ([apt, "update", "-qq"], [apt, "install", "-y", "-qq", package]):
            subprocess.run(step, env=env, timeout=INSTALL_LIMIT, check=False, capture_output=True)
        found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
        if found is not None:
            return found
    raise RuntimeError(f"{name} is not installed (apt-get install {package})")
