"""The MCTS planner: forced wins, determinism, budgets, tree reuse, the ``mcts`` agent."""

from __future__ import annotations

import math
import random

import pytest

from escaramuza.agents import HeuristicAgent, make_agent
from escaramuza.agents.runner import play_battle
from escaramuza.agents.search import (
    MCTS,
    SHAPING,
    MCTSAgent,
    shaped_value,
    side_strength,
)
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.model import Action, Side, Status
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import Scenario, load_scenario, parse_scenario
from escaramuza.rules.core.stats import wilson_interval

#: Cairn attacks always hit (CA-05) and a d4 does at least 1: against a hero at 0 PI
#: and FUE 1 the orc's attack is a certain kill, hence a certain win. Waiting or
#: moving lets the hero's d10 axe strike first next round.
FORCED_WIN = {
    "name": "forced_win",
    "ruleset": "cairn",
    "options": {"morale": False, "first_round_save": False},
    "round_limit": 5,
    "battlefield": {
        "zones": [{"id": "claro"}, {"id": "bosque"}, {"id": "salida", "exit": True}],
        "links": [["claro", "bosque"], ["bosque", "salida"]],
    },
    "combatants": [
        {"id": "heroe", "side": "heroes", "zone": "claro", "pi": 0, "fue": 1, "des": 10,
         "vol": 10, "weapons": [{"name": "hacha", "damage": "d10"}]},
        {"id": "orco", "side": "enemies", "zone": "claro", "pi": 0, "fue": 1, "des": 10,
         "vol": 10, "weapons": [{"name": "daga", "damage": "d4"}]},
    ],
}
KILL = Action("atacar", "orco", target="heroe", item="daga")


def forced_state() -> tuple[Scenario, object]:
    scenario = parse_scenario(FORCED_WIN, "<forced_win>")
    state = new_battle(scenario, RandomRoller(0))
    # The heroes declare first (CA-02); the hero waits, so the orc's decision is pending.
    apply_action(state, Action("esperar", "heroe"), RandomRoller(0))
    return scenario, state


def test_forced_win_setup_really_is_a_certain_kill() -> None:
    _, state = forced_state()
    for seed in range(20):
        sim = state.clone()
        apply_action(sim, KILL, RandomRoller(seed))
        assert sim.outcome is not None and sim.outcome.winner is Side.ENEMIES


@pytest.mark.parametrize("seed", range(8))
def test_planner_finds_the_one_action_kill_every_time(seed: int) -> None:
    _, state = forced_state()
    result = MCTS(iterations=24).search(state, random.Random(seed))
    assert result.best() == KILL
    node = result.child(KILL)
    assert node.wins == node.visits > 0  # every rollout through the kill is a win


@pytest.mark.parametrize("seed", range(4))
def test_mcts_agent_takes_the_kill(seed: int) -> None:
    _, state = forced_state()
    assert MCTSAgent(iterations=24).act(state, random.Random(seed)) == KILL


def test_same_seed_same_tree_and_different_seed_still_valid() -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    a = MCTS(iterations=40).search(state, random.Random(9))
    b = MCTS(iterations=40).search(state, random.Random(9))
    assert a.ranked() == b.ranked()
    assert [(a.child(x).visits, a.child(x).wins) for x in a.actions] == [
        (b.child(x).visits, b.child(x).wins) for x in b.actions
    ]
    assert a.root.visits == 40 == sum(a.child(x).visits for x in a.actions)
    assert set(a.ranked()) == set(state.ruleset.legal_actions(state))


def test_every_root_action_is_tried_before_any_twice() -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    n = len(state.ruleset.legal_actions(state))
    result = MCTS(iterations=n).search(state, random.Random(1))
    assert all(result.child(a).visits == 1 for a in result.actions)


def test_time_budget_stops_the_search() -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    result = MCTS(iterations=None, budget_ms=150).search(state, random.Random(1))
    assert result.iterations >= 1
    # One rollout may finish after the deadline; a whole battle takes well under 1 s idle.
    assert result.elapsed_ms < 150 + 5000  # generous: the CI machine may be busy


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"iterations": None, "budget_ms": None}, "needs iterations"),
        ({"iterations": 0}, "at least 1"),
        ({"iterations": None, "budget_ms": -5}, "positive"),
    ],
)
def test_bad_budgets_are_user_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(EscaramuzaError, match=message):
        MCTS(**kwargs)


def test_search_of_a_finished_battle_is_an_error() -> None:
    state = play_battle(load_scenario("destiny_dice/brann-vs-saqueador"),
                        {s: HeuristicAgent() for s in Side}, seed=1)
    with pytest.raises(EscaramuzaError, match="over"):
        MCTS(iterations=5).search(state, random.Random(0))


# Wilson score interval, closed forms: for k = 0 the upper end is z²/(n+z²); for k = n
# the lower end is n/(n+z²). The middle row is the textbook example (k=81, n=263).
@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (0, 10, 0.0, 1.96**2 / (10 + 1.96**2)),
        (10, 10, 10 / (10 + 1.96**2), 1.0),
        (81, 263, 0.2553, 0.3662),
        (0, 0, 0.0, 1.0),
    ],
)
def test_wilson_interval(k: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(k, n)
    assert math.isclose(lo, low, abs_tol=1e-4)
    assert math.isclose(hi, high, abs_tol=1e-4)


def test_shaped_value_is_a_small_draw_score() -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    assert side_strength(state, Side.HEROES) == 1.0 == side_strength(state, Side.ENEMIES)
    assert shaped_value(state, Side.ENEMIES) == 0.0
    for c in state.side(Side.HEROES):
        c.status = Status.DOWN
    # All heroes out, every enemy at full PV: the best a draw can score, still below a win.
    assert shaped_value(state, Side.ENEMIES) == pytest.approx(SHAPING) and SHAPING < 1
    assert shaped_value(state, Side.HEROES) == pytest.approx(-SHAPING)


@pytest.mark.parametrize(
    ("spec", "name"),
    [("mcts", "mcts"), ("mcts:40it", "mcts:40it"), ("mcts:250", "mcts:250ms"),
     ("mcts:250ms", "mcts:250ms")],
)
def test_make_agent_knows_mcts(spec: str, name: str) -> None:
    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    assert agent.name == name


def test_bad_mcts_spec_is_a_user_error() -> None:
    with pytest.raises(EscaramuzaError, match="bad MCTS budget"):
        make_agent("mcts:fast")


def test_mcts_battle_is_reproducible_and_reuses_its_tree() -> None:
    scenario = load_scenario("destiny_dice/brann-vs-saqueador")
    logs = []
    for _ in range(2):
        agent = MCTSAgent(iterations=12)
        state = play_battle(scenario, {Side.HEROES: HeuristicAgent(), Side.ENEMIES: agent},
                            seed=5)
        logs.append([e.text for e in state.log])
        assert state.outcome is not None
        assert agent.reused > 0  # the Saqueador's later decisions continued a kept tree
    assert logs[0] == logs[1]


def test_tree_is_rebuilt_when_the_state_did_not_move_forward() -> None:
    scenario = load_scenario("destiny_dice/emboscada")
    agent = MCTSAgent(iterations=6)
    state = new_battle(scenario, RandomRoller(4))
    agent.act(state, random.Random(0))
    other = new_battle(scenario, RandomRoller(5))  # another battle: a different log
    agent.act(other, random.Random(0))
    assert agent.reused == 0
