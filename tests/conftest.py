"""Settings every test module shares.

Hypothesis: the properties are about what comes out, never about how fast. On a
shared or loaded machine (CI runners, a second job on the same two cores), input
generation and single examples can take longer than Hypothesis's defaults allow,
which would fail a test for the machine's sake: no per-example deadline, and no
health check on slow generation. Every other health check stays on.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "mcp-core",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("mcp-core")
