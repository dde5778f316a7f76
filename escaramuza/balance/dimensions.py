"""What ``escaramuza balance`` aims at and what a variant varies: the target (a difficulty
level or a measure's band), each battle's measures, and the ``--vary`` dimensions.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from escaramuza.playtest.records import NEVER, BattleRecord
from escaramuza.playtest.stats import DIFFICULTY_THRESHOLDS, TRIVIAL
from escaramuza.rules.core.dice import STANDARD_DICE
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _f
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import Scenario

DEFAULT_TOLERANCE = 0.05
#: Difficulty levels, easiest first (docs/playtest.md, "Difficulty rating").
LEVELS = (TRIVIAL, *(name for name, _wipe, _ko in reversed(DIFFICULTY_THRESHOLDS)))
#: Numeric targets: name → the per-battle value in [0, 1] whose mean is the measure.
MEASURES = ("heroes-win", "enemies-win", "wipe", "knockout")
#: Most values one ``--vary`` dimension takes: bisection plays at most 12 of 1,000 (the two
#: ends and ⌈log₂ 999⌉ = 10 middles) and a gridded dimension is held to 64 (MAX_GRID), so a
#: longer range would only lengthen the report's list of values. Every range is counted
#: before any of its values is built: ``0..999999999`` must not build a billion.
MAX_VALUES = 1000
#: The step between two multipliers of a ``*LOW..*HIGH`` range.
MULTIPLIER_STEP = 0.01


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
        # A negative or NaN half-width leaves no rate inside the band: every variant
        # would be played to --max-battles and the search would end on none.
        if not 0.0 <= tolerance < 1.0:  # also refuses NaN
            raise EscaramuzaError(
                _f("--tolerance must be at least 0 and below 1, not {tolerance}", tolerance)
            )
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
            raise EscaramuzaError(
                _f("--target {text}: {name} is a rate between 0 and 1", text, name)
            )
        raise EscaramuzaError(
            _f(
                "--target {text}: a difficulty level ({levels}) or MEASURE=RATE with MEASURE "
                "one of {measures}",
                repr(text),
                ", ".join(x.lower() for x in LEVELS),
                ", ".join(MEASURES),
            )
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


# -- what varies -------------------------------------------------------------------------


Apply = Callable[[dict[str, Any], int], None]


@dataclass(slots=True)
class Dimension:
    spec: str
    labels: list[str]
    apply: Apply
    ordered: bool = True
    values: list[float] = field(default_factory=list)  # the plotted quantity

    @property
    def key(self) -> str:
        """What varies: the spec before its ``=`` (``stat:enemies.pv``)."""
        return self.spec.split("=", 1)[0]


def _combatants(data: dict[str, Any], who: str, spec: str) -> list[dict[str, Any]]:
    found = [c for c in data["combatants"] if who in (c.get("id"), c.get("side"))]
    if not found:
        # The sides' names first: WHO may be a side as well as an id.
        names = [
            Side.HEROES.value,
            Side.ENEMIES.value,
            *(str(c.get("id")) for c in data["combatants"]),
        ]
        raise EscaramuzaError(
            _f("--vary {spec}: no combatant {who} ({names})", spec, repr(who), ", ".join(names))
        )
    return found


def _range(text: str, spec: str) -> tuple[str, str]:
    lo, sep, hi = text.partition("..")
    if not sep or not lo or not hi:
        raise EscaramuzaError(
            _f("--vary {spec}: a range is LOW..HIGH (e.g. 1..6, *0.5..*2, d6..d12)", spec)
        )
    return lo.strip(), hi.strip()


def _number(text: str, spec: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise EscaramuzaError(
            _f("--vary {spec}: {text} is not a number", spec, repr(text))
        ) from None
    if not math.isfinite(value):  # nan, inf, 1e999: no range can be counted from them
        raise EscaramuzaError(_f("--vary {spec}: {text} is not a finite number", spec, repr(text)))
    return value


def _too_many(spec: str) -> EscaramuzaError:
    return EscaramuzaError(
        _f(
            "--vary {spec}: a dimension takes at most {most} values, and this range holds more",
            spec,
            MAX_VALUES,
        )
    )


def _whole_numbers(lo: str, hi: str, spec: str) -> range:
    """The whole numbers LOW…HIGH, their count checked before anything is built."""
    ends = _number(lo, spec), _number(hi, spec)
    for text, value in zip((lo, hi), ends, strict=True):
        if value != int(value):  # 1.5..3 is not silently 1..3
            raise EscaramuzaError(
                _f("--vary {spec}: {text} is not a whole number", spec, repr(text))
            )
    first, last = int(ends[0]), int(ends[1])
    if last - first + 1 > MAX_VALUES:
        raise _too_many(spec)
    return range(first, last + 1)


def _count(data: dict[str, Any], spec: str, body: str) -> Dimension:
    who, _sep, rng = body.partition("=")
    counts = _whole_numbers(*_range(rng, spec), spec)
    if not counts or counts.start < 0:
        raise EscaramuzaError(_f("--vary {spec}: counts run from 0 up, low ≤ high", spec))
    lo = counts.start
    [base] = _combatants(data, who, spec)[:1]
    if base.get("id") != who:
        raise EscaramuzaError(_f("--vary {spec}: count: takes one combatant's id", spec))

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

    return Dimension(spec, [str(v) for v in counts], apply, True, [float(v) for v in counts])


def _stat(data: dict[str, Any], spec: str, body: str) -> Dimension:
    where, _sep, rng = body.partition("=")
    who, _sep, key = where.partition(".")
    if not key:
        raise EscaramuzaError(
            _f("--vary {spec}: stat:WHO.FIELD=RANGE (WHO an id, heroes or enemies)", spec)
        )
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
            raise EscaramuzaError(
                _f("--vary {spec}: {key} is not a number on every target", spec, key)
            )
        if lo.startswith("*") and hi.startswith("*"):
            fa, fb = _number(lo[1:], spec), _number(hi[1:], spec)
            if fa <= 0 or fb <= 0:
                raise EscaramuzaError(
                    _f("--vary {spec}: a multiplier must be above 0 (e.g. *0.5..*2)", spec)
                )
            results, labels, values = [], [], []
            # Counted before the loop: (fb - fa) / step may be huge, even infinite.
            ratio = (fb - fa) / MULTIPLIER_STEP
            steps = max(1, round(ratio)) if math.isfinite(ratio) else MAX_VALUES
            if steps + 1 > MAX_VALUES:
                raise _too_many(spec)
            for s in range(steps + 1):
                f = fa + (fb - fa) * s / steps
                row = [max(1, round(b * f)) for b in bases]
                if not results or row != results[-1]:
                    results.append(row)
                    labels.append(f"×{f:.2f}")
                    values.append(f)
        elif lo[0] in "+-" and hi[0] in "+-":
            shifts = _whole_numbers(lo, hi, spec)
            results = [[b + s for b in bases] for s in shifts]
            labels = [f"{s:+d}" for s in shifts]
            values = [float(s) for s in shifts]
        else:
            absolute = _whole_numbers(lo, hi, spec)
            results = [[v] * len(targets) for v in absolute]
            labels = [str(v) for v in absolute]
            values = [float(v) for v in absolute]
    if not results:
        raise EscaramuzaError(_f("--vary {spec}: the range holds no value", spec))

    def apply(d: dict[str, Any], k: int) -> None:
        for i, value in zip(targets, results[k], strict=True):
            d["combatants"][i][key] = value

    return Dimension(spec, labels, apply, True, values)


def _zones(data: dict[str, Any], spec: str, body: str) -> Dimension:
    side, _sep, names = body.partition("=")
    if side not in (Side.HEROES.value, Side.ENEMIES.value) or not names:
        raise EscaramuzaError(
            _f("--vary {spec}: zones:SIDE=ZONE,ZONE… with SIDE heroes or enemies", spec)
        )
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
            _f(
                "--vary {spec}: count:ID=LOW..HIGH, stat:WHO.FIELD=RANGE or zones:SIDE=Z1,Z2…",
                repr(spec),
            )
        )
    return makers[kind](data, spec, body)
