"""A server that answers every line with lines that are not JSON-RPC."""

import sys

for _ in sys.stdin:
    for _ in range(40):
        sys.stdout.write("this is not JSON-RPC {\n")
    sys.stdout.flush()
