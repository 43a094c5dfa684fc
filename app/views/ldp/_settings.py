"""The sidebar's values of the Local DP page (shared by its parts)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    """The sidebar's values."""

    view: str
    eps: float
    epsg: float
    nq: int
    dsize: int
    xtrue: int
    family: str
    prior: str
    stmt: str
    weight: float
    regkind: str
    seed: int
    ratio: bool

    @property
    def x(self) -> int:
        """The true value used: x* clipped into the domain {0, …, |D| − 1}."""
        return min(self.xtrue, self.dsize - 1)

    @property
    def unit(self) -> str:
        """The display scale's symbol."""
        return "e^ℓ" if self.ratio else "ℓ"
