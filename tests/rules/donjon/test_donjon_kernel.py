"""The Donjon kernel plays exactly the engine's battles.

Proof by equality (architecture.md, "The fast path"): for the shipped scenarios and every
agent spec on each side, hypothesis-generated scenarios and mid-battle rollouts, the
kernel's read-back equals what the engine's own final state, event log and planner give
(``tests/fastpath_helpers.py``). The rules themselves are tested with scripted dice in
the other Donjon tests; here the engine is the oracle.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st

from escaramuza.agents import make_agent
from escaramuza.agents.heuristics.donjon_kernel import KERNEL
from escaramuza.agents.runner import play_battle
from escaramuza.rules.core.kernel import KernelRefusal
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario
from tests.fastpath_helpers import differences, engine_battle, engine_rollout, rollout_row

pytestmark = pytest.mark.compile

SHIPPED = ("donjon/duelo", "donjon/emboscada")


def assert_same(scenario: Any, agents: tuple[str, str], seeds: list[int]) -> None:
    kernel = KERNEL.play_battles(scenario, agents, seeds)
    assert [b.seed for b in kernel] == seeds
    for seed, got in zip(seeds, kernel, strict=True):
        diff = differences(engine_battle(scenario, agents, seed), got)
        assert not diff, f"{scenario.name} {agents} seed {seed}: {diff}"


def test_random_agent_differs_from_heuristic_random() -> None:
    """``random`` (RandomAgent) draws even for a single legal action; ``heuristic:random``
    does not (heuristic_choice returns it): the kernel keeps the two apart."""
    scenario = load_scenario("donjon/duelo")
    seeds = list(range(12))
    a = KERNEL.play_battles(scenario, ("random", "random"), seeds)
    b = KERNEL.play_battles(scenario, ("heuristic:random", "heuristic:random"), seeds)
    assert a != b
    for seed, got in zip(seeds, b, strict=True):
        assert not differences(
            engine_battle(scenario, ("heuristic:random", "heuristic:random"), seed), got
        )


# -- hypothesis scenarios --------------------------------------------------------------------
KINDS = ("cuerpo_a_cuerpo", "distancia", "arrojadiza")


@st.composite
def donjon_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """A small Donjon scenario: a line of 2–4 zones, 2–4 fighters within two hops of
    every foe (DJ-09), random sheets, weapons, abilities, PJ flags and options."""
    n_zones = draw(st.integers(2, 4))
    zones = [f"z{i}" for i in range(n_zones)]
    n = draw(st.integers(2, 4))
    fighters = []
    for i in range(n):
        side = (
            "heroes"
            if i == 0
            else ("enemies" if i == 1 else draw(st.sampled_from(["heroes", "enemies"])))
        )
        armas = [
            {
                "name": f"arma{w}",
                "kind": draw(st.sampled_from(KINDS)),
                "damage": draw(st.integers(0, 3)),
            }
            for w in range(draw(st.integers(0, 2)))
        ]
        fighter: dict[str, Any] = {
            "id": f"c{i}",
            "side": side,
            "zone": draw(st.sampled_from(zones[:3])),
            "temperament": draw(
                st.sampled_from(["tactician", "brute", "cautious", "coward", "protector", "random"])
            ),
            "level": draw(st.integers(1, 3)),
            "heridas": draw(st.integers(1, 6)),
            "attributes": {
                a: draw(st.integers(1, 6))
                for a in ("celeridad", "virilidad", "aguante", "discernimiento")
            },
            "skills": {
                h: draw(st.integers(0, 3))
                for h in ("ataque", "esquivar", "movimiento", "dano", "resistencia", "iniciativa")
            },
            "weapons": armas,
            "armour": draw(st.integers(0, 2)),
            "sorpresa": draw(st.integers(0, 2)),
        }
        if draw(st.booleans()):
            fighter["pc"] = draw(st.booleans())
        fighters.append(fighter)
    return {
        "name": "generated",
        "ruleset": "donjon",
        "options": {
            "die_size": draw(st.sampled_from([6, 10, 20])),
            "all_tied": draw(st.sampled_from(["defender", "attacker"])),
            "dificultades": {"media": draw(st.integers(0, 4))},
        },
        "round_limit": draw(st.integers(1, 6)),
        "victory": draw(st.sampled_from(["defeat_all", "survive"])),
        "battlefield": {
            "zones": [{"id": z} for z in zones],
            "links": [[a, b] for a, b in itertools.pairwise(zones)],
        },
        "combatants": fighters,
    }


# -- rollouts ------------------------------------------------------------------------------------
def mid_battle_states() -> list[Any]:
    """Engine states waiting on every kind of decision (turn, defensa, resistir,
    repartir, continuar), taken from heuristic battles of both shipped scenarios."""
    found: dict[str, list[Any]] = {}
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    for name in SHIPPED:
        scenario = load_scenario(name)
        for seed in range(8):
            final = play_battle(scenario, agents, seed, narrate=False)
            steps = sum(1 for _ in final.log)  # an upper bound of the decisions
            for stop in range(1, min(steps, 400), 3):
                state = play_battle(scenario, agents, seed, stop_after=stop, narrate=False)
                if state.outcome is not None:
                    break
                bucket = found.setdefault(state.pending.name, [])
                if len(bucket) < 4 and (
                    not bucket or bucket[-1].scenario is not scenario or stop % 9 == 1
                ):
                    bucket.append(state)
            if all(
                len(found.get(k, ())) >= 4
                for k in ("turn", "defensa", "resistir", "repartir", "continuar")
            ):
                break
    return [s for states in found.values() for s in states]


def test_rollouts_equal_mcts_rollout() -> None:
    states = mid_battle_states()
    kinds = {s.pending.name for s in states}
    assert kinds == {"turn", "defensa", "resistir", "repartir", "continuar"}
    seeds = [5, 91, 2**40 + 3]
    for state in states:
        actions = state.ruleset.legal_actions(state)
        for horizon, own in ((None, None), (1, None), (2, "brute"), (1, "random")):
            batch = KERNEL.rollouts(state, actions, seeds, horizon, own, 5000)
            for i, action in enumerate(actions):
                for j, seed in enumerate(seeds):
                    ref = engine_rollout(state, action, seed, horizon, own, 5000)
                    got = rollout_row(batch, i, j)
                    assert got == ref, (state.pending.name, action, seed, horizon, own)


def test_rollouts_stop_at_the_decision_cap() -> None:
    state = mid_battle_states()[0]
    action = state.ruleset.legal_actions(state)[0]
    batch = KERNEL.rollouts(state, [action], [4], None, None, 3)
    ref = engine_rollout(state, action, 4, None, None, 3)
    assert not ref[1]  # three decisions never finish a Donjon battle from its start
    assert rollout_row(batch, 0, 0) == ref


# -- refusals ------------------------------------------------------------------------------------
def test_refusal_names_the_agent() -> None:
    scenario = load_scenario("donjon/duelo")
    assert KERNEL.refusal(scenario, ("heuristic", "random")) is None
    why = KERNEL.refusal(scenario, ("mcts", "heuristic"))
    assert why is not None and "'mcts'" in why
    with pytest.raises(KernelRefusal, match="policy:x"):
        KERNEL.play_battles(scenario, ("heuristic", "policy:x"), [1])


def test_refusal_names_another_ruleset() -> None:
    why = KERNEL.refusal(load_scenario("destiny_dice/emboscada"), ("heuristic", "heuristic"))
    assert why is not None and "destiny_dice" in why


def test_rollouts_refuse_a_finished_battle() -> None:
    scenario = load_scenario("donjon/duelo")
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    state = play_battle(scenario, agents, 3, narrate=False)
    with pytest.raises(KernelRefusal, match="unfinished battle"):
        KERNEL.rollouts(state, [], [1], None, None, 10)


def _empty_tables(monkeypatch: pytest.MonkeyPatch, grown: bool, die_size: int, tied: str) -> None:
    """Empty odds tables for the process; ``grown``: of one entry each, so that every
    entry filled grows a table (a new array the scenarios' static bundles must take up)."""
    import escaramuza.rules.donjon.kernel as K

    monkeypatch.setattr(K, "_TABLES", {})
    if grown:
        tables = K.odds_tables(die_size, tied)
        tables.hurt = np.full((1, 1, 1, 1, 2, 2), np.nan)
        tables.win = np.full((1, 1), np.nan)


def _fill_spy(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The odds entries each pass of replays filled (a list the kernel appends to)."""
    import escaramuza.agents.heuristics.donjon_kernel as dk
    import escaramuza.rules.donjon.kernel as K

    passes: list[int] = []
    real = dk.DonjonKernel._fill

    def spy(exported: Any, keys: Any) -> None:
        passes.append(int((keys[:, K.ODDS.TABLE] != 0).sum()))
        real(exported, keys)

    monkeypatch.setattr(dk.DonjonKernel, "_fill", staticmethod(spy))
    return passes


@pytest.mark.parametrize(("battles", "grown"), [(12, False), (1, False), (3, True)])
def test_battles_stopped_by_odds_misses_replay_from_the_start(
    monkeypatch: pytest.MonkeyPatch, battles: int, grown: bool
) -> None:
    # With empty odds tables every battle of the ambush stops on misses: the kernel fills
    # the entries they recorded and plays them again from the start, the engine's records
    # in the end. One battle alone meets dozens of entries one after another, each found
    # on its own pass.
    from escaramuza.playtest.records import battle_seed, records_from_columns
    from escaramuza.playtest.runner import play_one

    sc = load_scenario("donjon/emboscada")
    _empty_tables(monkeypatch, grown, sc.options.die_size, sc.options.all_tied)
    passes = _fill_spy(monkeypatch)
    seeds = [battle_seed(4, i) for i in range(battles)]
    got = records_from_columns(0, seeds, KERNEL.play_columns(sc, ["heuristic", "heuristic"], seeds))
    assert got == [play_one(sc, "heuristic", "heuristic", 4, i) for i in range(battles)]
    assert len(passes) > 2 and min(passes) > 0  # the misses did happen, each pass filled
    if battles == 1:
        assert len(passes) > 24


@pytest.mark.parametrize("grown", [False, True])
def test_rollouts_from_empty_odds_tables_equal_mcts_rollout(
    monkeypatch: pytest.MonkeyPatch, grown: bool
) -> None:
    # From empty tables a batch of rollouts stops on misses pass after pass, each pass
    # on the tables as the last one left them (grown: a new array each time). The
    # engine's rollouts in the end.
    import escaramuza.rules.donjon.kernel as K

    sc = load_scenario("donjon/emboscada")
    _empty_tables(monkeypatch, grown, sc.options.die_size, sc.options.all_tied)
    passes = _fill_spy(monkeypatch)
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    state = play_battle(sc, agents, 1, stop_after=0, narrate=False)
    actions = state.ruleset.legal_actions(state)[:3]
    seeds = [5, 91]
    batch = KERNEL.rollouts(state, actions, seeds, None, None, 5000)
    assert K.entries_filled() > 0 and len(passes) > 2
    for i, action in enumerate(actions):
        for j, seed in enumerate(seeds):
            want = engine_rollout(state, action, seed, None, None, 5000)
            assert rollout_row(batch, i, j) == want, (action, seed)
