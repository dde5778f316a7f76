"""Small statistics shared by the playtest reports, the planner and suggestions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: The two-sided 95 % normal quantile.
Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    With p̂ = k/n: centre = (p̂ + z²/2n) / (1 + z²/n) and
    half-width = z·√(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n). Unlike p̂ ± z·√(p̂(1−p̂)/n)
    it stays inside [0, 1] and is not empty at k = 0 or k = n, which matters for
    rare outcomes (a wipe in 3 of 1000 battles).
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denom = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    # At k = 0 (k = n) the bound is exactly 0 (1); say so rather than leave rounding dust.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def mixture_radius(n: int, alpha: float, rho: float) -> float:
    """Half-width of a time-uniform confidence sequence for the mean of values in [0, 1].

    The two-sided normal-mixture boundary of Robbins (1970), in the form of Howard,
    Ramdas, McAuliffe and Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence
    sequences", Ann. Statist. 49(2), 2021 (their normal-mixture boundary): values in
    [0, 1] are sub-Gaussian with variance proxy σ² = 1/4, so with V = nσ² the sum S_n
    of the centred values
    satisfies P(∃n: |S_n| ≥ √(2(V+ρ)·log(√((V+ρ)/ρ)·2/α))) ≤ α. Dividing by n gives
    the radius: the running mean is within it of the true mean at every n at once, with
    probability at least 1 − α, however often it is looked at. ``rho`` > 0 only moves
    where the boundary is tightest (:func:`mixture_rho`), never its error rate.
    """
    if n <= 0:
        return 1.0
    v = n / 4
    return math.sqrt(2 * (v + rho) * math.log(math.sqrt((v + rho) / rho) * 2 / alpha)) / n


def mixture_rho(n_opt: int, alpha: float) -> float:
    """The ρ that makes :func:`mixture_radius` tightest near ``n_opt`` values (Howard et
    al. 2021's choice of ρ = V_opt / (−2·log a + log(1 − 2·log a)) with a = α/2 per side)."""
    a = math.log(2 / alpha)
    return (n_opt / 4) / (2 * a + math.log(1 + 2 * a))


def confidence_sequence(total: float, n: int, alpha: float, rho: float) -> tuple[float, float]:
    """The interval of :func:`mixture_radius` around ``total / n``, clipped to [0, 1]."""
    if n <= 0:
        return 0.0, 1.0
    mean = total / n
    r = mixture_radius(n, alpha, rho)
    return max(0.0, mean - r), min(1.0, mean + r)


def _difference_bounds(
    p1: float,
    ci1: tuple[float, float],
    p2: float,
    ci2: tuple[float, float],
    phi: float,
) -> tuple[float, float]:
    """Newcombe's square-and-add of two Wilson intervals into one for ``p1 - p2``, with
    ``phi`` the correlation of the two estimates (0 for independent samples)."""
    dl1, du1 = p1 - ci1[0], ci1[1] - p1
    dl2, du2 = p2 - ci2[0], ci2[1] - p2
    delta = math.sqrt(max(dl1 * dl1 - 2 * phi * dl1 * du2 + du2 * du2, 0.0))
    eps = math.sqrt(max(du1 * du1 - 2 * phi * du1 * dl2 + dl2 * dl2, 0.0))
    theta = p1 - p2
    return max(-1.0, theta - delta), min(1.0, theta + eps)


def difference_interval(x1: int, n1: int, x2: int, n2: int, z: float = Z95) -> tuple[float, float]:
    """Interval for the difference ``x1/n1 - x2/n2`` of two independent proportions:
    method 10 of Newcombe (1998), "Interval estimation for the difference between
    independent proportions: comparison of eleven methods" (Statistics in Medicine 17,
    873-890), the two Wilson intervals squared and added."""
    if n1 <= 0 or n2 <= 0:
        return -1.0, 1.0
    return _difference_bounds(
        x1 / n1, wilson_interval(x1, n1, z), x2 / n2, wilson_interval(x2, n2, z), 0.0
    )


def paired_difference_interval(
    both: int, first_only: int, second_only: int, neither: int, z: float = Z95
) -> tuple[float, float]:
    """Interval for the difference of two proportions measured on the same trials (two
    agents on the same battles): ``both`` trials where both succeed, ``first_only``,
    ``second_only``, ``neither``. Method 10 of Newcombe (1998), "Improved confidence
    intervals for the difference between binomial proportions based on paired data"
    (Statistics in Medicine 17, 2635-2650): the Wilson intervals of the two margins,
    squared and added with the correlation ``phi = (ad - bc) / sqrt(efgh)`` of the 2×2
    table (0 when a margin is empty). Pairing narrows the interval as far as the two
    agents' results go together."""
    a, b, c, d = both, first_only, second_only, neither
    n = a + b + c + d
    if n <= 0:
        return -1.0, 1.0
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / math.sqrt(margins) if margins > 0 else 0.0
    x1, x2 = a + b, a + c
    return _difference_bounds(
        x1 / n, wilson_interval(x1, n, z), x2 / n, wilson_interval(x2, n, z), phi
    )


def paired_difference(first: Sequence[bool], second: Sequence[bool]) -> dict[str, Any]:
    """Two agents' successes on the same trials: the difference of their rates with
    :func:`paired_difference_interval`, and the discordant trials (one agent only)."""
    if len(first) != len(second):
        raise ValueError(f"{len(first)} trials paired with {len(second)}")
    both = sum(a and b for a, b in zip(first, second, strict=True))
    first_only = sum(a and not b for a, b in zip(first, second, strict=True))
    second_only = sum(b and not a for a, b in zip(first, second, strict=True))
    n = len(first)
    lo, hi = paired_difference_interval(
        both, first_only, second_only, n - both - first_only - second_only
    )
    return {
        "difference": (first_only - second_only) / n if n else 0.0,
        "ci95": [lo, hi],
        "first_only": first_only,
        "second_only": second_only,
        "battles": n,
    }
