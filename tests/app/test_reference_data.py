"""Reference values the reproductions compare with live in data files (app/compute/data/) that say where they come
from, and the compute layer reads them from the installed package."""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from pathlib import Path

from app.compute import noise_reduction as cnr

ROOT = Path(__file__).resolve().parents[2]


def _fig3() -> dict:
    return json.loads(resources.files("app.compute").joinpath("data/noise_reduction_fig3.json").read_text("utf-8"))


def test_figure3_reference_states_its_source():
    data = _fig3()
    for words in ("Rogers", "Samorodnitsky", "Wu", "Ramdas", "2023", "Figure 3"):
        assert words in data["title"], words
    # how the values were obtained: not read off the paper's plot (it prints no numbers), but a re-implementation
    assert "prints no numbers" in data["source"] and "1000 trials" in data["source"]
    assert set(data["units"]) <= set(data["columns"])


def test_figure3_reference_has_both_methods_at_every_paper_size():
    frame = cnr.figure3_reference()
    assert list(frame.columns) == ["n", "method", "results_mean", "precision_mean"]
    assert sorted(set(frame["n"])) == list(cnr.PAPER_SIZES)
    assert frame.groupby("n")["method"].apply(set).eq({"noise_reduction", "doubling"}).all()
    assert frame["precision_mean"].between(0, 1).all() and (frame["results_mean"] > 0).all()
    # the figure's message, which the page's reproduction is compared with: noise reduction returns more results
    wide = frame.pivot(index="n", columns="method", values="results_mean")
    assert (wide["noise_reduction"] > wide["doubling"]).all()


def test_the_data_files_are_shipped_with_the_package():
    shipped = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["app"]
    files = sorted(p.relative_to(ROOT / "app") for p in (ROOT / "app" / "compute" / "data").iterdir())
    assert files and all(any(f.match(pattern) for pattern in shipped) for f in files), (files, shipped)
