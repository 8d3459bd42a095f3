"""How long a test waits for something that must happen: one bound for the suite.

A test never sleeps to let something happen; it waits for the event itself (an
answer, a closed socket, a line on stderr), and the bound below only stops a test
that hangs. It is far above what any step needs on a quiet machine, so that a
loaded one (two cores running the suite on pytest-xdist workers beside another
job) never fails a test for the machine's sake: a passing test never reaches it.
A hung test costs this much, once.
"""

from __future__ import annotations

from typing import Final

#: Seconds a test may wait for one thing that must happen.
HANG: Final = 60.0
