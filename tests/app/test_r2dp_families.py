"""The R²DP families have one id set (the address bar's, dpcore's too) and one table of words, which the app reads."""

from __future__ import annotations

import pytest

from app import catalogue
from app.catalogue.r2dp import FAMILIES, FAMILY
from app.compute import r2dp as compute
from app.figures import r2dp as figs
from dpcore import r2dp


def test_the_sidebar_and_the_maps_offer_the_ids_of_the_one_table_in_its_words():
    fam = catalogue.get("fam")
    assert tuple(fam.grid) == FAMILIES == tuple(FAMILY)
    for key in ("fam", "mapfam", "f3f"):
        entry = catalogue.get(key)
        assert set(entry.grid) <= set(FAMILY)
        assert {k: entry.labels[k] for k in entry.grid} == {k: FAMILY[k].label for k in entry.grid}


def test_the_app_and_dpcore_name_the_families_alike():
    assert FAMILIES == r2dp.FAMILIES


@pytest.mark.parametrize("fam", ["truncnorm", "uniform", "two_point"])
def test_the_optimum_of_an_address_id_is_dpcores_optimum_of_that_family(fam):
    mine = compute.optimum(5.0, 0.1, 1.0, fam)
    theirs = r2dp.optimize(epsilon=5.0, gamma=0.1, sensitivity=1.0, family=fam)
    assert mine.usefulness == pytest.approx(theirs.usefulness, rel=1e-12)


def test_tables_and_legends_carry_the_ids_and_the_words_of_the_table():
    df = compute.family_optima(5.0, 0.1, 1.0)
    fams = [f for f in df["family"] if f not in ("laplace", "staircase")]
    assert fams and set(fams) <= set(FAMILY)
    assert all(df.loc[df["family"] == f, "mechanism"].item() == FAMILY[f].table for f in fams)
    assert {f: figs.FAMILY_LABELS[f] for f in fams} == {f: FAMILY[f].legend for f in fams}
    assert set(fams) <= set(figs.FAMILY_COLORS)
