"""The MCTS planner: forced wins, determinism, budgets, tree reuse, the ``mcts`` agent."""

from __future__ import annotations

import math
import random

import pytest

from escaramuza.agents import HeuristicAgent, make_agent
from escaramuza.agents.runner import play_battle
from escaramuza.agents.search import (
    DRAW,
    MCTS,
    MIN_SHARED,
    SHAPING,
    MCTSAgent,
    Node,
    SearchResult,
    candidate_order,
    shaped_value,
    side_strength,
    side_value,
)
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.model import Action, Outcome, Side, Status
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
        {
            "id": "heroe",
            "side": "heroes",
            "zone": "claro",
            "pi": 0,
            "fue": 1,
            "des": 10,
            "vol": 10,
            "weapons": [{"name": "hacha", "damage": "d10"}],
        },
        {
            "id": "orco",
            "side": "enemies",
            "zone": "claro",
            "pi": 0,
            "fue": 1,
            "des": 10,
            "vol": 10,
            "weapons": [{"name": "daga", "damage": "d4"}],
        },
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


@pytest.mark.compile
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("horizon", [1, 2, None])
def test_mcts_agent_takes_the_kill(seed: int, horizon: int | None) -> None:
    _, state = forced_state()
    # 40 rollouts over 4 candidates with halving: 5 sweeps, then at least 6 more of the
    # 3 kept (the heuristic's pick stays), so the kill shares >= MIN_SHARED rollouts with
    # the heuristic's pick and the paired test may leave it (24 could share only 7).
    agent = MCTSAgent(iterations=40, horizon=horizon)
    assert agent.act(state, random.Random(seed)) == KILL
    assert agent.last is not None
    assert agent.last.paired(KILL).n >= MIN_SHARED


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


def test_a_timed_mcts_agent_decides_on_the_engine() -> None:
    # Under a deadline the rollouts wanted are unbounded; on the engine they are played
    # one at a time until the clock says stop.
    _, state = forced_state()
    agent = make_agent("mcts:60ms:reference")
    assert agent.act(state, random.Random(0)) == KILL
    assert agent.last is not None and agent.last.iterations >= 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"iterations": None, "budget_ms": None}, "needs iterations"),
        ({"iterations": 0}, "1–100000"),
        ({"iterations": None, "budget_ms": -5}, "10–60000 ms"),
    ],
)
def test_bad_budgets_are_user_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(EscaramuzaError, match=message):
        MCTS(**kwargs)


def test_search_of_a_finished_battle_is_an_error() -> None:
    state = play_battle(
        load_scenario("destiny_dice/brann-vs-saqueador"),
        {s: HeuristicAgent() for s in Side},
        seed=1,
    )
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
    [
        ("mcts", "mcts"),
        ("mcts:40it", "mcts:40it"),
        ("mcts:250", "mcts:250ms"),
        ("mcts:250ms", "mcts:250ms"),
    ],
)
def test_make_agent_knows_mcts(spec: str, name: str) -> None:
    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    assert agent.name == name


def test_bad_mcts_spec_is_a_user_error() -> None:
    # (``mcts:fast`` is a valid spec since the fast path: the rollouts' engine.)
    for spec in ("mcts:quick", "mcts:40it:96it", "mcts:turbo:fast"):
        with pytest.raises(EscaramuzaError, match="bad MCTS budget"):
            make_agent(spec)


@pytest.mark.compile
def test_mcts_battle_is_reproducible_and_reuses_its_tree() -> None:
    scenario = load_scenario("destiny_dice/brann-vs-saqueador")
    logs = []
    for _ in range(2):
        agent = MCTSAgent(iterations=12)
        state = play_battle(scenario, {Side.HEROES: HeuristicAgent(), Side.ENEMIES: agent}, seed=5)
        logs.append([e.text for e in state.log])
        assert state.outcome is not None
        assert agent.reused > 0  # the Saqueador's later decisions continued a kept tree
    assert logs[0] == logs[1]


@pytest.mark.compile
def test_tree_is_rebuilt_when_the_state_did_not_move_forward() -> None:
    scenario = load_scenario("destiny_dice/emboscada")
    agent = MCTSAgent(iterations=6)
    state = new_battle(scenario, RandomRoller(4))
    agent.act(state, random.Random(0))
    other = new_battle(scenario, RandomRoller(5))  # another battle: a different log
    agent.act(other, random.Random(0))
    assert agent.reused == 0


# -- the value of a cut rollout, horizons, common dice, the root sweep ----------------


def _wipe(state: object, side: Side) -> None:
    for c in state.side(side):  # type: ignore[attr-defined]
        c.status = Status.DOWN


@pytest.mark.parametrize(
    ("wiped", "side", "expected"),
    [
        (Side.HEROES, Side.ENEMIES, 1.0),
        (Side.HEROES, Side.HEROES, 0.0),
        (Side.ENEMIES, Side.HEROES, 1.0),
        (Side.ENEMIES, Side.ENEMIES, 0.0),
    ],
)
def test_side_value_of_a_wiped_side_is_exactly_one_or_zero(
    wiped: Side, side: Side, expected: float
) -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    assert side_value(state, side) == 0.5  # both sides at full strength
    _wipe(state, wiped)
    assert state.outcome is None  # only the statuses changed: the value alone decides
    assert side_value(state, side) == expected


def test_side_value_is_the_share_of_strength() -> None:
    # One of the 4 heroes down, the others unhurt: heroes 3/4, enemies 1 (a side's
    # strength is the mean over its combatants of ½ + ½ × health fraction, 0 when out).
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    hero = next(iter(state.side(Side.HEROES)))
    hero.status = Status.DOWN
    assert side_value(state, Side.HEROES) == pytest.approx(0.75 / 1.75)
    assert side_value(state, Side.ENEMIES) == pytest.approx(1 / 1.75)
    # Half of an enemy's PV gone: that enemy counts ¾, its side (6) 5.75/6.
    foe = next(iter(state.side(Side.ENEMIES)))
    foe.resources["pv"] = foe.maxima["pv"] / 2
    own = (5 + 0.75) / 6
    assert side_value(state, Side.ENEMIES) == pytest.approx(own / (own + 0.75))


def test_side_value_of_a_finished_battle_is_exact() -> None:
    state = play_battle(
        load_scenario("destiny_dice/brann-vs-saqueador"),
        {s: HeuristicAgent() for s in Side},
        seed=1,
    )
    assert state.outcome is not None and state.outcome.winner is not None
    assert side_value(state, state.outcome.winner) == 1.0
    assert side_value(state, state.outcome.winner.other) == 0.0


@pytest.mark.parametrize(
    ("winner", "horizon", "expected"),
    [
        (Side.ENEMIES, None, 1.0),
        (Side.HEROES, None, -1.0),
        (Side.ENEMIES, 1, 1.0),  # a finished battle is exact, horizon or not
        # A draw is not a win: −0.8 plus the shaping, here one hero down (enemies
        # 1 − heroes 3/4 = 0.25 → +0.05).
        (None, None, DRAW + SHAPING * 0.25),
        (None, 1, DRAW + SHAPING * 0.25),
    ],
)
def test_leaf_values_win_loss_and_draw(
    winner: Side | None, horizon: int | None, expected: float
) -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    next(iter(state.side(Side.HEROES))).status = Status.DOWN
    # Set directly: finish() would run Destiny Dice's end hook, which wakes the downed.
    state.outcome = Outcome(winner, "test", state.round)
    value = MCTS(iterations=1, horizon=horizon).leaf_value(state, Side.ENEMIES)
    assert value == pytest.approx(expected)
    assert -1.0 <= value <= -0.6 or winner is not None  # every draw below any even fight


def test_a_cut_rollout_scores_the_side_value_on_the_win_loss_scale() -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    next(iter(state.side(Side.HEROES))).status = Status.DOWN
    # Unfinished: with a horizon the value is 2 × side_value − 1 = 2 × 1/1.75 − 1.
    assert MCTS(iterations=1, horizon=1).leaf_value(state, Side.ENEMIES) == pytest.approx(
        2 / 1.75 - 1
    )


@pytest.mark.parametrize("horizon", [1, 2, 3])
def test_cut_rollouts_stop_when_the_horizons_round_begins(horizon: int) -> None:
    # The ambush lasts about 7 rounds, so a rollout from round 1 is cut far more often
    # than it ends; a cut one stops exactly as round 1 + horizon begins.
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    start = state.round
    planner = MCTS(iterations=1, horizon=horizon)
    action = state.ruleset.legal_actions(state)[0]
    cut = 0
    for seed in range(12):
        sim, value = planner.rollout(state, action, seed)
        if sim.outcome is None:
            cut += 1
            assert sim.round == start + horizon
            assert value == pytest.approx(2 * side_value(sim, state.pending.side) - 1)
        else:
            assert sim.round <= start + horizon
    assert cut > 0


def test_rollouts_without_a_horizon_play_to_the_end() -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    planner = MCTS(iterations=1)
    for seed in range(4):
        sim, value = planner.rollout(state, state.ruleset.legal_actions(state)[0], seed)
        assert sim.outcome is not None
        assert value in (1.0, -1.0) or abs(value) <= SHAPING


def test_the_kth_rollout_of_every_root_action_rolls_the_same_dice() -> None:
    # Common random numbers: replaying any root action on the search's k-th seed gives
    # exactly its k-th sample, for every action: one list of seeds serves them all.
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    planner = MCTS(iterations=24, root="sweep", horizon=1, halving=False, settle=0)
    result = planner.search(state, random.Random(3))
    n = len(result.candidates)
    assert n == len(result.actions) and len(result.seeds) == -(-24 // n)
    for i, action in enumerate(result.candidates):
        samples = result.child(action).samples
        assert len(samples) == 24 // n + (i < 24 % n)  # sweeps: one each in turn
        for k, seed in enumerate(result.seeds[: len(samples)]):
            assert planner.rollout(state, action, seed)[1] == samples[k]


def _result_with_samples(samples: dict[str, list[float]]) -> SearchResult:
    """A search result whose root actions ("h" the heuristic's pick) had these values."""
    actions = [Action("esperar", a) for a in samples]
    root = Node(children={a: Node(samples=list(samples[a.actor])) for a in actions})
    return SearchResult(root, actions, Side.ENEMIES, "h", actions[0], 0, 0.0, actions)


@pytest.mark.parametrize(
    ("samples", "z", "expected"),
    [
        # Won each of 8 shared rollouts the heuristic's pick lost: leave the pick.
        ({"h": [-1] * 8, "a": [1] * 8}, 1.0, "a"),
        # The same perfect record on 7 shared rollouts is not enough evidence (MIN_SHARED).
        ({"h": [-1] * 7, "a": [1] * 7}, 1.0, "h"),
        # Same mean gain, but a noisy one: gains +2, −2, +2, −2… average 0.
        ({"h": [-1, 1] * 4, "a": [1, -1] * 4}, 1.0, "h"),
        # Gains 0.5 ×6 and −0.5 ×2: mean 0.25, stderr sqrt(1.5/7/8) ≈ 0.164: the lower
        # bound is above 0 at z = 1 (0.086) and below it at z = 2 (−0.077).
        ({"h": [0] * 8, "a": [0.5] * 6 + [-0.5] * 2}, 1.0, "a"),
        ({"h": [0] * 8, "a": [0.5] * 6 + [-0.5] * 2}, 2.0, "h"),
        # Two candidates clear of the pick: the higher estimate is the pick (a: mean 1.5
        # with a wide interval, b: 1 with none) — the ranking's best, as suggest shows it.
        ({"h": [0] * 8, "a": [2, 1] * 4, "b": [1] * 8}, 1.0, "a"),
        # b is the best, but a is not separated from the heuristic's pick, and the pick is
        # not separated from b: the pick stays in the tie group and is offered first.
        ({"h": [0] * 8, "a": [1, -1] * 4, "b": [1, -1, 1, 1, -1, 1, 1, -1]}, 2.0, "h"),
        # Only the shared prefix counts: a's extra good samples have no partner in h.
        ({"h": [0] * 8, "a": [0] * 8 + [1] * 8}, 0.0, "h"),
    ],
)
def test_agent_leaves_the_heuristic_only_on_a_clear_paired_gain(
    samples: dict[str, list[float]], z: float, expected: str
) -> None:
    result = _result_with_samples(samples)
    assert result.choice(z).actor == expected
    # The agent's pick is the ranking's pick, the order suggest shows.
    assert result.choice(z) == result.ranking(z, "value").pick


def test_paired_statistics_are_the_mean_and_stderr_of_the_differences() -> None:
    result = _result_with_samples({"h": [0, 1, 0, -1], "a": [1, 1, 1, 1]})
    p = result.paired(result.actions[1])
    # Differences 1, 0, 1, 2: mean 1, sample variance (0+1+0+1)/3, stderr sqrt(2/3/4).
    assert (p.n, p.gain) == (4, 1.0)
    assert p.stderr == pytest.approx(math.sqrt(2 / 3 / 4))


def test_sequential_halving_spends_the_budget_on_the_better_half() -> None:
    # 8 root actions, 80 iterations: ⌈log₂ 8⌉ = 3 stages of 80/3 ≈ 26.7 rollouts;
    # stage 1 is ⌊26.7/8⌋ = 3 sweeps of all 8, then the better half (4, plus the
    # heuristic's pick if it is not among them) goes on.
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    assert len(state.ruleset.legal_actions(state)) == 8
    result = MCTS(iterations=80, root="sweep", horizon=1, settle=0).search(state, random.Random(1))
    visits = {a: result.child(a).visits for a in result.actions}
    assert sum(visits.values()) == 80 == result.iterations
    assert min(visits.values()) == 3  # dropped after the first stage
    dropped = [a for a, v in visits.items() if v == 3]
    assert len(dropped) in (3, 4)  # 4 kept, or 5 with the heuristic's pick added back
    assert result.heuristic not in dropped
    assert visits[result.heuristic] >= 3 + 5  # still there in the second stage
    # The dropped ones were the worse half on the first 3 shared sweeps.
    kept = [a for a in result.actions if a not in dropped and a != result.heuristic]
    first = {a: sum(result.child(a).samples[:3]) for a in result.actions}
    assert max(first[a] for a in dropped) <= min(first[a] for a in kept)


def test_candidates_are_the_heuristics_pick_and_the_most_damaging() -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    actions = state.ruleset.legal_actions(state)
    result = MCTS(iterations=12, root="sweep", candidates=2, horizon=1).search(
        state, random.Random(1)
    )
    assert len(result.candidates) == 3 and result.candidates[0] == result.heuristic
    assert set(result.root.children) <= set(result.candidates)
    # Independently: the others by (chance to drop, expected damage), attacks first,
    # the rest in legal order (a stable sort keeps it).
    odds = {a: state.ruleset.odds(state, a) for a in actions if a != result.heuristic}
    ranked = sorted(
        odds,
        key=lambda a: (0, -odds[a].p_drop, -odds[a].expected_damage) if odds[a] else (1, 0, 0),
    )
    assert result.candidates[1:] == ranked[:2]
    assert candidate_order(state, actions, result.heuristic) == [result.heuristic, *ranked]


def test_a_decision_that_changes_nothing_stops_after_the_settling_sweeps() -> None:
    # Brann's duel, the Saqueador's first turn: with this seed every action loses each
    # of the first 4 shared rollouts, exactly as the heuristic's pick does.
    scenario = load_scenario("destiny_dice/brann-vs-saqueador")
    roller, rng, hero = RandomRoller(0), random.Random(0), HeuristicAgent()
    state = new_battle(scenario, roller)
    while state.pending.side is not Side.ENEMIES:
        apply_action(state, hero.act(state, rng), roller)
    n = len(state.ruleset.legal_actions(state))
    result = MCTS(iterations=100, root="sweep").search(state, random.Random(0))
    assert result.settled and result.iterations == 4 * n
    assert (
        MCTS(iterations=100, root="sweep", settle=0).search(state, random.Random(0)).iterations
        == 100
    )


@pytest.mark.compile
@pytest.mark.parametrize("seed", range(4))
def test_sweep_agent_takes_the_kill(seed: int) -> None:
    _, state = forced_state()
    agent = MCTSAgent(iterations=24, root="sweep", horizon=1)
    assert agent.act(state, random.Random(seed)) == KILL


def test_sweep_search_is_reproducible() -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(4))
    runs = [
        MCTS(iterations=40, root="sweep", horizon=2, candidates=4).search(state, random.Random(9))
        for _ in range(2)
    ]
    a, b = runs
    assert a.seeds == b.seeds and a.candidates == b.candidates
    assert [a.child(x).samples for x in a.actions] == [b.child(x).samples for x in b.actions]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"horizon": 0}, "horizon"),
        ({"root": "greedy"}, "root policy"),
        ({"candidates": 0}, "candidates"),
    ],
)
def test_bad_planner_settings_are_user_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(EscaramuzaError, match=message):
        MCTS(**kwargs)
