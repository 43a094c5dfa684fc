"""The "Try this" exercise record shared by every page's exercise module."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

from app.exercises.check import Check


def query_string(values: Mapping[str, str]) -> str:
    """``eps=0.5&sens=2`` from a mapping of URL keys to values (every character but letters and digits escaped)."""
    return urlencode(dict(values), quote_via=quote, safe="")


@dataclass(frozen=True)
class Exercise:
    """A "Try this" task: the settings a link opens, the question, an answer box judged by ``check`` (at the
    precision the page shows it, with two hints before the solution) and ``answer``, the worked solution.

    ``numbers`` lists, in order, every computed number exactly as written in ``answer``; the test recomputes each
    one from dpcore (keyed by ``id``) and checks it to the precision shown.
    """

    id: str
    question: str
    settings: Mapping[str, str]
    answer: str
    numbers: tuple[str, ...] = field(default=())
    check: Check | None = None

    def link(self, url_path: str) -> str:
        """Relative URL that opens ``url_path`` with this exercise's settings (``?eps=0.5&sens=2``)."""
        return f"./{url_path}?{query_string(self.settings)}" if self.settings else f"./{url_path}"
