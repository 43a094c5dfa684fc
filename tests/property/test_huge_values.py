"""Huge and tiny finite numbers over the public dpcore API: ValueError naming the parameter, or a clean result.

Reuses the FAST table of ``test_public_api.py``: each numeric argument in turn is replaced by a finite but extreme
value (±1e300, 1e200, 1e100, 1e30, 1e15, 5e-324 — the smallest subnormal — and 1e-300; integer arguments by 10**18,
10**9 and -10**18). The call must raise ``ValueError`` (the argument is outside the documented supported range) or
return a NaN-free result without RuntimeWarning, OverflowError, ZeroDivisionError, MemoryError or a root finder's
"Failed to converge", and within a few seconds (an alarm turns a hang into a failure; an address-space limit turns
a runaway allocation into a MemoryError). A ValueError must name the parameter (project rule: "ValueError naming
the parameter and the valid range").

Excluded: ``brdp.*`` and ``ldp.*`` (their modules are hardened separately, by other work; their own hostile-input
tests live with them).
"""

from __future__ import annotations

import inspect
import resource
import signal
import time
import warnings

import pytest

from tests.property.test_public_api import FAST, _call_hostile

#: Modules hardened here (brdp and ldp are excluded: see the module docstring).
EXCLUDED_PREFIXES = ("brdp.", "ldp.")
FLOATS = [1e300, -1e300, 1e200, 1e100, 1e30, 1e15, 5e-324, 1e-300]
INTS = [10**18, 10**9, -(10**18)]
#: A single call may take at most this long (seconds) before it counts as a hang.
ALARM_S = 10
#: Extra address space a single call may take (bytes): a huge allocation fails fast as MemoryError (reported as a
#: failure) instead of swamping the shared machine.
EXTRA_MEMORY = 3 * 2**30


def _vm_size() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


CASES = [c for c in FAST if not c.name.startswith(EXCLUDED_PREFIXES)]
#: ValueErrors that name the *other* parameter of an order constraint (low ≤ high) instead of the fuzzed one.
NAMES_PARTNER = {("data.binary_scores", "high")}


def _param_name(case, param: str) -> str:
    """The keyword name of a fuzzed argument ("#0" → the first positional parameter's name)."""
    if not param.startswith("#"):
        return param
    sig = inspect.signature(case.fn)
    pos = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return pos[int(param[1:])].name


def _unnamed_value_error(case, param: str, value) -> str | None:
    """When the call raises ValueError, a description if its message does not name the parameter, else None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            case.call(**{param: value})
    except ValueError as exc:
        name = _param_name(case, param)
        if name not in str(exc) and (case.name, name) not in NAMES_PARTNER:
            return f"ValueError does not name {name!r}: {str(exc)[:120]}"
    except Exception:  # noqa: BLE001 — reported by _call_hostile
        return None
    return None


def _numeric_params(case) -> list[tuple[str, object]]:
    out = []
    for p in case.params():
        orig = dict(enumerate(case.args)).get(int(p[1:])) if p.startswith("#") else case.kwargs.get(p)
        if isinstance(orig, bool) or not isinstance(orig, int | float):
            continue
        out.append((p, orig))
    return out


def _sweep(case) -> tuple[list[str], float]:
    failures = []
    t0 = time.perf_counter()

    def on_alarm(*_):
        raise TimeoutError(f"took > {ALARM_S} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    limits = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (_vm_size() + EXTRA_MEMORY, limits[1]))
    try:
        for param, orig in _numeric_params(case):
            for value in INTS if isinstance(orig, int) else FLOATS:
                signal.alarm(ALARM_S)
                try:
                    msg = _call_hostile(case, param, value) or _unnamed_value_error(case, param, value)
                except TimeoutError as exc:  # raised outside the call's own except clauses
                    msg = str(exc)
                finally:
                    signal.alarm(0)
                if msg is not None:
                    failures.append(f"{case.name}({param}={value!r}): {msg[:160]}")
    finally:
        resource.setrlimit(resource.RLIMIT_AS, limits)
        signal.signal(signal.SIGALRM, old)
    return failures, time.perf_counter() - t0


def test_cases_cover_the_modules():
    """The sweep is not vacuous: every hardened module contributes cases with numeric arguments."""
    names = {c.name.split(".")[0] if "." in c.name else "accounting" for c in CASES if _numeric_params(c)}
    assert {"accounting", "svt", "noise_reduction", "filters", "r2dp", "data"} <= names


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_huge_and_tiny_values(case):
    failures, _ = _sweep(case)
    assert not failures, "\n".join(failures)


def test_range_helpers():
    """The new _validate helpers: limits inclusive, messages name the parameter and the range, ±inf where allowed."""
    import math

    from dpcore import _validate as _v

    assert _v.scale("sigma", 1e-100) == 1e-100 and _v.scale("sigma", 1e100) == 1e100
    for bad in (0.0, 9.9e-101, 1.01e100, math.inf, math.nan):
        with pytest.raises(ValueError, match=r"sigma must .*\[1e-100, 1e\+100\]"):
            _v.scale("sigma", bad)
    assert _v.bounded("epsilon", math.inf, low=0.0, allow_inf=True) == math.inf
    assert _v.bounded("epsilon", 1e100, low=0.0) == 1e100
    with pytest.raises(ValueError, match=r"epsilon must be in \[0, 1e\+100\] \(or inf\), got 1e\+101"):
        _v.bounded("epsilon", 1e101, low=0.0, allow_inf=True)
    with pytest.raises(ValueError, match=r"x must be in \[-1e\+100, 1e\+100\], got -1e\+200"):
        _v.bounded("x", -1e200)
