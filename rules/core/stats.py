"""Small statistics shared by the playtest reports, the planner and suggestions."""

from __future__ import annotations

import math

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
