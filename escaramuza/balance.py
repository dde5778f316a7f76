"""``escaramuza balance SCENARIO --target LEVEL --vary SPEC…``: search an encounter's variants
for the one closest to a target difficulty.

Each variant plays battles in looks of 100, 200, 400… (up to ``--max-battles``) until a
time-uniform 1 − α confidence sequence (:func:`~escaramuza.rules.core.stats.mixture_radius`,
Howard et al. 2021) decides whether it is above, below or on the target: with the
sequence valid at every look at once, a decision is wrong with probability at most α
however many looks it took (docs/playtest.md, "Balancing an encounter"). The next
variant is chosen by bisection on an ordered dimension (enemy count, a stat's scale or
die) and by a grid over unordered ones (starting zones). Every variant plays battle
``i`` with the same seed as playtest's battle ``i`` (common random numbers), so the
written variant reproduces its rates with ``escaramuza playtest FILE --seed S -n N``, and
the search is the same for any worker count and either backend.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import yaml

from escaramuza.agents.fast import add_engine_option
from escaramuza.agents.policy import add_trust_option
from escaramuza.playtest.cli import add_run_options, report_folder, run_config
from escaramuza.playtest.records import NEVER, BattleRecord
from escaramuza.playtest.runner import (
    ChunkJob,
    PlaytestConfig,
    Runner,
    ScenarioRef,
    chunk_ranges,
    scenario_engine,
)
from escaramuza.playtest.stats import DIFFICULTY_THRESHOLDS, TRIVIAL, difficulty, round6
from escaramuza.playtest.text import table
from escaramuza.rules.core.dice import STANDARD_DICE
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.files import atomic_write, parse_yaml
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.stats import confidence_sequence, mixture_rho

SCHEMA = "escaramuza.balance/1"
DEFAULT_ALPHA = 0.05
DEFAULT_TOLERANCE = 0.05
FIRST_LOOK = 100
DEFAULT_MAX_BATTLES = 3200
#: The confidence sequence is tightest around this many battles (any value is valid).
RHO_BATTLES = 800
#: Largest grid of variants a search may play.
MAX_GRID = 64
#: Difficulty levels, easiest first (docs/playtest.md, "Difficulty rating").
LEVELS = (TRIVIAL, *(name for name, _wipe, _ko in reversed(DIFFICULTY_THRESHOLDS)))
#: Numeric targets: name → the per-battle value in [0, 1] whose mean is the measure.
MEASURES = ("heroes-win", "enemies-win", "wipe", "knockout")


# -- target -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Target:
    """A difficulty level (``hard``) or a measure with a band (``wipe=0.1`` ± tolerance)."""

    level: str | None = None
    measure: str | None = None
    value: float = 0.0
    tolerance: float = DEFAULT_TOLERANCE

    @staticmethod
    def parse(text: str, tolerance: float = DEFAULT_TOLERANCE) -> Target:
        for level in LEVELS:
            if text.lower() == level.lower():
                return Target(level=level)
        name, sep, number = text.partition("=")
        if sep and name in MEASURES:
            try:
                value = float(number)
            except ValueError:
                value = math.nan
            if 0.0 <= value <= 1.0:
                return Target(measure=name, value=value, tolerance=tolerance)
            raise EscaramuzaError(f"--target {text}: {name} is a rate between 0 and 1")
        raise EscaramuzaError(
            f"--target {text!r}: a difficulty level ({', '.join(x.lower() for x in LEVELS)}) "
            f"or MEASURE=RATE with MEASURE one of {', '.join(MEASURES)}"
        )

    def label(self) -> str:
        if self.level is not None:
            return self.level.lower()
        return f"{self.measure}={self.value:g}±{self.tolerance:g}"


def observations(scenario: Scenario, records: Sequence[BattleRecord]) -> dict[str, list[float]]:
    """Each battle's value of every measure, all in [0, 1]."""
    heroes = [i for i, c in enumerate(scenario.combatants) if c.side is Side.HEROES]
    return {
        "heroes-win": [float(r.winner == Side.HEROES.value) for r in records],
        "enemies-win": [float(r.winner == Side.ENEMIES.value) for r in records],
        "wipe": [float(r.wipe) for r in records],
        # The share of the party knocked out in this battle: its mean is playtest's
        # hero knock-out share.
        "knockout": [
            sum(r.combatants[i].ko_round != NEVER for i in heroes) / len(heroes) for r in records
        ],
    }


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


# -- what varies -------------------------------------------------------------------------


Apply = Callable[[dict[str, Any], int], None]


@dataclass(slots=True)
class Dimension:
    spec: str
    labels: list[str]
    apply: Apply
    ordered: bool = True
    values: list[float] = field(default_factory=list)  # the plotted quantity


def _combatants(data: dict[str, Any], who: str, spec: str) -> list[dict[str, Any]]:
    found = [c for c in data["combatants"] if who in (c.get("id"), c.get("side"))]
    if not found:
        ids = ", ".join(str(c.get("id")) for c in data["combatants"])
        raise EscaramuzaError(f"--vary {spec}: no combatant {who!r} (heroes, enemies, {ids})")
    return found


def _range(text: str, spec: str) -> tuple[str, str]:
    lo, sep, hi = text.partition("..")
    if not sep or not lo or not hi:
        raise EscaramuzaError(f"--vary {spec}: a range is LOW..HIGH (e.g. 1..6, *0.5..*2, d6..d12)")
    return lo.strip(), hi.strip()


def _number(text: str, spec: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise EscaramuzaError(f"--vary {spec}: {text!r} is not a number") from None


def _count(data: dict[str, Any], spec: str, body: str) -> Dimension:
    who, _sep, rng = body.partition("=")
    lo, hi = (int(_number(x, spec)) for x in _range(rng, spec))
    if not 0 <= lo <= hi:
        raise EscaramuzaError(f"--vary {spec}: counts run from 0 up, low ≤ high")
    [base] = _combatants(data, who, spec)[:1]
    if base.get("id") != who:
        raise EscaramuzaError(f"--vary {spec}: count: takes one combatant's id")

    def apply(d: dict[str, Any], k: int) -> None:
        count = lo + k
        pos = next(i for i, c in enumerate(d["combatants"]) if c.get("id") == who)
        original = d["combatants"][pos]
        copies = []
        for j in range(count):
            c = copy.deepcopy(original)
            if j:
                c["id"] = f"{who}_{j + 1}"
                c["name"] = f"{original.get('name', who)} ({j + 1})"
            copies.append(c)
        d["combatants"][pos : pos + 1] = copies

    values = list(range(lo, hi + 1))
    return Dimension(spec, [str(v) for v in values], apply, True, [float(v) for v in values])


def _stat(data: dict[str, Any], spec: str, body: str) -> Dimension:
    where, _sep, rng = body.partition("=")
    who, _sep, key = where.partition(".")
    if not key:
        raise EscaramuzaError(f"--vary {spec}: stat:WHO.FIELD=RANGE (WHO an id, heroes or enemies)")
    targets = [i for i, c in enumerate(data["combatants"]) if c in _combatants(data, who, spec)]
    lo, hi = _range(rng, spec)
    bases = [data["combatants"][i].get(key) for i in targets]
    if lo.lower().startswith("d") and hi.lower().startswith("d"):
        a, b = int(_number(lo[1:], spec)), int(_number(hi[1:], spec))
        sizes = [s for s in STANDARD_DICE if a <= s <= b]
        labels = [f"d{s}" for s in sizes]
        results: list[list[Any]] = [[label] * len(targets) for label in labels]
        values = [float(s) for s in sizes]
    else:
        if any(not isinstance(b, int) for b in bases):
            raise EscaramuzaError(f"--vary {spec}: {key} is not a number on every target")
        if lo.startswith("*") and hi.startswith("*"):
            fa, fb = _number(lo[1:], spec), _number(hi[1:], spec)
            results, labels, values = [], [], []
            steps = max(1, round((fb - fa) / 0.01))
            for s in range(steps + 1):
                f = fa + (fb - fa) * s / steps
                row = [max(1, round(b * f)) for b in bases]
                if not results or row != results[-1]:
                    results.append(row)
                    labels.append(f"×{f:.2f}")
                    values.append(f)
        elif lo[0] in "+-" and hi[0] in "+-":
            shifts = range(int(_number(lo, spec)), int(_number(hi, spec)) + 1)
            results = [[b + s for b in bases] for s in shifts]
            labels = [f"{s:+d}" for s in shifts]
            values = [float(s) for s in shifts]
        else:
            absolute = range(int(_number(lo, spec)), int(_number(hi, spec)) + 1)
            results = [[v] * len(targets) for v in absolute]
            labels = [str(v) for v in absolute]
            values = [float(v) for v in absolute]
    if not results:
        raise EscaramuzaError(f"--vary {spec}: the range holds no value")

    def apply(d: dict[str, Any], k: int) -> None:
        for i, value in zip(targets, results[k], strict=True):
            d["combatants"][i][key] = value

    return Dimension(spec, labels, apply, True, values)


def _zones(data: dict[str, Any], spec: str, body: str) -> Dimension:
    side, _sep, names = body.partition("=")
    if side not in (Side.HEROES.value, Side.ENEMIES.value) or not names:
        raise EscaramuzaError(f"--vary {spec}: zones:SIDE=ZONE,ZONE… with SIDE heroes or enemies")
    zones = [z.strip() for z in names.split(",") if z.strip()]

    def apply(d: dict[str, Any], k: int) -> None:
        for c in d["combatants"]:
            if c.get("side") == side:
                c["zone"] = zones[k]

    return Dimension(spec, zones, apply, False, [float(i) for i in range(len(zones))])


def parse_vary(data: dict[str, Any], spec: str) -> Dimension:
    kind, sep, body = spec.partition(":")
    makers = {"count": _count, "stat": _stat, "zones": _zones}
    if not sep or kind not in makers:
        raise EscaramuzaError(
            f"--vary {spec!r}: count:ID=LOW..HIGH, stat:WHO.FIELD=RANGE or zones:SIDE=Z1,Z2…"
        )
    return makers[kind](data, spec, body)


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
    grid = list(itertools.product(*others))
    total = len(grid)
    if total > MAX_GRID:
        raise EscaramuzaError(f"--vary: {total} combinations to grid; at most {MAX_GRID}")
    tried: list[Tried] = []
    for base in grid:
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
        label = ", ".join(
            f"{d.spec.split('=')[0]}={d.labels[k]}" for d, k in zip(self.dims, point, strict=True)
        )
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
                ChunkJob(ref, cfg.heroes, cfg.enemies, cfg.seed, a, b, cfg.trust_policy, engine)
                for a, b in chunk_ranges(len(have), n, size)
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
    if not 0 < alpha < 1:
        raise EscaramuzaError(f"--alpha must be between 0 and 1, not {alpha}")
    if not 0 < first <= most:
        raise EscaramuzaError("--max-battles must be at least the first look's battles")
    if not vary:
        raise EscaramuzaError("name at least one --vary")
    base = ScenarioRef.resolve(scenario_name)
    scenario = base.load()
    data = parse_yaml(base.text, base.source, EscaramuzaError)
    dims = [parse_vary(data, spec) for spec in vary]
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
        "target": target.label(),
        "alpha": alpha,
        "vary": [{"spec": d.spec, "values": d.labels, "ordered": d.ordered} for d in dims],
        "tried": [_tried_json(t, dims) for t in tried],
        "chosen": _tried_json(chosen, dims),
        "yaml": chosen.text,
    }


def _tried_json(t: Tried, dims: Sequence[Dimension]) -> dict[str, Any]:
    return {
        "values": {d.spec.split("=")[0]: label for d, label in zip(dims, t.labels, strict=True)},
        "plot_x": [d.values[k] for d, k in zip(dims, t.point, strict=True)],
        "verdict": t.verdict,
        "side": t.side,
        "battles": t.battles,
        "estimates": t.estimates,
    }


# -- output ----------------------------------------------------------------------------------

#: The measures and verdicts in words (the JSON keeps the names ``--target`` takes).
_MEASURE_WORDS = {
    "heroes-win": N_("heroes win"),
    "enemies-win": N_("enemies win"),
    "wipe": N_("party wipe"),
    "knockout": N_("heroes knocked out"),
}
_VERDICT_WORDS = {
    "above": N_("above"),
    "below": N_("below"),
    "on": N_("on target"),
    "undecided": N_("undecided"),
}


def _measure(name: str) -> str:
    found = _MEASURE_WORDS.get(name)
    return name if found is None else _(found)


def _verdict(t: dict[str, Any]) -> str:
    said = _(_VERDICT_WORDS[t["verdict"]])
    if t["verdict"] == "undecided":
        return _f("{verdict} ({side})", said, _(_VERDICT_WORDS[t["side"]]))
    return said


def _target(label: str) -> str:
    """The target in words: a level (``hard`` → ``difícil``); a measure's band as typed."""
    for level in LEVELS:
        if label == level.lower():
            return _(level).lower()
    return label


def _cell(est: dict[str, Any]) -> str:
    lo, hi = est["cs"]
    return f"{100 * est['rate']:5.1f}% [{100 * lo:.1f}–{100 * hi:.1f}]"


def render_text(doc: dict[str, Any]) -> str:
    names = [k for k in doc["tried"][0]["estimates"] if k != "difficulty"]
    header = [
        "#",
        *[v["spec"].split("=")[0] for v in doc["vary"]],
        _("verdict"),
        *[_measure(k) for k in names],
    ]
    if doc["tried"][0]["estimates"].get("difficulty"):
        header.append(_("difficulty"))
    header.append(_("battles"))
    rows = [header]
    for i, t in enumerate(doc["tried"], 1):
        row = [
            str(i),
            *t["values"].values(),
            _verdict(t),
            *[_cell(t["estimates"][k]) for k in names],
        ]
        if "difficulty" in t["estimates"]:
            row.append(_(t["estimates"]["difficulty"]))
        row.append(str(t["battles"]))
        rows.append(row)
    chosen = doc["chosen"]
    lines = [
        _f(
            "balance {scenario} to {target}, seed {seed}: every variant tried, rates with "
            "{confidence} confidence sequences (valid at every look).",
            doc["scenario"],
            _target(doc["target"]),
            doc["seed"],
            format(100 * (1 - doc["alpha"]), "g") + "%",
        ),
        "",
        *table(rows),
        "",
        _f(
            "chosen: {values} ({verdict}, {n} battles)",
            ", ".join(f"{k}={v}" for k, v in chosen["values"].items()),
            _verdict(chosen),
            chosen["battles"],
        ),
    ]
    return "\n".join(lines) + "\n"


def out_text(doc: dict[str, Any], command: str) -> str:
    chosen = doc["chosen"]
    rates = ", ".join(
        f"{_measure(k)} {v['rate']:.3f}"
        for k, v in chosen["estimates"].items()
        if k != "difficulty"
    )
    # A YAML comment for the person who opens the file: in the run's language.
    head = "".join(
        f"# {line}\n"
        for line in (
            _f("Found by `{command}`:", command),
            _f(
                "target {target}, {values} ({verdict}) after {variants} variant(s); its {n} "
                "battles with seed {seed} gave {rates}.",
                _target(doc["target"]),
                ", ".join(f"{k}={v}" for k, v in chosen["values"].items()),
                _verdict(chosen),
                len(doc["tried"]),
                chosen["battles"],
                doc["seed"],
                rates,
            ),
            _f(
                "`{command}` reproduces them.",
                f"escaramuza playtest FILE -n {chosen['battles']} --seed {doc['seed']}",
            ),
        )
    )
    return head + doc["yaml"]


def plot(doc: dict[str, Any]) -> bytes:
    """The target measure (point and confidence sequence) against the varied quantity."""
    import matplotlib

    from escaramuza.playtest.report import RC, figure, png

    names = [k for k in doc["tried"][0]["estimates"] if k != "difficulty"]
    with matplotlib.rc_context(RC):
        fig = figure()
        ax = fig.add_subplot()
        axis = max((i for i, v in enumerate(doc["vary"]) if v["ordered"]), default=0)
        for name in names:
            pts = sorted((t["plot_x"][axis], t["estimates"][name]) for t in doc["tried"])
            xs = [p[0] for p in pts]
            ax.errorbar(
                xs,
                [p[1]["rate"] for p in pts],
                marker="o",
                capsize=3,
                label=_measure(name),
                linestyle="none",
                yerr=[
                    [p[1]["rate"] - p[1]["cs"][0] for p in pts],
                    [p[1]["cs"][1] - p[1]["rate"] for p in pts],
                ],
            )
        ax.set_xlabel(doc["vary"][axis]["spec"])
        ax.set_ylabel(_("rate (confidence sequence)"))
        ax.set_ylim(0, 1.05)
        ax.set_title(_f("{scenario}: toward {target}", doc["scenario"], _target(doc["target"])))
        ax.legend()
        fig.tight_layout()
        return png(fig)


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "balance",
        help=_("find the variant of an encounter closest to a target difficulty"),
        description=_(
            "Vary SCENARIO (--vary count:ID=1..6, stat:enemies.pv=*0.5..*2, "
            "stat:ID.cuerpo=d6..d12, zones:enemies=Z1,Z2) and find the variant on --target "
            "(a difficulty level easy…deadly, or heroes-win=0.6, wipe=0.1…): each variant "
            "plays battles until a confidence sequence decides it is above, below or on the "
            "target; bisection picks the next. See docs/playtest.md."
        ),
    )
    parser.add_argument("scenario", metavar="SCENARIO", help=_("shipped name or path"))
    parser.add_argument(
        "--target",
        required=True,
        help=_("trivial, easy, medium, hard, deadly, or MEASURE=RATE"),
    )
    parser.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="SPEC",
        help=_("what may vary (repeatable)"),
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=DEFAULT_TOLERANCE,
        help=_f("half-width of a numeric target's band (default {tolerance})", DEFAULT_TOLERANCE),
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=DEFAULT_ALPHA,
        help=_f("error rate of each variant's decision (default {alpha})", DEFAULT_ALPHA),
    )
    parser.add_argument(
        "--max-battles",
        type=int,
        default=DEFAULT_MAX_BATTLES,
        help=_f("battles per variant at most (default {n})", DEFAULT_MAX_BATTLES),
    )
    # No bar of its own (each variant's looks are short, and the table says what was
    # tried), but --no-progress as in every command that plays battles: it silences the
    # other progress lines too (a kernel's first compile, escaramuza/progress.py).
    add_run_options(parser)
    add_engine_option(parser, N_("the battles"))
    parser.add_argument("--out", metavar="FILE", help=_("write the chosen variant's YAML"))
    parser.add_argument("--report", metavar="DIR", help=_("write summary.json and a plot to DIR"))
    add_trust_option(parser)
    return parser


def cmd_balance(args: argparse.Namespace, out: TextIO) -> int:
    config = run_config(args, 1)
    target = Target.parse(args.target, args.tolerance)
    report_dir = report_folder(args)
    doc = balance(
        args.scenario,
        target,
        args.vary,
        config,
        args.alpha,
        min(FIRST_LOOK, args.max_battles),
        args.max_battles,
    )
    command = "escaramuza balance " + " ".join(
        [
            args.scenario,
            "--target",
            args.target,
            *[f"--vary {v}" for v in args.vary],
            "--seed",
            str(args.seed),
        ]
    )
    if args.out is not None:
        try:
            atomic_write(Path(args.out), out_text(doc, command))
        except OSError as exc:
            raise EscaramuzaError(f"--out {args.out}: cannot write ({exc.strerror})") from None
    if report_dir is not None:
        from escaramuza.playtest.report import write_files

        write_files(
            report_dir,
            {
                "summary.json": json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=2)
                + "\n",
                "balance.png": plot(doc),
            },
        )
    out.write(
        json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
        if args.json
        else render_text(doc)
    )
    return 0
