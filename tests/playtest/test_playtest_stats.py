"""Playtest statistics against hand-computed values: Wilson intervals, per-battle
records from event logs, summaries of hand-built records, difficulty thresholds,
and a Destiny Dice duel whose win probability is known exactly."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path

import pytest

from escaramuza.playtest.records import NEVER, BattleRecord, CombatantRecord, record_from_events
from escaramuza.playtest.result import playtest
from escaramuza.playtest.runner import PlaytestConfig
from escaramuza.playtest.stats import difficulty, percentile_nearest_rank, summarize
from escaramuza.rules.core.events import Damaged, Event, RoundStarted, StatusChanged
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import parse_scenario_text
from escaramuza.rules.core.stats import wilson_interval

Z = 1.959963984540054


# -- Wilson score interval ---------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # 0/10: centre = (z²/20)/(1 + z²/10) = half-width = 0.1920729/1.3841459 = 0.1387665,
        # so [0, 0.277533] (textbook 0.2775).
        (0, 10, 0.0, 0.277533),
        # 5/10: symmetric about 1/2, textbook [0.2366, 0.7634].
        (5, 10, 0.236593, 0.763407),
        # 8/10: textbook [0.4902, 0.9433].
        (8, 10, 0.490162, 0.943318),
        # 10/10 mirrors 0/10.
        (10, 10, 0.722467, 1.0),
        # 50/100: [0.4038, 0.5962].
        (50, 100, 0.403832, 0.596168),
    ],
)
def test_playtest_wilson_interval_matches_hand_computed_values(
    k: int, n: int, low: float, high: float
) -> None:
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=1e-6)
    assert hi == pytest.approx(high, abs=1e-6)


@pytest.mark.parametrize(("k", "n"), [(1, 7), (3, 1000), (640, 1000), (999, 1000)])
def test_playtest_wilson_bounds_solve_the_score_equation(k: int, n: int) -> None:
    # The Wilson bounds are the p with |p̂ − p| = z·√(p(1−p)/n): both roots of
    # (1 + z²/n)p² − (2p̂ + z²/n)p + p̂² = 0, solved here with the quadratic formula.
    ph = k / n
    a, b, c = 1 + Z * Z / n, -(2 * ph + Z * Z / n), ph * ph
    disc = math.sqrt(b * b - 4 * a * c)
    roots = ((-b - disc) / (2 * a), (-b + disc) / (2 * a))
    assert wilson_interval(k, n) == pytest.approx(roots, abs=1e-12)


def test_playtest_wilson_with_no_trials_is_the_whole_unit_interval() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


# -- percentile and difficulty ------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([1, 2, 3, 10], 0.9, 10),  # rank ⌈3.6⌉ = 4
        (list(range(1, 11)), 0.9, 9),  # rank 9 of 10
        (list(range(1, 101)), 0.9, 90),
        ([4], 0.9, 4),
    ],
)
def test_playtest_p90_is_the_nearest_rank(values: list[int], q: float, expected: int) -> None:
    assert percentile_nearest_rank(values, q) == expected


@pytest.mark.parametrize(
    ("p_wipe", "ko_share", "rating"),
    [
        (0.0, 0.0, "Trivial"),
        (0.0, 0.049, "Trivial"),
        (0.0, 0.05, "Easy"),
        (0.01, 0.0, "Easy"),
        (0.049, 0.249, "Easy"),
        (0.05, 0.0, "Medium"),
        (0.0, 0.25, "Medium"),
        (0.19, 0.49, "Medium"),
        (0.20, 0.0, "Hard"),
        (0.0, 0.50, "Hard"),
        (0.49, 0.74, "Hard"),
        (0.50, 0.0, "Deadly"),
        (0.0, 0.75, "Deadly"),
        (1.0, 1.0, "Deadly"),
    ],
)
def test_playtest_difficulty_thresholds(p_wipe: float, ko_share: float, rating: str) -> None:
    assert difficulty(p_wipe, ko_share) == rating


# -- one battle → one record --------------------------------------------------------

IDS = ("h1", "h2", "e1")
SIDES = (Side.HEROES, Side.HEROES, Side.ENEMIES)


def rs(r: int) -> RoundStarted:
    return RoundStarted("", r)


def dmg(src: str, tgt: str, amount: int) -> Damaged:
    return Damaged("", tgt, amount, "pv", src, 0)


def st(tgt: str, status: str) -> StatusChanged:
    return StatusChanged("", tgt, status, "")


RECORD_CASES = [
    # events, (ko rounds), (died), (dealt), (dealt to foes), (taken), wipe
    pytest.param(
        [
            rs(1),
            dmg("e1", "h1", 3),
            st("h1", "down"),
            rs(2),
            dmg("", "h2", 2),
            st("h2", "dead"),
            st("h1", "active"),
        ],  # Destiny Dice wakes the downed hero at the end (DD-16)
        (1, 2, NEVER),
        (False, True, False),
        (0, 0, 3),
        (0, 0, 3),
        (3, 2, 0),
        True,
        id="both-heroes-out-at-once-then-one-wakes",
    ),
    pytest.param(
        [rs(1), st("h1", "down"), rs(2), st("h1", "active"), rs(3), st("h2", "down")],
        (1, 3, NEVER),
        (False, False, False),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        False,
        id="healed-before-the-second-fell-is-no-wipe",
    ),
    pytest.param(
        [rs(1), st("h1", "fled"), rs(2), st("h2", "defeated")],
        (NEVER, 2, NEVER),
        (False, False, False),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        False,
        id="fled-is-not-knocked-out",
    ),
    pytest.param(
        [
            rs(1),
            dmg("h1", "e1", 4),
            dmg("h1", "h2", 1),
            dmg("h2", "e1", 2),
            rs(2),
            st("e1", "defeated"),
        ],
        (NEVER, NEVER, 2),
        (False, False, False),
        (5, 2, 0),
        (4, 2, 0),
        (0, 1, 6),
        False,
        id="friendly-fire-is-dealt-but-not-to-foes",
    ),
]


@pytest.mark.parametrize(
    ("events", "ko", "died", "dealt", "to_foes", "taken", "wipe"), RECORD_CASES
)
def test_playtest_record_from_events(
    events: list[Event],
    ko: tuple[int, ...],
    died: tuple[bool, ...],
    dealt: tuple[int, ...],
    to_foes: tuple[int, ...],
    taken: tuple[int, ...],
    wipe: bool,
) -> None:
    rec = record_from_events(
        IDS, SIDES, ["active"] * 3, events, index=0, seed=0, winner=None, reason="x", rounds=3
    )
    assert tuple(c.ko_round for c in rec.combatants) == ko
    assert tuple(c.died for c in rec.combatants) == died
    assert tuple(c.dealt for c in rec.combatants) == dealt
    assert tuple(c.dealt_to_foes for c in rec.combatants) == to_foes
    assert tuple(c.taken for c in rec.combatants) == taken
    assert rec.wipe is wipe


def test_playtest_record_counts_a_status_set_without_an_event_at_the_end() -> None:
    rec = record_from_events(
        IDS,
        SIDES,
        ["active"] * 3,
        [rs(1), rs(2)],
        index=0,
        seed=0,
        winner="enemies",
        reason="defeated",
        rounds=2,
        final=["dead", "down", "active"],
    )
    assert [c.ko_round for c in rec.combatants] == [2, 2, NEVER]
    assert [c.died for c in rec.combatants] == [True, False, False]
    assert rec.wipe


# -- summaries of hand-built records ------------------------------------------------

DUEL_YAML = """
name: duelo-exacto
title: One shot decides
ruleset: destiny_dice
round_limit: {round_limit}
battlefield:
  zones:
    - {{id: a, name: A}}
    - {{id: b, name: B}}
  links:
    - [a, b]
combatants:
  - id: maga
    name: Maga
    side: heroes
    zone: a
    temperament: brute
    cuerpo: d4
    mente: {mente}
    alma: d4
    pv: 20
    conditions: [{{name: inmovil}}]
    weapons:
      - {{name: dardo de fuego, tier: ligera, kind: distancia, bands: [cerca], shoots: false}}
  - id: esbirro
    name: Esbirro
    side: enemies
    zone: b
    temperament: brute
    cuerpo: d4
    mente: d4
    alma: d4
    defensa: {defensa}
    pv: 1
    conditions: [{{name: paralizado}}]
"""


def duel(tmp_path: Path, mente: str = "d4", defensa: str = "d4", round_limit: int = 1) -> Path:
    path = tmp_path / "duelo-exacto.yaml"
    path.write_text(
        DUEL_YAML.format(mente=mente, defensa=defensa, round_limit=round_limit), encoding="utf-8"
    )
    return path


def hand_records() -> list[BattleRecord]:
    c = CombatantRecord
    # Hero "maga", enemy "esbirro" (the duel's order). Rounds 1, 2, 3, 10.
    return [
        BattleRecord(
            0, 0, "heroes", "defeated", 1, False, (c(NEVER, False, 4, 4, 0), c(1, False, 0, 0, 4))
        ),
        BattleRecord(
            1, 0, "enemies", "defeated", 2, True, (c(2, True, 1, 1, 6), c(NEVER, False, 6, 6, 1))
        ),
        BattleRecord(
            2, 0, None, "timeout", 3, False, (c(NEVER, False, 0, 0, 2), c(NEVER, False, 2, 2, 0))
        ),
        BattleRecord(3, 0, None, "mutual", 10, True, (c(7, False, 3, 3, 5), c(9, True, 5, 5, 3))),
    ]


def test_playtest_summary_of_hand_built_records(tmp_path: Path) -> None:
    scenario = parse_scenario_text(duel(tmp_path).read_text(), "t.yaml", "duelo-exacto")
    s = summarize(scenario, hand_records())
    assert s["battles"] == 4
    out = s["outcomes"]
    assert [out[k]["count"] for k in ("heroes", "enemies", "draw")] == [1, 1, 2]
    assert [out[f"draw_{k}"]["count"] for k in ("timeout", "withdrawal", "mutual", "other")] == [
        1,
        0,
        1,
        0,
    ]
    assert out["heroes"]["ci95"] == pytest.approx(list(wilson_interval(1, 4)), abs=1e-6)
    assert s["rounds"]["mean"] == 4.0  # (1 + 2 + 3 + 10) / 4
    assert s["rounds"]["median"] == 2.5
    assert s["rounds"]["p90"] == 10
    assert s["rounds"]["histogram"] == [0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1]
    assert s["party_wipe"]["count"] == 2
    maga, esbirro = s["combatants"]
    assert maga["p_knocked_out"]["count"] == 2
    assert maga["p_dies"]["count"] == 1
    assert maga["mean_damage_dealt"] == 2.0  # (4 + 1 + 0 + 3) / 4
    assert maga["mean_damage_taken"] == 3.25  # (0 + 6 + 2 + 5) / 4
    # Rounds survived: never → battle length: 1, KO round 2, never → 3, KO round 7.
    assert maga["mean_rounds_survived"] == 3.25
    # Standing at the end of round r: KO rounds {2, 7} of 4 battles.
    assert maga["survival"] == [1, 1, 0.75, 0.75, 0.75, 0.75, 0.75, 0.5, 0.5, 0.5, 0.5]
    assert esbirro["survival"] == [1, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.5, 0.5]
    assert esbirro["mean_rounds_survived"] == 3.75  # 1, never → 2, never → 3, 9: 15 / 4
    assert s["hero_knockout_share"] == 0.5
    assert s["difficulty"] == "Deadly"  # P(wipe) = 0.5
    assert s["top_damager"] == {"id": "esbirro", "name": "Esbirro", "share": 1.0}


# -- a battle whose win probability is known exactly -------------------------------


def exact_win_probability(mente: int, defensa: int) -> Fraction:
    """The Maga's one attack: Mente vs Defensa (DD-06, ties to the attacker, DD-10) drops
    the 1-PV Esbirro on a hit (damage ≥ 2), and a miss still drops it when its defence
    d20 is a 1 (Fallo Defensivo, DD-09). The spell does not shoot, so no automatic miss.
    Nothing else can happen: the Maga is Inmóvil (no step), the Esbirro Paralizado
    (it loses its turn whichever acts first) and its fists cannot reach cerca, so a
    perfect defence (d20 = 20) gives no counterattack; round_limit 1 ends it."""
    outcomes = list(itertools.product(range(1, mente + 1), range(1, defensa + 1), range(1, 21)))
    wins = sum(1 for a, d, d20 in outcomes if a >= d or d20 == 1)
    return Fraction(wins, len(outcomes))


@pytest.mark.compile
@pytest.mark.parametrize(("mente", "defensa"), [(4, 4), (6, 10)])
def test_playtest_win_rate_of_a_duel_known_exactly(
    tmp_path: Path, mente: int, defensa: int
) -> None:
    p = exact_win_probability(mente, defensa)
    # Closed form as a cross-check: 1 − P(miss)·19/20 (d4 vs d4: 1 − 6/16·19/20 = 0.64375).
    p_miss = Fraction(
        sum(a < d for a in range(1, mente + 1) for d in range(1, defensa + 1)), mente * defensa
    )
    assert p == 1 - p_miss * Fraction(19, 20)
    n = 2000
    path = duel(tmp_path, f"d{mente}", f"d{defensa}")
    result = playtest([str(path)], PlaytestConfig(n=n, seed=7))
    (s,) = result.summaries
    rate = s["outcomes"]["heroes"]["rate"]
    sd = math.sqrt(float(p) * (1 - float(p)) / n)
    assert abs(rate - float(p)) <= 4 * sd
    lo, hi = s["outcomes"]["heroes"]["ci95"]
    assert lo <= float(p) <= hi
    # Everything else follows: no hero is touched, every non-win is a timeout draw.
    assert s["outcomes"]["enemies"]["count"] == 0
    assert s["outcomes"]["draw_timeout"]["count"] == n - s["outcomes"]["heroes"]["count"]
    maga, esbirro = s["combatants"]
    assert maga["p_knocked_out"]["count"] == 0
    assert esbirro["p_knocked_out"]["count"] == s["outcomes"]["heroes"]["count"]
    assert s["rounds"]["histogram"] == [0, n]
    assert s["party_wipe"]["count"] == 0
    assert s["difficulty"] == "Trivial"
