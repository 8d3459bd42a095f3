"""A server that reads what it is sent and never answers (not even initialize)."""

import sys

for _ in sys.stdin:
    pass
