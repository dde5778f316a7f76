"""The Donjon kernel's own cases: what the kernel equality suite over every ruleset
(tests/agents/test_kernel_equality.py: shipped scenarios × agent pairings, odd seeds,
generated scenarios, rollouts up to the decision cap, refusals) does not reach.

The generated scenarios of this ruleset (``donjon_scenarios``, drawn by that suite via
tests/kernel_cases.py); the random agent kept apart from the random temperament;
rollouts from every kind of decision (turn, defensa, resistir, repartir, continuar);
battles and rollouts stopped by odds-table misses and replayed. The rules themselves
are tested with scripted dice in the other Donjon tests; here the engine is the oracle
(``tests/fastpath_helpers.py``).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st

from escaramuza.agents import make_agent
from escaramuza.agents.heuristics.donjon_kernel import KERNEL
from escaramuza.agents.runner import play_battle
from escaramuza.rules.core.events import Rolled
from escaramuza.rules.core.loops import TEMPERAMENTS
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario, parse_scenario
from tests.fastpath_helpers import engine_rollout, rollout_row, ruleset_scenarios, same_as_engine

pytestmark = pytest.mark.compile

SHIPPED = ruleset_scenarios("donjon")


def test_random_agent_differs_from_heuristic_random() -> None:
    """``random`` (RandomAgent) draws even for a single legal action; ``heuristic:random``
    does not (heuristic_choice returns it): the kernel keeps the two apart. Donjon's
    decisions of one legal action show it (on Cairn's and Sistema 2d10's scenarios the
    two play the same battles)."""
    scenario = load_scenario("donjon/duelo")
    seeds = list(range(12))
    a = KERNEL.play_battles(scenario, ("random", "random"), seeds)
    b = same_as_engine(scenario, ("heuristic:random", "heuristic:random"), seeds)
    assert a != b


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
            "temperament": draw(st.sampled_from(TEMPERAMENTS)),
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


# -- DJ-11: the free attack's weapon ---------------------------------------------------------------
#: The DJ-12 dice each kind loses en contacto.
_CONTACT_PENALTY = {"cuerpo_a_cuerpo": 0, "arrojadiza": 3, "distancia": 6}


def _escapes(rng: random.Random) -> dict[str, Any]:
    """Slow fighters with a heavy bow or javelin first on the sheet and a light melee
    weapon, all en contacto: the cautious archers step away from their foes, the brutes
    resist every foe leaving them, so failed escapes give free attacks that the heavy
    weapon (most attack + damage dice) often cannot roll even with the éxitos."""
    fighters = []
    for i in range(4):
        heavy = rng.choice(
            [
                {"name": "arco", "kind": "distancia", "damage": 6},
                {"name": "jabalina", "kind": "arrojadiza", "damage": rng.randint(3, 6)},
            ]
        )
        light = {"name": "daga", "kind": "cuerpo_a_cuerpo", "damage": rng.randint(0, 1)}
        fighters.append(
            {
                "id": f"c{i}",
                "side": "heroes" if i % 2 == 0 else "enemies",
                "zone": "z0",
                "temperament": "brute" if i < 2 else "cautious",
                "level": rng.randint(1, 3),
                "heridas": rng.randint(3, 6),
                "attributes": {
                    "celeridad": rng.randint(1, 3),
                    "virilidad": rng.randint(1, 4),
                    "aguante": rng.randint(1, 4),
                    "discernimiento": rng.randint(1, 3),
                },
                "skills": {"ataque": rng.randint(0, 1), "movimiento": rng.randint(0, 3)},
                "weapons": [heavy, light],
                "pc": rng.random() < 0.5,
            }
        )
    return {
        "name": "escapes",
        "ruleset": "donjon",
        "options": {"die_size": rng.choice([6, 10, 20])},
        "round_limit": 8,
        "battlefield": {
            "zones": [{"id": z} for z in ("z0", "z1", "z2")],
            "links": [["z0", "z1"], ["z1", "z2"]],
        },
        "combatants": fighters,
    }


def test_dj11_free_attacks_with_the_weapon_the_successes_can_roll_replay_in_the_kernel() -> None:
    # "puede utilizar los éxitos como bonificadores para el ataque gratuito": the kernel
    # picks the free attack's weapon as the engine does, among those its pool with the
    # éxitos can roll. Counted on the engine's side: free attacks with a weapon other than
    # the one of most attack + damage dice (the heavy one first on the sheet, whatever the
    # Celeridad: the DJ-12 penalty and the Nivel de Daño are all that differ).
    other_weapon = 0
    for k in range(6):
        scenario = parse_scenario(_escapes(random.Random(k)), "<escapes>")
        seeds = list(range(12))
        same_as_engine(scenario, ("heuristic", "heuristic"), seeds)
        most = {
            c.id: max(
                c.stats.weapons,
                key=lambda w: w.damage - _CONTACT_PENALTY[w.kind],
            ).name
            for c in scenario.combatants
        }
        agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
        for seed in seeds:
            final = play_battle(scenario, agents, seed, narrate=False)
            other_weapon += sum(
                1
                for e in final.log
                if isinstance(e, Rolled)
                and e.what.startswith("ataque gratuito")
                and not e.what.startswith(f"ataque gratuito with {most[e.actor]} ")
            )
    assert other_weapon >= 10


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
