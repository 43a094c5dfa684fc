"""The one place dpcore imports Google's ``dp_accounting`` (privacy-loss distributions), behind a version check.

Several accountants read the library's dense PMF internals (``DensePLDPmf._probs`` …) for speed, so an untested
release could silently change results: importing dpcore with a version outside :data:`SUPPORTED` raises an
``ImportError`` naming the installed version and the supported range.
"""

from __future__ import annotations

from importlib import metadata

#: Versions of ``dp-accounting`` whose PLD internals dpcore has been tested against: >= 0.4.4, < 0.7.
SUPPORTED = ((0, 4, 4), (0, 7))
SUPPORTED_TEXT = ">=0.4.4,<0.7"


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit()) if not piece.isdigit() else piece
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def check_version(installed: str) -> None:
    """Raise ``ImportError`` unless ``installed`` is in the supported range (>=0.4.4,<0.7)."""
    v = _version_tuple(installed)
    low, high = SUPPORTED
    if not (low <= v < high):
        raise ImportError(
            f"dpcore needs dp-accounting {SUPPORTED_TEXT}, but version {installed} is installed; "
            f"install a supported version (pip install 'dp-accounting{SUPPORTED_TEXT}')"
        )


try:
    INSTALLED = metadata.version("dp-accounting")
except metadata.PackageNotFoundError:  # pragma: no cover - the dependency is declared in pyproject.toml
    raise ImportError(f"dpcore needs dp-accounting {SUPPORTED_TEXT}, which is not installed") from None
check_version(INSTALLED)

from dp_accounting.pld import common, pld_pmf  # noqa: E402
from dp_accounting.pld import privacy_loss_distribution as pld  # noqa: E402
from dp_accounting.pld import privacy_loss_mechanism as plm  # noqa: E402

PrivacyLossDistribution = pld.PrivacyLossDistribution

__all__ = ["INSTALLED", "SUPPORTED_TEXT", "PrivacyLossDistribution", "check_version", "common", "pld", "pld_pmf", "plm"]
