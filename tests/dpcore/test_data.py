"""Unit tests of dpcore.data (synthetic SVT data sets of Table 2)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import data


def test_zipf_exact():
    z = data.zipf_scores()
    assert z.size == 10_000 and z[0] == 10_000 and z[-1] == 1.0
    np.testing.assert_allclose(z, 10_000 / np.arange(1, 10_001))
    assert (z >= 200).sum() == 50 and z[49] == 200.0  # s₅₀ = 10 000/50 exactly, so "≥ T" counts it
    np.testing.assert_allclose(data.zipf_scores(4, scale=8, exponent=2), [8, 2, 8 / 9, 0.5])


def test_binary_exact():
    b = data.binary_scores()
    assert b.size == 10_000 and (b == 1000).sum() == 50 and (b == 0).sum() == 9_950
    assert (b >= 500).sum() == 50
    np.testing.assert_array_equal(data.binary_scores(3, n_positive=1, high=2, low=-1), [2, -1, -1])


@pytest.mark.parametrize(
    "fn,kwargs,name",
    [
        (data.zipf_scores, dict(n_items=0), "n_items"),
        (data.zipf_scores, dict(scale=0), "scale"),
        (data.zipf_scores, dict(exponent=-1), "exponent"),
        (data.binary_scores, dict(n_positive=20, n_items=10), "n_positive"),
        (data.binary_scores, dict(high=0, low=1), "low"),
        (data.binary_scores, dict(n_items=2.5), "n_items"),
    ],
)
def test_generators_bad_input(fn, kwargs, name):
    with pytest.raises(ValueError, match=name):
        fn(**kwargs)


@pytest.mark.parametrize("name", ["T40I10D100K", "BMS-POS", "Kosarak"])
def test_transaction_stand_ins_match_table2(name):
    row = data.TABLE2[name]
    p = data.item_supports(**row.generator)
    assert p.size == row.n_items and np.all(np.diff(p) <= 0) and p[0] == pytest.approx(row.top_support)
    assert p.sum() == pytest.approx(row.avg_length, rel=1e-9)  # mean transaction length
    # the expected support crosses the threshold between ranks n_above and n_above + 1
    assert p[row.n_above - 1] * row.n_records >= row.threshold > p[row.n_above] * row.n_records
    ds = data.svt_dataset(name, rng=3)
    assert ds.synthetic_stand_in and ds.n_items == row.n_items and ds.threshold == row.threshold
    assert np.all(np.diff(ds.scores) <= 0) and ds.scores.max() <= row.n_records and ds.scores.min() >= 0
    assert np.all(ds.scores == np.round(ds.scores))
    assert abs(ds.n_above - row.n_above) <= 4 * math.sqrt(row.n_above)  # binomial noise around the target
    total = ds.scores.sum()  # Σ Binomial(N, p_i): mean N·L, sd ≤ √(N·L)
    assert abs(total - row.n_records * row.avg_length) <= 4 * math.sqrt(row.n_records * row.avg_length)


def test_adult_stand_in_is_flagged_and_reachable():
    ds = data.svt_dataset("Adult", rng=0)
    assert ds.c == 5 and ds.k == 24 and ds.n_items == 123 and ds.threshold == 200
    assert ds.n_above >= data.TABLE2["Adult"].n_above - 25


def test_pure_function_of_rng():
    a = data.svt_dataset("Kosarak", rng=np.random.default_rng(5))
    b = data.svt_dataset("Kosarak", rng=np.random.default_rng(5))
    c = data.svt_dataset("Kosarak", rng=6)
    np.testing.assert_array_equal(a.scores, b.scores)
    assert not np.array_equal(a.scores, c.scores)


def test_dataset_properties():
    for name, k in zip(data.SVT_DATASETS, [200, 200, 18, 33, 825, 24], strict=True):  # ⌊n_items/c⌋ from Table 2
        assert data.svt_dataset(name, rng=1).k == k
    assert data.svt_dataset("Binary").n_above == 50 and data.svt_dataset("Zipf").n_above == 50
    assert not data.svt_dataset("Zipf").synthetic_stand_in


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(n_records=0), "n_records"),
        (dict(n_items=1), "n_items"),
        (dict(threshold=0), "threshold"),
        (dict(avg_length=0), "avg_length"),
        (dict(top_support=0), "top_support"),
        (dict(n_above=0), "n_above"),
        (dict(n_above=100), "n_above"),
        (dict(top_support=0.001), "top_support"),
    ],
)
def test_transaction_bad_input(kwargs, name):
    args = dict(n_records=1000, n_items=100, threshold=50, avg_length=5.0, top_support=0.5, n_above=10) | kwargs
    with pytest.raises(ValueError, match=name):
        data.transaction_scores(**args, rng=0)


def test_svt_dataset_bad_name():
    with pytest.raises(ValueError, match="name"):
        data.svt_dataset("MovieLens")
