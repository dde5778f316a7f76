"""The search of ``escaramuza balance``: the sequential test that decides where one
variant stands against the target, bisection and the grid over the variants, and the
run of it all on the playtest runner (:func:`balance`, the JSON document)."""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from escaramuza.balance.dimensions import LEVELS, Dimension, Target, observations, parse_vary
from escaramuza.playtest.records import BattleRecord
from escaramuza.playtest.runner import (
    MAX_RUN,
    ChunkJob,
    PlaytestConfig,
    Runner,
    ScenarioRef,
    chunk_ranges,
    scenario_engine,
)
from escaramuza.playtest.stats import DIFFICULTY_THRESHOLDS, TRIVIAL, difficulty, round6
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.parsers import parse_yaml
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.stats import confidence_sequence, mixture_rho

SCHEMA = "escaramuza.balance/1"
DEFAULT_ALPHA = 0.05
#: The least --alpha: below it the confidence sequence's log(2 / alpha) overflows.
MIN_ALPHA = 1e-12
FIRST_LOOK = 100
DEFAULT_MAX_BATTLES = 3200
#: The confidence sequence is tightest around this many battles (any value is valid).
RHO_BATTLES = 800
#: Largest grid of variants a search may play.
MAX_GRID = 64


# -- where a variant stands ------------------------------------------------------------


def _at_least(level: str, wipe: tuple[float, float], ko: tuple[float, float]) -> bool | None:
    """Whether the rating is at least ``level`` (wipe OR knock-out threshold reached), decided
    from the two intervals; None while they straddle a threshold."""
    if level == TRIVIAL:
        return True
    _level, min_wipe, min_ko = next(t for t in DIFFICULTY_THRESHOLDS if t[0] == level)
    if wipe[0] >= min_wipe or ko[0] >= min_ko:
        return True
    if wipe[1] < min_wipe and ko[1] < min_ko:
        return False
    return None


def verdict(
    target: Target, obs: dict[str, list[float]], alpha: float, rho: float
) -> tuple[str, dict[str, Any]]:
    """``above``, ``below``, ``on`` or ``undecided`` (the intervals straddle a bound), and
    the estimates. A level target uses both wipe and knock-out intervals, each at α/2, so
    both cover at once with probability ≥ 1 − α."""
    n = len(obs["wipe"])
    names = ("wipe", "knockout") if target.level is not None else (target.measure or "",)
    level_alpha = alpha / len(names)
    est: dict[str, Any] = {}
    for name in names:
        lo, hi = confidence_sequence(sum(obs[name]), n, level_alpha, rho)
        est[name] = {"rate": round6(sum(obs[name]) / n), "cs": [round6(lo), round6(hi)]}
    if target.level is None:
        lo, hi = est[names[0]]["cs"]
        band = (target.value - target.tolerance, target.value + target.tolerance)
        if lo > band[1]:
            return "above", est
        if hi < band[0]:
            return "below", est
        return ("on" if band[0] <= lo and hi <= band[1] else "undecided"), est
    wipe, ko = tuple(est["wipe"]["cs"]), tuple(est["knockout"]["cs"])
    est["difficulty"] = difficulty(est["wipe"]["rate"], est["knockout"]["rate"])
    i = LEVELS.index(target.level)
    harder = _at_least(LEVELS[i + 1], wipe, ko) if i + 1 < len(LEVELS) else False
    here = _at_least(target.level, wipe, ko)
    if harder:
        return "above", est
    if here is False:
        return "below", est
    return ("on" if here and harder is False else "undecided"), est


def point_side(target: Target, est: dict[str, Any]) -> str:
    """Where the point estimates put a variant the sequence left undecided."""
    if target.level is not None:
        i, j = LEVELS.index(est["difficulty"]), LEVELS.index(target.level)
        return "on" if i == j else ("above" if i > j else "below")
    rate = est[target.measure or ""]["rate"]
    if abs(rate - target.value) <= target.tolerance:
        return "on"
    return "above" if rate > target.value else "below"


def distance(target: Target, est: dict[str, Any]) -> float:
    if target.level is not None:
        return abs(LEVELS.index(est["difficulty"]) - LEVELS.index(target.level))
    return abs(est[target.measure or ""]["rate"] - target.value)


# -- the search ----------------------------------------------------------------------------


@dataclass(slots=True)
class Tried:
    """One variant played: which values, what was decided, after how many battles."""

    point: tuple[int, ...]
    labels: tuple[str, ...]
    verdict: str  # above / below / on / undecided
    side: str  # verdict, or the point estimates' side when undecided
    battles: int
    estimates: dict[str, Any]
    text: str = ""


#: Plays a variant: (its point, how many battles in all) → its records so far.
Play = Callable[[tuple[int, ...], int], list[BattleRecord]]


def looks(first: int, most: int) -> list[int]:
    """Battles played at each look: first, 2·first, … up to ``most`` (always included)."""
    out = [first]
    while out[-1] < most:
        out.append(min(out[-1] * 2, most))
    return out


def sequential(
    target: Target,
    measure: Callable[[int], dict[str, list[float]]],
    alpha: float,
    first: int = FIRST_LOOK,
    most: int = DEFAULT_MAX_BATTLES,
) -> tuple[str, str, int, dict[str, Any]]:
    """Look after ``first``, ``2·first``… battles until decided or ``most`` are played."""
    rho = mixture_rho(RHO_BATTLES, alpha)
    for n in looks(first, most):
        obs = measure(n)
        v, est = verdict(target, obs, alpha, rho)
        if v != "undecided":
            return v, v, n, est
    return v, point_side(target, est), n, est


def bisect(evaluate: Callable[[int], str], size: int) -> list[int]:
    """Bisection over indices 0…size−1 of an ordered dimension, the measure assumed
    monotone: the ends first, then the middle of the bracket whose ends are on opposite
    sides, until a variant is on the target or the bracket is two neighbours. Returns
    the indices evaluated, in order. ``evaluate`` gives each one's side."""
    order = [0]
    lo_side = evaluate(0)
    if lo_side == "on" or size == 1:
        return order
    hi = size - 1
    order.append(hi)
    hi_side = evaluate(hi)
    if hi_side == "on" or hi_side == lo_side:
        return order
    lo = 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        order.append(mid)
        side = evaluate(mid)
        if side == "on":
            break
        if side == lo_side:
            lo = mid
        else:
            hi = mid
    return order


def search(
    dims: Sequence[Dimension], target: Target, evaluate: Callable[[tuple[int, ...]], Tried]
) -> list[Tried]:
    """Bisection on the last ordered dimension, a grid over the others."""
    ordered = [i for i, d in enumerate(dims) if d.ordered]
    axis = ordered[-1] if ordered else None
    others = [range(len(d.labels)) if i != axis else range(1) for i, d in enumerate(dims)]
    # Counted from the sizes, not from the product itself: a few --vary of many values
    # each would build billions of tuples before the count could refuse them.
    total = math.prod(len(r) for r in others)
    if total > MAX_GRID:
        raise EscaramuzaError(
            _f("--vary: {total} combinations to grid; at most {most}", total, MAX_GRID)
        )
    tried: list[Tried] = []
    for base in itertools.product(*others):
        if axis is None:
            tried.append(evaluate(tuple(base)))
            continue

        def at(k: int, base: tuple[int, ...] = tuple(base)) -> str:
            point = base[:axis] + (k,) + base[axis + 1 :]
            result = evaluate(point)
            tried.append(result)
            return result.side

        bisect(at, len(dims[axis].labels))
    return tried


def choose(target: Target, tried: Sequence[Tried]) -> Tried:
    """Decided on-target first, then on-target by the point estimates, then the closest;
    ties go to the variant tried first."""
    return min(
        tried,
        key=lambda t: (
            0 if t.verdict == "on" else 1 if t.side == "on" else 2,
            distance(target, t.estimates),
        ),
    )


# -- running it on the engine ---------------------------------------------------------------


@dataclass(slots=True)
class BalanceRun:
    scenario: Scenario
    data: dict[str, Any]
    dims: list[Dimension]
    target: Target
    config: PlaytestConfig
    alpha: float = DEFAULT_ALPHA
    first: int = FIRST_LOOK
    most: int = DEFAULT_MAX_BATTLES
    records: dict[tuple[int, ...], list[BattleRecord]] = field(default_factory=dict)

    def variant_text(self, point: tuple[int, ...]) -> str:
        data = copy.deepcopy(self.data)
        for dim, k in zip(self.dims, point, strict=True):
            dim.apply(data, k)
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)

    def ref(self, point: tuple[int, ...]) -> ScenarioRef:
        label = ", ".join(f"{d.key}={d.labels[k]}" for d, k in zip(self.dims, point, strict=True))
        ref = ScenarioRef(
            self.scenario.name, f"{self.scenario.source} [{label}]", self.variant_text(point)
        )
        ref.load()  # an invalid variant (an unknown die, an empty side) fails here, clearly
        return ref

    def battles(self, runner: Runner, point: tuple[int, ...], n: int) -> list[BattleRecord]:
        have = self.records.setdefault(point, [])
        if len(have) < n:
            cfg = self.config
            ref = self.ref(point)
            size = cfg.chunk_size or max(1, math.ceil((n - len(have)) / (4 * cfg.processes)))
            # The variant's engine as playtest chooses it (--engine; auto: its ruleset's
            # kernel where it plays the scenario and agents): the same battles either way.
            engine, _why = scenario_engine(ref.load(), cfg)
            jobs = [
                ChunkJob.of(ref, cfg, engine, a, b) for a, b in chunk_ranges(len(have), n, size)
            ]
            have.extend(runner.run(jobs, lambda _n: None))
            have.sort(key=lambda r: r.index)
        return have[:n]

    def run(self, runner: Runner) -> list[Tried]:
        def evaluate(point: tuple[int, ...]) -> Tried:
            def measure(n: int) -> dict[str, list[float]]:
                return observations(self.scenario, self.battles(runner, point, n))

            v, side, n, est = sequential(self.target, measure, self.alpha, self.first, self.most)
            labels = tuple(d.labels[k] for d, k in zip(self.dims, point, strict=True))
            return Tried(point, labels, v, side, n, est)

        return search(self.dims, self.target, evaluate)


def balance(
    scenario_name: str,
    target: Target,
    vary: Sequence[str],
    config: PlaytestConfig,
    alpha: float = DEFAULT_ALPHA,
    first: int = FIRST_LOOK,
    most: int = DEFAULT_MAX_BATTLES,
    runner: Runner | None = None,
) -> dict[str, Any]:
    """Search the variants of ``scenario_name``; return the JSON document."""
    config.validate()
    if not MIN_ALPHA <= alpha < 1:
        raise EscaramuzaError(
            _f("--alpha must be at least {least} and below 1, not {alpha}", MIN_ALPHA, alpha)
        )
    if not 0 < first <= most:
        raise EscaramuzaError(_("--max-battles must be at least the first look's battles"))
    if most > MAX_RUN:
        raise EscaramuzaError(
            _f("--max-battles must be at most {most}, not {n}", f"{MAX_RUN:,}", most)
        )
    if not vary:
        raise EscaramuzaError(_("name at least one --vary"))
    base = ScenarioRef.resolve(scenario_name)
    scenario = base.load()
    data = parse_yaml(base.text, base.source, EscaramuzaError)
    dims = [parse_vary(data, spec) for spec in vary]
    keys = [d.key for d in dims]
    twice = next((k for k in keys if keys.count(k) > 1), None)
    if twice is not None:
        raise EscaramuzaError(_f("--vary {what} is given twice: vary each one once", twice))
    job = BalanceRun(scenario, data, dims, target, config, alpha, first, most)
    own = runner is None
    active = runner if runner is not None else Runner(config)
    try:
        active.start()
        tried = job.run(active)
    finally:
        if own:
            active.close()
    chosen = choose(target, tried)
    chosen.text = job.variant_text(chosen.point)
    return {
        "schema": SCHEMA,
        "scenario": scenario.name,
        "seed": config.seed,
        "agents": {"heroes": config.heroes, "enemies": config.enemies},
        "engine": config.engine,
        "target": target.label(),
        "alpha": alpha,
        "vary": [{"spec": d.spec, "values": d.labels, "ordered": d.ordered} for d in dims],
        "tried": [_tried_json(t, dims) for t in tried],
        "chosen": _tried_json(chosen, dims),
        "yaml": chosen.text,
    }


def _tried_json(t: Tried, dims: Sequence[Dimension]) -> dict[str, Any]:
    return {
        "values": {d.key: label for d, label in zip(dims, t.labels, strict=True)},
        "plot_x": [d.values[k] for d, k in zip(dims, t.point, strict=True)],
        "verdict": t.verdict,
        "side": t.side,
        "battles": t.battles,
        "estimates": t.estimates,
    }
