"""``suggest``: ranked actions with exact odds, intervals, risk and the in-character pick."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from itertools import product

import pytest

from escaramuza.agents import HeuristicAgent
from escaramuza.agents.runner import play_battle
from escaramuza.agents.suggest import SuggestError, suggest
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import UnknownNameError
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.rules.core.stats import wilson_interval

pytestmark = pytest.mark.compile


def enemy_turn(name: str, seed: int) -> object:
    """A state of ``name`` where an enemy decides, reached by heuristic play."""
    state = new_battle(load_scenario(name), RandomRoller(seed))
    rng, roller, agent = random.Random(seed), RandomRoller(seed + 1), HeuristicAgent()
    while state.pending.side is not Side.ENEMIES:
        apply_action(state, agent.act(state, rng), roller)
    return state


def test_odds_columns_equal_the_rulesets_exact_helper() -> None:
    state = enemy_turn("destiny_dice/emboscada", 3)
    result = suggest(state, iterations=30, budget_ms=None)
    attacks = [s for s in result.items if s.action.verb == "atacar"]
    assert attacks, "the sampled state should offer an attack"
    for s in result.items:
        assert s.odds == state.ruleset.odds(state, s.action)
        row = s.to_dict()
        if s.odds is None:
            assert row["p_hit"] is None and row["expected_damage"] is None
        else:
            assert row["p_hit"] == round(s.odds.p_hit, 4)
            assert row["expected_damage"] == round(s.odds.expected_damage, 4)


def test_brann_attack_odds_match_a_brute_force_count() -> None:
    # DD-06/DD-07: Brann's Cuerpo d8 against the Saqueador's Defensa d6 +1 (armadura);
    # ties go to the attacker. Counted here face by face, independently of exact.py.
    state = new_battle(load_scenario("destiny_dice/brann-vs-saqueador"), RandomRoller(1))
    while state.pending.actor != "brann":
        apply_action(state, state.ruleset.legal_actions(state)[-1], RandomRoller(2))
    result = suggest(state, iterations=12, budget_ms=None)
    attack = next(s for s in result.items if s.action.verb == "atacar")
    hits = sum(1 for a, d in product(range(1, 9), range(1, 7)) if a >= d + 1)
    p_hit = Fraction(hits, 48)
    assert attack.odds is not None
    assert attack.odds.p_hit == pytest.approx(float(p_hit))
    # Damage d8 + 2 (media) on a hit; a d20 of 1 on defence (1/20) adds 1 point (DD-09);
    # the Saqueador loses at most the PV it has (10: "Si tus PV bajan a 0…").
    pv = state.get("saqueador").resources["pv"]
    expected = Fraction(0)
    for a, d, face in product(range(1, 9), range(1, 7), range(1, 9)):
        dealt = face + 2 if a >= d + 1 else 0
        for point, chance in ((0, Fraction(19, 20)), (1, Fraction(1, 20))):
            expected += min(dealt + point, pv) * chance / (8 * 6 * 8)
    assert attack.odds.expected_damage == pytest.approx(float(expected))


def test_win_probability_and_interval_come_from_the_rollout_counts() -> None:
    state = enemy_turn("destiny_dice/kaspar-tiroteo", 2)
    result = suggest(state, iterations=40, budget_ms=None)
    # 40 rollouts, or fewer if the search could stop before (clear, or identical leaders).
    assert result.iterations == 40 or result.stopped in ("clear", "identical")
    assert sum(s.visits for s in result.items) == result.iterations
    for s in result.items:
        assert 0.0 <= s.win_low <= s.win <= s.win_high <= 1.0
        wins = round(s.win * s.visits)
        assert (s.win_low, s.win_high) == pytest.approx(wilson_interval(wins, s.visits))
        assert 0.0 <= s.risk <= 1.0
        assert s.reason
    assert [s.rank for s in result.items] == list(range(1, len(result.items) + 1))


def test_in_character_pick_is_the_temperaments_choice() -> None:
    state = enemy_turn("destiny_dice/emboscada", 3)
    result = suggest(state, iterations=20, budget_ms=None, seed=4)
    pick = HeuristicAgent().act(state, random.Random(4))
    assert result.in_character == pick
    flagged = [s.action for s in result.items if s.in_character]
    assert flagged == [pick]
    assert result.temperament == state.by_id[state.pending.actor].temperament


def test_same_seed_same_ranking() -> None:
    state = enemy_turn("destiny_dice/emboscada", 6)
    a = suggest(state, iterations=30, budget_ms=None, seed=11)
    b = suggest(state, iterations=30, budget_ms=None, seed=11)
    assert [s.to_dict() for s in a.items] == [s.to_dict() for s in b.items]


def test_actor_must_be_the_pending_one() -> None:
    state = enemy_turn("destiny_dice/emboscada", 3)
    pending = state.pending.actor
    other = next(c.id for c in state.combatants if c.id != pending)
    with pytest.raises(SuggestError, match=f"pending decision is {pending}"):
        suggest(state, actor=other, iterations=5, budget_ms=None)
    with pytest.raises(UnknownNameError, match="unknown combatant 'ghost'"):
        suggest(state, actor="ghost", iterations=5, budget_ms=None)
    assert suggest(state, actor=pending, iterations=5, budget_ms=None).actor == pending


def test_finished_battle_has_nothing_to_suggest() -> None:
    state = play_battle(
        load_scenario("destiny_dice/brann-vs-saqueador"),
        {s: HeuristicAgent() for s in Side},
        seed=1,
    )
    with pytest.raises(SuggestError, match="over"):
        suggest(state, iterations=5, budget_ms=None)


def test_json_document_schema() -> None:
    state = enemy_turn("destiny_dice/emboscada", 3)
    doc = json.loads(json.dumps(suggest(state, iterations=15, budget_ms=None).to_dict()))
    assert doc["format"] == "escaramuza-suggestions" and doc["version"] == 3
    assert set(doc) >= {
        "scenario",
        "ruleset",
        "round",
        "actor",
        "side",
        "decision",
        "temperament",
        "in_character",
        "search",
        "verdict",
        "best",
        "runner_up",
        "gap",
        "odds_available",
        "suggestions",
    }
    assert set(doc["search"]) == {
        "iterations",
        "elapsed_ms",
        "budget_ms",
        "budget_iterations",
        "max_ms",
        "max_iterations",
        "stopped",
        "seed",
        "z",
        "min_shared",
        "engine",
        "engine_refusal",
    }
    row = doc["suggestions"][0]
    assert set(row) == {
        "rank",
        "action",
        "text",
        "visits",
        "win_probability",
        "win_interval",
        "value",
        "p_hit",
        "expected_damage",
        "p_drop",
        "risk",
        "reason",
        "in_character",
        "win_estimate",
        "tied_with_best",
        "gap_to_best",
        "twins",
    }
    assert row["action"]["actor"] == doc["actor"]
    # The actions this row stands for by symmetry (docs/gm.md): each one an action object.
    assert all(set(t) >= {"verb", "actor"} for r in doc["suggestions"] for t in r["twins"])


@pytest.mark.parametrize(
    "name", ["cairn/duelo_bugbear", "donjon/duelo", "sistema_2d10/duelo", "destiny_dice/emboscada"]
)
def test_odds_equal_the_helper_in_every_ruleset(name: str) -> None:
    state = new_battle(load_scenario(name), RandomRoller(1))
    result = suggest(state, iterations=8, budget_ms=None)
    for s in result.items:
        assert s.odds == state.ruleset.odds(state, s.action)


def test_a_ruleset_without_odds_shows_a_dash_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = enemy_turn("destiny_dice/emboscada", 3)
    monkeypatch.setattr(type(state.ruleset), "odds", lambda self, st, action: None)
    result = suggest(state, iterations=10, budget_ms=None)
    assert not result.odds_available
    assert all(s.odds is None for s in result.items)
    table = result.table()
    assert "no destiny_dice action here has exact odds" in table
    row = next(line for line in table.splitlines() if line.lstrip("│ ").startswith("1"))
    assert row.count("—") >= 3  # HIT, E[DMG] and DROP


def test_an_action_never_searched_has_no_win_chance_value_or_risk() -> None:
    # One rollout reaches one action of the ambush's enemy turn: the others have none,
    # so no rollout measured their win chance, value or risk (docs/gm.md: null is not
    # available), in the JSON document and in the table alike.
    state = enemy_turn("destiny_dice/emboscada", 3)
    result = suggest(state, iterations=1, budget_ms=None)
    unsearched = [s for s in result.items if s.visits == 0]
    assert unsearched and len(unsearched) < len(result.items)
    rows = {r["rank"]: r for r in result.to_dict()["suggestions"]}
    cells = {s.rank: cell for s, cell in zip(result.items, result._rows()[1:], strict=True)}
    risk = result._rows()[0].index("RISK")
    for s in result.items:
        row = rows[s.rank]
        if s.visits:
            assert row["win_probability"] is not None and row["risk"] is not None
            continue
        assert (row["win_probability"], row["value"], row["risk"]) == (None, None, None)
        assert cells[s.rank][2] == "—" and cells[s.rank][risk] == "—"
