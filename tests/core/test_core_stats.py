"""Newcombe's intervals for a difference of proportions (``rules.core.stats``)."""

from __future__ import annotations

import numpy as np
import pytest

from escaramuza.rules.core.stats import (
    difference_interval,
    paired_difference_interval,
    wilson_interval,
)

# Newcombe (1998), Statistics in Medicine 17:873-890, Table II, method 10 ("score,
# no continuity correction"): the eight examples and their published limits.
NEWCOMBE_1998_TABLE_II = [
    ((56, 70, 48, 80), (0.0524, 0.3339)),
    ((9, 10, 3, 10), (0.1705, 0.8090)),
    ((6, 7, 2, 7), (0.0582, 0.8062)),
    ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ((0, 10, 0, 20), (-0.1611, 0.2775)),
    ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ((10, 10, 0, 20), (0.6791, 1.0000)),
    ((10, 10, 0, 10), (0.6075, 1.0000)),
]


@pytest.mark.parametrize(("counts", "published"), NEWCOMBE_1998_TABLE_II)
def test_difference_interval_is_newcombes_method_10(
    counts: tuple[int, int, int, int], published: tuple[float, float]
) -> None:
    lo, hi = difference_interval(*counts)
    assert (round(lo, 4), round(hi, 4)) == published


def test_an_uncorrelated_paired_table_gives_the_independent_interval() -> None:
    """ad = bc makes phi 0: the paired interval is then the independent one on the same
    margins."""
    both, first_only, second_only, neither = 20, 30, 20, 30  # 20*30 == 30*20
    n = both + first_only + second_only + neither
    assert paired_difference_interval(both, first_only, second_only, neither) == (
        pytest.approx(difference_interval(both + first_only, n, both + second_only, n))
    )


def test_pairing_narrows_the_interval_when_the_results_go_together() -> None:
    paired = paired_difference_interval(180, 30, 10, 180)
    independent = difference_interval(210, 400, 190, 400)
    assert paired[0] > independent[0] and paired[1] < independent[1]
    assert paired[0] < 20 / 400 < paired[1]


def test_no_discordant_trial_still_gives_an_interval_around_zero() -> None:
    lo, hi = paired_difference_interval(7, 0, 0, 13)
    assert lo < 0 < hi
    assert hi <= wilson_interval(7, 20)[1] - 7 / 20 + 1e-12


@pytest.mark.parametrize("cells", [(0.30, 0.15, 0.05, 0.50), (0.05, 0.02, 0.02, 0.91)])
def test_paired_interval_covers_the_true_difference_95_percent_of_the_time(
    cells: tuple[float, float, float, float],
) -> None:
    """4,000 simulated 2×2 tables of 400 pairs with a known difference: the coverage is
    within a binomial 99.9 % band around the nominal 95 % (Newcombe reports method 10's
    coverage close to nominal; a wrong phi or swapped bounds falls far outside)."""
    rng = np.random.default_rng(20261202)
    truth = cells[1] - cells[2]
    reps, n = 4000, 400
    tables = rng.multinomial(n, cells, size=reps)
    covered = 0
    for a, b, c, d in tables.tolist():
        lo, hi = paired_difference_interval(a, b, c, d)
        covered += lo <= truth <= hi
    rate = covered / reps
    band = 3.29 * (0.95 * 0.05 / reps) ** 0.5
    assert 0.95 - band - 0.01 <= rate <= 0.95 + band + 0.01, rate


def test_paired_difference_counts_the_table_it_passes_on() -> None:
    from escaramuza.rules.core.stats import paired_difference

    first = [True, True, False, False, True, False]
    second = [True, False, False, True, False, False]
    got = paired_difference(first, second)
    # Both won trial 0; first alone 1 and 4; second alone 3; neither 2 and 5.
    assert (got["first_only"], got["second_only"], got["battles"]) == (2, 1, 6)
    assert got["difference"] == 1 / 6
    assert tuple(got["ci95"]) == paired_difference_interval(1, 2, 1, 2)
    with pytest.raises(ValueError, match="3 trials paired with 2"):
        paired_difference([True] * 3, [True] * 2)
