"""Shared test configuration: a bounded hypothesis profile so property tests stay fast on 2 cores."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "dp", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("dp")
