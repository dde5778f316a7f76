"""The Sistema 2d10 kernel's own cases: what the kernel equality suite over every
ruleset (tests/agents/test_kernel_equality.py: shipped scenarios × agent pairings, odd
seeds, generated scenarios, rollouts, refusals) does not reach.

The generated scenarios of this ruleset (``_scenario``, drawn by that suite via
tests/kernel_cases.py); a custom tables file; an edited table entry followed by engine
and kernel; the refusal of a condition the ruleset never sets. "Proof by equality, not
resemblance": every field a kernel reads back is compared with the engine's own final
state and playtest record of the same seed (tests/fastpath_helpers).
"""

from __future__ import annotations

import dataclasses
import dis
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import strategies as st

from escaramuza.agents import make_agent
from escaramuza.agents.heuristics import sistema_2d10_kernel as temperaments
from escaramuza.agents.heuristics.sistema_2d10_kernel import KERNEL
from escaramuza.agents.runner import play_battle
from escaramuza.rules.core.events import ConditionApplied, ResourceChanged, Rolled, TurnStarted
from escaramuza.rules.core.kernel import KernelRefusal
from escaramuza.rules.core.loops import TEMPERAMENTS
from escaramuza.rules.core.model import Condition, Side
from escaramuza.rules.core.scenario import Scenario, load_scenario, parse_scenario
from escaramuza.rules.sistema_2d10 import combat, kernel, tables
from escaramuza.rules.sistema_2d10.tables import Location, default_tables_path, load_tables
from tests.fastpath_helpers import ruleset_scenarios, same_as_engine

pytestmark = pytest.mark.compile

SHIPPED = ruleset_scenarios("sistema_2d10")


# -- a custom tables file (S2-12, S2-13, S2-15) ----------------------------------------


def _custom_tables(tmp_path: Path) -> str:
    data = yaml.safe_load(Path(default_tables_path()).read_text(encoding="utf-8"))
    data["default"] = False
    # Other faces, multipliers, fewer aimable locations, one-turn rows, harsher GDF.
    data["localizacion"] = [
        {"tirada": "1-2", "lugar": "cabeza", "multiplicador": 3},
        {"tirada": "3", "lugar": "brazo_izquierdo"},
        {"tirada": "4-5", "lugar": "torso"},
        {"tirada": "6", "lugar": "pierna_derecha"},
        {"tirada": "7", "lugar": "pierna_izquierda"},
        {"tirada": "8-9", "lugar": "abdomen", "multiplicador": 2},
        {"tirada": "10", "lugar": "punto_vital", "multiplicador": 4},
    ]
    data["ataque_apuntado"] = {"cabeza": -5, "torso": -1, "pierna_derecha": -3}
    data["gdf"] = [
        {"tirada": "1", "efecto": "aturdido", "valor": -3, "duracion": "siguiente_turno"},
        {"tirada": "2-3", "efecto": "sangrado", "valor": 2},
        {"tirada": "4-6", "efecto": "incapacitado", "valor": -3, "duracion": "siguiente_turno"},
        {"tirada": "7", "efecto": "derribado", "valor": 2, "duracion": "siguiente_turno"},
        {"tirada": "8", "efecto": "inconsciente"},
        {"tirada": "9-10", "efecto": "moribundo", "dados": "1d4+1"},
    ]
    path = tmp_path / "tablas.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return str(path)


def _with_options(name: str, options: dict[str, Any]) -> Scenario:
    path = Path("scenarios") / f"{name.split('/')[1]}.yaml"
    root = Path(__file__).resolve().parents[3]
    data = yaml.safe_load((root / "scenarios" / "sistema_2d10" / path.name).read_text("utf-8"))
    data["options"] = options
    return parse_scenario(data, str(path))


def test_a_custom_tables_file_plays_the_engines_battles(tmp_path: Path) -> None:
    tables = _custom_tables(tmp_path)
    for name in SHIPPED:
        scenario = _with_options(name, {"tables": tables, "passive_beats": "gt"})
        for agents in (("heuristic", "heuristic"), ("random", "heuristic:protector")):
            same_as_engine(scenario, agents, list(range(12)))


# -- the rule tables reach the kernel as arrays exported from the engine's objects -------


def _heavier_torso(monkeypatch: pytest.MonkeyPatch) -> None:
    """Face 5 of the location table (S2-12: torso, ×1 by default) multiplies by 3: the
    Tables object every load of the tables file returns, the engine's and the kernel's."""
    default = load_tables()
    faces = list(default.location_by_face)
    assert faces[4] == Location("torso", 1)
    faces[4] = Location("torso", 3)
    edited = dataclasses.replace(default, location_by_face=tuple(faces))
    monkeypatch.setattr(tables, "_load", lambda path, mtime: edited)


def _torso_is_a_leg(monkeypatch: pytest.MonkeyPatch) -> None:
    """An incapacitated torso plays as a leg (S2-15: no moving, no MS): the names of the
    leg locations combat.lame and combat.limb_penalty read."""
    torso = f"{combat.INCAPACITATED}_torso"
    monkeypatch.setattr(combat, "_LEG_NAMES", combat._LEG_NAMES | {torso})


@pytest.mark.parametrize(
    ("name", "agents", "edit"),
    [
        ("sistema_2d10/duelo", ("heuristic", "heuristic"), _heavier_torso),
        ("sistema_2d10/escuadra", ("random", "random"), _torso_is_a_leg),
    ],
)
def test_an_edited_table_entry_is_followed_by_engine_and_kernel(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    agents: tuple[str, str],
    edit: Callable[[pytest.MonkeyPatch], None],
) -> None:
    """No rule table is typed a second time in compiled code: edit one entry the kernel
    reads, export the scenario again (a new scenario object), and the kernel still plays
    the engine's battles — which the edit changed."""
    seeds = list(range(80))
    before = KERNEL.play_battles(load_scenario(name), agents, seeds)
    edit(monkeypatch)
    scenario = load_scenario(name)
    after = same_as_engine(scenario, agents, seeds)
    assert any(a != b for a, b in zip(before, after, strict=True))


# -- legal actions -------------------------------------------------------------------------


def test_s205_the_kernel_offers_a_dado_expres_only_to_an_ally_who_has_run_out(
    tools: Any,
) -> None:
    # "si alguno ha agotado los suyos": h2 holds none, h3 one of its three; the kernel's
    # legal list from the engine's state is the engine's, and gives to h2 alone.
    scn, state, _ = tools.run_out()
    exported = KERNEL.exported(scn)
    la = np.zeros((exported.actions, KERNEL.ACTION_WIDTH), dtype=np.int64)
    n = KERNEL.loops.rules["legal"](exported.static, kernel.export_state(exported, state), la)
    rows = [list(row) for row in la[:n]]
    engine = state.ruleset.legal_actions(state)
    assert rows == [kernel.action_row(exported, state, a) for a in engine]
    gifts = [row[1] for row in rows if row[0] == kernel.CEDER_DADO]
    assert gifts == [exported.ids["h2"]]


def test_s214_the_kernels_odds_bear_the_exact_16_stun_on_its_bearers_attack_alone(
    tools: Any,
) -> None:
    # e holds S2-14's stun (MS −3) "durante el siguiente turno": not on its active defence
    # or Aguante against h's attack (MHC 6 each), on its own attack (6 − 3); the kernel's
    # attack terms and odds from the engine's state are the engine's.
    t = tools
    scn = t.duel()
    state, _ = t.start(scn, t.HERO_FIRST)
    state.get("e").conditions["aturdido_16"] = Condition("aturdido_16", -3, until="siguiente_turno")
    exported = KERNEL.exported(scn)
    s, cs = exported.static, kernel.export_state(exported, state)[0]
    h, e = exported.ids["h"], exported.ids["e"]
    bonus, _, has_defence, defence, _ = kernel.attack_terms(s, cs, h, 0, e)
    assert (bonus, has_defence, defence) == (6, True, 6)
    assert kernel.attack_terms(s, cs, e, 0, h)[0] == 6 - 3
    assert kernel.roll_penalty(cs, s[kernel.OPTS], s[kernel.PLACES], e, kernel.AGUANTE) == 0
    for a, b in (("h", "e"), ("e", "h")):
        odds = state.ruleset.attack_odds(state, state.get(a), state.get(b), "espada")
        got = kernel.attack_odds(s, cs, exported.ids[a], 0, exported.ids[b], -1)
        assert got == (odds.p_hit, odds.expected_damage, odds.p_drop)


def _exercised(scenario: Scenario, agents: tuple[str, str], seeds: list[int]) -> tuple[int, int]:
    """In the engine's battles of ``seeds``: the Dados Exprés given, each asserted to go
    to an ally who held none (S2-05), and the active defences and Aguante tests a bearer
    of S2-14's exact-16 stun rolled before its next turn (S2-14)."""
    gifts = early = 0
    for seed in seeds:
        sides = {Side.HEROES: make_agent(agents[0]), Side.ENEMIES: make_agent(agents[1])}
        state = play_battle(scenario, sides, seed, narrate=False)
        stunned: set[str] = set()
        for event in state.log:
            if isinstance(event, ResourceChanged) and event.resource == "dados_expres":
                if event.delta == 1:
                    assert event.value == 1, (seed, event.text)
                    gifts += 1
            elif isinstance(event, ConditionApplied) and event.condition == "aturdido_16":
                stunned.add(event.target)
            elif isinstance(event, TurnStarted):
                stunned.discard(event.actor)
            elif isinstance(event, Rolled) and event.actor in stunned:
                early += event.what in (combat.DEFENSA, combat.AGUANTE)
    return gifts, early


@pytest.mark.parametrize("agents", [("random", "heuristic:protector"), ("heuristic", "random")])
def test_s205_s214_engine_and_kernel_agree_where_the_two_rules_play(
    agents: tuple[str, str],
) -> None:
    # A harsher exact-16 stun (−6) makes its turn matter more.
    scenario = _with_options("sistema_2d10/escuadra", {"stun_penalty": -6})
    seeds = list(range(60))
    same_as_engine(scenario, agents, seeds)
    gifts, early = _exercised(scenario, agents, seeds)
    assert gifts > 0 and early > 0, (gifts, early)


# -- hypothesis scenarios ----------------------------------------------------------------

_SKILLS = ("espada", "esquivar", "cubrir", "resistencia_al_dolor", "armas")


@st.composite
def _fighter(draw: Any, cid: str, side: str, zones: int) -> dict[str, Any]:
    score = st.integers(0, 50)  # two add up to at most 100 (S2-02)
    weapons = []
    for w in range(draw(st.integers(1, 2))):
        ranged = draw(st.booleans())
        weapons.append(
            {
                "name": f"arma{w}",
                "kind": "distancia" if ranged else "cuerpo_a_cuerpo",
                "skill": draw(st.sampled_from(("espada", "armas"))),
                "attribute": "destreza",
                "damage": draw(
                    st.sampled_from(("1d6", "1d10+2", "2d6+2", "3d6", "2d10kh1", "1d8-1"))
                ),
                "reach": draw(st.integers(1, 3)) if ranged else 0,
            }
        )
    dados = draw(st.integers(0, 3))
    return {
        "id": cid,
        "side": side,
        "zone": f"z{draw(st.integers(0, zones - 1))}",
        "temperament": draw(st.sampled_from(TEMPERAMENTS)),
        "pv": draw(st.integers(4, 30)),
        "actions": draw(st.integers(1, 3)),
        "extra_actions": draw(st.integers(0, 1)),
        "dados_expres": dados,
        "dados_expres_max": dados + draw(st.integers(0, 2)),
        "ca": draw(st.integers(0, 4)),
        "pc": draw(st.booleans()),
        "attributes": {k: draw(score) for k in ("reflejos", "sentidos", "aguante", "destreza")},
        "skills": {k: draw(score) for k in _SKILLS},
        "weapons": weapons,
    }


@st.composite
def _scenario(draw: Any) -> tuple[dict[str, Any], list[int]]:
    zones = draw(st.integers(1, 4))
    heroes = draw(st.integers(1, 3))
    enemies = draw(st.integers(1, 3))
    fighters = [draw(_fighter(f"h{i}", "heroes", zones)) for i in range(heroes)]
    fighters += [draw(_fighter(f"e{i}", "enemies", zones)) for i in range(enemies)]
    links = [[f"z{i}", f"z{i + 1}"] for i in range(zones - 1)]
    if zones >= 3 and draw(st.booleans()):
        links.append(["z0", f"z{zones - 1}"])
    exits = draw(st.sets(st.integers(0, zones - 1), max_size=1))
    options = {
        "passive_beats": draw(st.sampled_from(("ge", "gt"))),
        "active_blocks": draw(st.sampled_from(("ge", "gt"))),
        "full_defence_bonus": draw(st.integers(0, 5)),
        "aguante_difficulty": draw(st.integers(10, 20)),
        "stun_penalty": draw(st.integers(-4, 0)),
    }
    data = {
        "name": "generado",
        "ruleset": "sistema_2d10",
        "round_limit": draw(st.integers(3, 12)),
        "victory": draw(st.sampled_from(("defeat_all", "survive"))),
        "options": options,
        "battlefield": {
            "zones": [{"id": f"z{i}", "exit": i in exits} for i in range(zones)],
            "links": links,
        },
        "combatants": fighters,
    }
    return data, draw(st.lists(st.integers(0, 2**40), min_size=2, max_size=3))


# -- rollouts ------------------------------------------------------------------------------


def _states(name: str, count: int, longest: int) -> list[Any]:
    """``count`` unfinished mid-battle states, up to ``longest`` decisions in (turns,
    active defences, Dados Exprés; some with GDF effects on)."""
    scenario = load_scenario(name)
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("random")}
    out: list[Any] = []
    rng = random.Random(7)
    seed = 0
    while len(out) < count:
        stop = rng.randrange(1, longest)
        state = play_battle(scenario, agents, seed, stop_after=stop, narrate=False)
        seed += 1
        if state.outcome is None:
            out.append(state)
    return out


# -- refusal -------------------------------------------------------------------------------


def test_rollouts_refuse_a_condition_the_ruleset_never_sets() -> None:
    # A rollout from a state holding a condition the ruleset never sets (a GM's own).
    state = _states("sistema_2d10/duelo", 1, 5)[0]
    state.combatants[0].conditions["envenenado"] = Condition("envenenado", 1)
    with pytest.raises(KernelRefusal, match="envenenado"):
        KERNEL.rollouts(state, state.ruleset.legal_actions(state)[:1], [1], None, None, 100)


# -- the first compile (docs/decisions/0016-kernel-compile-time.md) -----------------------


def test_the_attack_loops_inline_the_attack_terms_at_one_site_each() -> None:
    # Every site of an inlined function is a copy of its code in the battle loop's first
    # compile: the attack loops work out a (target, weapon)'s terms at one site, and the
    # roll penalty the terms call three times is compiled once, not copied into each.
    for loop in (temperaments.best_attack, temperaments.brute_attack):
        sites = [i for i in dis.get_instructions(loop.py_func) if i.argval == "attack_terms"]
        assert len(sites) == 1, loop.py_func.__name__
    assert kernel.roll_penalty.targetoptions.get("inline", "never") == "never"


@pytest.mark.parametrize("npc", ["h", "h2"])
def test_s205_only_player_characters_give_one_another_dados_expres(tools: Any, npc: str) -> None:
    # "Los jugadores pueden cederse sus dados exprés": an NPC neither gives (h) nor is
    # given (h2, who holds none) a die, in the engine and in the kernel's legal list.
    t = tools
    pcs = {"h": True, "h2": True, npc: False}
    scn = t.scenario(
        t.fighter("h", "heroes", dados_expres=3, actions=2, pc=pcs["h"]),
        t.fighter("h2", "heroes", pc=pcs["h2"]),
        t.fighter("e", "enemies"),
    )
    state, _ = t.start(scn, ["d10=10", "d10=10"] + ["d10=1"] * 4)
    assert state.pending.actor == "h"
    engine = state.ruleset.legal_actions(state)
    assert [a for a in engine if a.verb == "ceder_dado"] == []
    exported = KERNEL.exported(scn)
    la = np.zeros((exported.actions, KERNEL.ACTION_WIDTH), dtype=np.int64)
    n = KERNEL.loops.rules["legal"](exported.static, kernel.export_state(exported, state), la)
    assert [list(row) for row in la[:n]] == [kernel.action_row(exported, state, a) for a in engine]
