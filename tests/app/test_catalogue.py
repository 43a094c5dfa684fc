"""The parameter catalogue: one entry per URL key, one meaning per symbol, readable help, valid defaults."""

from __future__ import annotations

import re

from app import catalogue
from app.catalogue import CATALOGUE, GLOSSARY

_BUILDER = re.compile(r"(spec|snake_case|[a-z]+_[a-z]+|\{|\}|\bR\d+\b|\bE\d+\b)")


def test_every_entry_is_complete():
    for key, p in CATALOGUE.items():
        assert p.key == key
        assert p.name and p.help, key
        assert p.help[0].isupper() and p.help.rstrip().endswith((".", ")")), f"{key}: help is a sentence"
        if p.kind in ("slider", "choice"):
            assert p.default in p.grid and len(set(p.grid)) == len(p.grid), f"{key}: distinct stops"
        if p.kind == "slider":
            assert list(p.grid) == sorted(p.grid), f"{key}: stops in order"


def test_one_symbol_one_meaning():
    by_symbol: dict[str, str] = {}
    for p in CATALOGUE.values():
        if not p.symbol:
            continue
        base = p.symbol.split()[0]
        assert by_symbol.setdefault(base, p.key) == p.key, f"{base} means both {by_symbol[base]} and {p.key}"


def test_error_tolerances_name_each_other():
    theta = catalogue.get("theta")
    assert theta.symbol == "θ" and theta.glossary == "error tolerance"
    for key in theta.same_idea_as:
        if key in CATALOGUE:
            assert CATALOGUE[key].glossary == "error tolerance"


def test_on_screen_words_are_readable():
    for p in CATALOGUE.values():
        for text in (p.label, p.help, *p.labels.values()):
            assert not _BUILDER.search(text.replace("e^ε", "")), f"{p.key}: {text!r}"
    for term, text in GLOSSARY.items():
        assert "{" not in text and "spec" not in text.lower(), term


def test_slider_stops_read_as_numbers_people_write_but_links_keep_the_plain_form():
    delta = catalogue.get("delta")
    assert [delta.words(v) for v in (1e-12, 2e-6, 1e-5, 5e-4, 0.001, 0.1)] == [
        "10⁻¹²",
        "2·10⁻⁶",
        "10⁻⁵",
        "5·10⁻⁴",
        "0.001",
        "0.1",
    ]
    assert [delta.fmt(v) for v in (1e-12, 2e-6, 1e-5, 0.001)] == ["1e-12", "2e-06", "1e-05", "0.001"]
    assert [catalogue.get("eps").words(v) for v in (0.01, 0.5, 20.0)] == ["0.01", "0.5", "20"]
    assert catalogue.get("T").words(1000) == "1000"
    for p in CATALOGUE.values():  # no stop of any slider is written e-05 or e+06
        assert not [v for v in p.grid if p.numeric and "e" in p.words(v)], p.key


def test_slider_stops_are_distinct():
    """The number of releases used to repeat stops (1, 1, 1, 2, 2, 3 …), so the first key presses did nothing."""
    grid = catalogue.get("T").grid
    assert grid[:8] == (1, 2, 3, 4, 5, 6, 8, 10)
    assert len(set(grid)) == len(grid)


def test_default_epsilon_is_shared():
    assert catalogue.get("eps").default == catalogue.DEFAULT_EPSILON == 1.0


def test_the_words_at_a_controls_stops_are_worked_out_once_and_are_the_entrys_own():
    """The labels a slider or choice shows come from a per-process table: the same words as the entry's own, for
    every stop of every entry and for an entry a page narrowed or renamed."""
    from dataclasses import replace

    from app import params

    entries = [p for p in catalogue.CATALOGUE.values() if p.kind in ("slider", "choice")]
    entries += [replace(p, key=p.key + "2", grid=p.grid[::2]) for p in entries if p.kind == "slider"]
    for p in entries:
        words = params._stop_words(p)
        assert [words(v) for v in p.grid] == [p.words(v) for v in p.grid], p.key
    eps = catalogue.get("eps")
    assert params._stop_words(eps)(123.456) == eps.words(123.456)  # a value off the grid is worked out on the spot
    assert params._stop_words(catalogue.get("delta"))(1e-5) == "10⁻⁵"
