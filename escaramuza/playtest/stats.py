"""The statistics of a playtest: proportions with 95 % Wilson intervals, percentiles, the
difficulty rating and the JSON-ready summary of one scenario (definitions, thresholds
and schema in docs/playtest.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from escaramuza.playtest.records import NEVER, BattleRecord
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import N_
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.stats import wilson_interval

#: Draw reasons always present in the JSON (zero if they never happen), for stable keys.
DRAW_REASONS = ("timeout", "withdrawal", "mutual")

#: Difficulty ratings, hardest first: (name, minimum P(wipe), minimum hero knock-out share).
#: A scenario gets the first rating whose wipe OR knock-out threshold it reaches
#: (docs/playtest.md, "Difficulty rating").
DIFFICULTY_THRESHOLDS: tuple[tuple[str, float, float], ...] = (
    (N_("Deadly"), 0.50, 0.75),
    (N_("Hard"), 0.20, 0.50),
    (N_("Medium"), 0.05, 0.25),
    (N_("Easy"), 0.01, 0.05),
)
TRIVIAL = N_("Trivial")


def round6(x: float) -> float:
    # Six decimals: plenty for rates of n ≤ 10⁶ battles, and a stable, readable JSON.
    return round(x, 6)


def proportion(count: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_interval(count, n)
    return {"ci95": [round6(lo), round6(hi)], "count": count, "rate": round6(count / n)}


def percentile_nearest_rank(sorted_values: Sequence[int], q: float) -> int:
    """Nearest-rank percentile: the smallest value with at least ``q`` of the data ≤ it."""
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def difficulty(p_wipe: float, ko_share: float) -> str:
    """The first (hardest) rating whose wipe or hero knock-out threshold is reached."""
    for name, min_wipe, min_ko in DIFFICULTY_THRESHOLDS:
        if p_wipe >= min_wipe or ko_share >= min_ko:
            return name
    return TRIVIAL


def _outcomes(records: Sequence[BattleRecord]) -> dict[str, Any]:
    n = len(records)
    heroes = sum(r.winner == Side.HEROES.value for r in records)
    enemies = sum(r.winner == Side.ENEMIES.value for r in records)
    draws = [r.reason for r in records if r.winner is None]
    out = {
        "heroes": proportion(heroes, n),
        "enemies": proportion(enemies, n),
        "draw": proportion(len(draws), n),
    }
    for reason in DRAW_REASONS:
        out[f"draw_{reason}"] = proportion(draws.count(reason), n)
    out["draw_other"] = proportion(sum(d not in DRAW_REASONS for d in draws), n)
    return out


def _rounds(records: Sequence[BattleRecord]) -> dict[str, Any]:
    values = sorted(r.rounds for r in records)
    n = len(values)
    mid = n // 2
    median = values[mid] if n % 2 else (values[mid - 1] + values[mid]) / 2
    histogram = [0] * (values[-1] + 1)
    for v in values:
        histogram[v] += 1
    return {
        "histogram": histogram,
        "max": values[-1],
        "mean": round6(sum(values) / n),
        "median": median,
        "min": values[0],
        "p90": percentile_nearest_rank(values, 0.9),
    }


def _combatant(
    scenario: Scenario, i: int, records: Sequence[BattleRecord], side_total: int, horizon: int
) -> dict[str, Any]:
    c = scenario.combatants[i]
    n = len(records)
    rows = [r.combatants[i] for r in records]
    kos = [row.ko_round for row in rows]
    dealt_to_foes = sum(row.dealt_to_foes for row in rows)
    survived = sum(k if k != NEVER else r.rounds for k, r in zip(kos, records, strict=True))
    # S(r) = P(still not knocked out at the end of round r); NEVER counts as standing.
    survival = [round6(sum(k == NEVER or k > r for k in kos) / n) for r in range(horizon + 1)]
    return {
        "damage_share": round6(dealt_to_foes / side_total) if side_total else 0.0,
        "id": c.id,
        "mean_damage_dealt": round6(sum(row.dealt for row in rows) / n),
        "mean_damage_dealt_to_foes": round6(dealt_to_foes / n),
        "mean_damage_taken": round6(sum(row.taken for row in rows) / n),
        "mean_rounds_survived": round6(survived / n),
        "name": c.name,
        "p_dies": proportion(sum(row.died for row in rows), n),
        "p_knocked_out": proportion(sum(k != NEVER for k in kos), n),
        "side": c.side.value,
        "survival": survival,
    }


def summarize(scenario: Scenario, records: Sequence[BattleRecord]) -> dict[str, Any]:
    """The JSON-ready statistics of one scenario (schema in docs/playtest.md)."""
    n = len(records)
    if n == 0:
        raise EscaramuzaError(f"{scenario.name}: no battles to summarize")
    horizon = max(r.rounds for r in records)
    side_totals = {
        side: sum(
            r.combatants[i].dealt_to_foes
            for r in records
            for i, c in enumerate(scenario.combatants)
            if c.side is side
        )
        for side in Side
    }
    combatants = [
        _combatant(scenario, i, records, side_totals[c.side], horizon)
        for i, c in enumerate(scenario.combatants)
    ]
    heroes = [c for c in combatants if c["side"] == Side.HEROES.value]
    enemies = [c for c in combatants if c["side"] == Side.ENEMIES.value]
    # Expected share of the party knocked out: the mean of the heroes' P(knocked out).
    ko_share = sum(h["p_knocked_out"]["rate"] for h in heroes) / len(heroes) if heroes else 0.0
    wipe = proportion(sum(r.wipe for r in records), n)
    top = None
    if enemies and side_totals[Side.ENEMIES] > 0:
        # max() keeps the first of equals: ties go to the earlier enemy in scenario order.
        best = max(enemies, key=lambda e: e["damage_share"])
        top = {"id": best["id"], "name": best["name"], "share": best["damage_share"]}
    return {
        "battles": n,
        "combatants": combatants,
        "difficulty": difficulty(wipe["rate"], ko_share),
        "hero_knockout_share": round6(ko_share),
        "outcomes": _outcomes(records),
        "party_wipe": wipe,
        "rounds": _rounds(records),
        "round_limit": scenario.round_limit,
        "ruleset": scenario.ruleset.id,
        "scenario": scenario.name,
        "title": scenario.title,
        "top_damager": top,
    }
