"""Twins and honest numbers: actions that are one by symmetry are one suggestion, and a
suggestion's win chance agrees with the engine replaying its action on fresh dice."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.agents.search import mcts as search
from escaramuza.agents.suggest import suggest
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.model import Action, Condition, Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.core.stats import difference_interval
from escaramuza.rules.core.symmetry import symmetry_classes, twins

ROOT = Path(__file__).resolve().parents[2]
#: 99.9 % two-sided: the replay check fails only on a real disagreement, not on a
#: 1-in-20 draw (the seeds are fixed, so it is deterministic either way).
Z_CHECK = 3.29


def advance(path: str, seed: int, until: object, limit: int = 400) -> BattleState:
    """A battle of ``path`` played by the heuristics on ``seed`` until ``until(state)``."""
    state = new_battle(load_scenario(ROOT / "scenarios" / path), RandomRoller(seed))
    roller, rng = RandomRoller(seed + 1), random.Random(seed)
    for _ in range(limit):
        if state.outcome is None and until(state):  # type: ignore[operator]
            return state
        assert state.outcome is None, f"{path}: the battle ended before the position"
        apply_action(
            state, heuristic_choice(state, state.ruleset.legal_actions(state), rng), roller
        )
    raise AssertionError(f"{path}: no such position in {limit} decisions")


def merges(state: BattleState) -> bool:
    legal = state.ruleset.legal_actions(state)
    return len(symmetry_classes(state, legal)) < len(legal)


def goblins() -> BattleState:
    """Cairn's goblin ambush at Bryn's first declaration: three identical goblins in one
    zone and two in another (the sides alternate, so no turn order tells them apart)."""
    return advance("cairn/emboscada_goblin.yaml", 1, merges)


def test_twins_are_identical_foes_in_one_zone() -> None:
    state = goblins()
    pairs = set(twins(state))
    # Read from the state itself, not from the code under test: same side, zone, stat
    # block and resources is what the scenario gives these goblins.
    by_zone: dict[tuple[str, str], list[str]] = {}
    for c in state.combatants:
        by_zone.setdefault((c.side, c.zone), []).append(c.id)
    expected = set()
    for ids in by_zone.values():
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                ca, cb = state.by_id[a], state.by_id[b]
                if ca.stats == cb.stats and ca.resources == cb.resources and ca.data == cb.data:
                    expected.add((a, b))
    assert pairs == expected
    assert ("goblin1", "goblin2") in pairs and ("goblin4", "goblin5") in pairs


def test_a_difference_the_rules_read_breaks_the_symmetry() -> None:
    state = goblins()
    wounded = state.clone()
    wounded.by_id["goblin1"].resources["pi"] -= 1
    assert ("goblin1", "goblin2") not in twins(wounded)
    assert ("goblin2", "goblin3") in twins(wounded)
    moved = state.clone()
    moved.by_id["goblin2"].zone = moved.by_id["goblin4"].zone
    assert ("goblin1", "goblin2") not in twins(moved)
    assert ("goblin2", "goblin4") in twins(moved)  # now twins of the other zone's pair
    # A reference to one of them elsewhere (a hero's condition caused by goblin1).
    marked = state.clone()
    hero = marked.by_id["bryn"]
    hero.conditions["aturdido"] = Condition("aturdido", source="goblin1")
    assert ("goblin1", "goblin2") not in twins(marked)
    assert ("goblin2", "goblin3") in twins(marked)


def test_a_place_in_the_turn_order_is_a_difference() -> None:
    # Destiny Dice's lanceros share everything but their initiative: not twins.
    state = advance("destiny_dice/emboscada.yaml", 1, lambda s: True)
    l1, l2 = state.by_id["lancero1"], state.by_id["lancero2"]
    assert (l1.zone, l1.stats, l1.resources) == (l2.zone, l2.stats, l2.resources)
    assert ("lancero1", "lancero2") not in twins(state)
    # With the two places in the order exchanged too, the exchange is the same state.
    swapped = state.clone()
    swapped.order = tuple(
        {"lancero1": "lancero2", "lancero2": "lancero1"}.get(i, i) for i in state.order
    )
    assert swapped.order != state.order
    assert ("lancero1", "lancero2") not in twins(swapped)


def test_symmetry_classes_group_the_attacks_on_twins() -> None:
    state = goblins()
    legal = state.ruleset.legal_actions(state)
    classes = symmetry_classes(state, legal)
    flat = [a for members in classes for a in members]
    assert len(flat) == len(legal) and set(flat) == set(legal)  # a partition
    for members in classes:
        assert list(members) == [a for a in legal if a in members]  # legal order kept
        if len(members) > 1:
            # Only attacks with the same verb and weapon on twins of one zone.
            assert len({(a.verb, a.item, a.zone, a.option) for a in members}) == 1
            zones = {state.by_id[str(a.target)].zone for a in members}
            assert len(zones) == 1
    sizes = sorted(len(m) for m in classes if len(m) > 1)
    assert 2 in sizes and 3 in sizes


@pytest.mark.compile
def test_suggest_shows_twins_as_one_row() -> None:
    state = goblins()
    legal = state.ruleset.legal_actions(state)
    result = suggest(state, iterations=600, budget_ms=None)
    shown = [a for s in result.items for a in (s.action, *s.twins)]
    assert len(shown) == len(legal) and set(shown) == set(legal)  # twins folded in
    assert len(result.items) == len(symmetry_classes(state, legal))
    row = next(s for s in result.items if len(s.twins) == 2)
    names = [state.by_id[str(a.target)].name for a in (row.action, *row.twins)]
    assert f"{names[0]}, {names[1]} or {names[2]}" in row.text
    doc = result.to_dict()["suggestions"]
    assert any(len(r["twins"]) == 2 for r in doc)
    # The twins never race each other, so they cannot end the search as "identical".
    assert result.stopped != "identical"


@pytest.mark.compile
def test_every_legal_action_one_by_symmetry_is_not_searched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = goblins()

    def one_class(state: BattleState, actions: list[Action]) -> list[tuple[Action, ...]]:
        return [tuple(actions)]

    monkeypatch.setattr(search, "symmetry_classes", one_class)
    result = suggest(state, iterations=200, budget_ms=None)
    assert result.stopped == "symmetric" and result.iterations == 0
    assert len(result.items) == 1
    assert result.items[0].in_character  # the heuristic's pick stands for the class
    assert "same by symmetry" in result.verdict_text()


def replay_wins(state: BattleState, action: Action, seeds: range) -> int:
    """Wins of the deciding side when ``action`` is taken and the heuristics play on, on
    each of ``seeds`` (the engine, dice and choices from the seed alone)."""
    assert state.pending is not None
    side: Side = state.pending.side
    wins = 0
    for seed in seeds:
        s = state.clone(keep_log=False)
        roller, rng = RandomRoller(seed), random.Random(seed)
        apply_action(s, action, roller)
        while s.outcome is None:
            apply_action(s, heuristic_choice(s, s.ruleset.legal_actions(s), rng), roller)
        wins += s.outcome.winner is side
    return wins


def enemy_decision(state: BattleState) -> bool:
    pending = state.pending
    return (
        pending is not None
        and pending.side is Side.ENEMIES
        and len(state.ruleset.legal_actions(state)) >= 3
    )


POSITIONS = {
    "cairn": goblins,
    "destiny_dice": lambda: advance("destiny_dice/emboscada.yaml", 3, enemy_decision),
    "donjon": lambda: advance("donjon/duelo.yaml", 2, enemy_decision),
    "sistema_2d10": lambda: advance("sistema_2d10/escuadra.yaml", 4, enemy_decision),
}


@pytest.mark.compile
@pytest.mark.parametrize("ruleset", sorted(POSITIONS))
def test_a_suggestions_win_chance_holds_on_fresh_dice(ruleset: str) -> None:
    """The hidden-position check: the best two rows (and a twin the best stands for),
    replayed by the engine on 400 seeds the search never saw, win as often as the table
    says, within the two samples' 99.9 % Newcombe interval of the difference."""
    state = POSITIONS[ruleset]()
    result = suggest(state, iterations=2000, budget_ms=None, seed=7)
    assert result.iterations == 2000  # the whole budget: no early stop on these
    fresh = range(10**6, 10**6 + 400)
    for row in result.items[:2]:
        node_wins = round(row.win * row.visits)
        for action in (row.action, *row.twins[:1]):
            won = replay_wins(state, action, fresh)
            low, high = difference_interval(node_wins, row.visits, won, len(fresh), Z_CHECK)
            assert low <= 0.0 <= high, (
                f"{ruleset}: {row.text} won {row.win:.1%} of {row.visits} rollouts, "
                f"{dataclasses.asdict(action)} {won / len(fresh):.1%} of {len(fresh)} replays"
            )
