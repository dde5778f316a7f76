"""Each temperament chooses what its description says, in Destiny Dice situations."""

from __future__ import annotations

import random
from typing import Any

import pytest

from escaramuza.agents import HeuristicAgent, make_agent
from escaramuza.rules.core import Action, ScriptedRoller, Status, UnknownNameError, new_battle
from escaramuza.rules.core.scenario import parse_scenario

SWORD = {"name": "espada", "tier": "media"}
BOW = {"name": "arco", "tier": "media", "kind": "distancia", "bands": ["cerca", "lejos"]}
POTION = {"name": "poción", "heal": "1d4", "uses": 3, "bands": ["cuerpo_a_cuerpo", "cerca"]}
#   a — b — c — d      (e is an exit off d)
ZONES = [{"id": "a"}, {"id": "b", "cover": 1}, {"id": "c"}, {"id": "d"}, {"id": "e", "exit": True}]
LINKS = [["a", "b"], ["b", "c"], ["c", "d"], ["d", "e"]]


def c(cid: str, side: str, zone: str, **kw: Any) -> dict[str, Any]:
    base = {
        "id": cid,
        "side": side,
        "zone": zone,
        "cuerpo": "d8",
        "mente": "d8",
        "alma": "d6",
        "pv": 12,
    }
    if side == "enemies":
        base["defensa"] = "d6"
    base.update(kw)
    return base


def situation(actor: dict[str, Any], *others: dict[str, Any]):
    """A battle where ``actor`` (first, Mente d12 rolled 12) has the first turn."""
    data = {
        "ruleset": "destiny_dice",
        "battlefield": {"zones": ZONES, "links": LINKS},
        "combatants": [actor | {"mente": "d12"}, *others],
    }
    sc = parse_scenario(data, "t.yaml")
    dice = ["d12=12"] + [1] * (len(sc.combatants) - 1)
    return new_battle(sc, ScriptedRoller(dice))


def pick(state, temperament: str) -> Action:
    return HeuristicAgent(temperament).act(state, random.Random(0))


def test_brute_hits_the_nearest_enemy():
    state = situation(
        c("h", "heroes", "b", weapons=[SWORD, BOW]),
        c("near", "enemies", "b", pv=12),
        c("far", "enemies", "d", pv=1),  # easy kill, but far
    )
    assert pick(state, "brute") == Action("atacar", "h", target="near", item="espada")
    assert pick(state, "tactician").target == "far"  # the drop chance wins for a tactician


def test_brute_closes_in():
    state = situation(c("h", "heroes", "a", weapons=[SWORD]), c("e", "enemies", "d"))
    assert pick(state, "brute") == Action("mover", "h", zone="b")


def test_tactician_focuses_the_wounded():
    state = situation(
        c("h", "heroes", "a", weapons=[SWORD]),
        c("fresh", "enemies", "a", pv=12),
        c("wounded", "enemies", "a", pv=12, pv_current=2),
    )
    assert pick(state, "tactician").target == "wounded"


def test_tactician_heals_a_fallen_ally_before_attacking():
    state = situation(
        c("h", "heroes", "a", weapons=[SWORD], heals=[POTION]),
        c("ally", "heroes", "b", pv_current=0),
        c("e", "enemies", "a", pv=1),
    )
    assert state.get("ally").status is Status.DOWN
    assert pick(state, "tactician") == Action("curar", "h", target="ally", item="poción")


def test_cautious_shoots_from_range_rather_than_brawl():
    state = situation(
        c("h", "heroes", "b", weapons=[SWORD, BOW]),
        c("adjacent", "enemies", "b"),
        c("across", "enemies", "c"),
    )
    assert pick(state, "cautious") == Action("atacar", "h", target="across", item="arco")


def test_cautious_withdraws_when_hurt():
    state = situation(
        c("h", "heroes", "c", pv=12, pv_current=4, weapons=[SWORD]), c("e", "enemies", "c")
    )
    choice = pick(state, "cautious")
    assert choice.verb == "mover" and choice.zone in {"b", "d"}
    assert pick(state, "tactician").verb == "atacar"


def test_coward_runs_for_the_exit_when_its_side_breaks():
    state = situation(
        c("h", "enemies", "d", weapons=[SWORD]),
        c("dead1", "enemies", "a", pv_current=0),
        c("p", "heroes", "c"),
    )
    assert pick(state, "coward") == Action("mover", "h", zone="e")
    assert pick(state, "brute") == Action("mover", "h", zone="c")


def test_coward_fights_when_cornered():
    state = situation(
        c("h", "enemies", "e", pv_current=2, weapons=[SWORD]),
        c("p", "heroes", "e"),
        c("q", "heroes", "d"),
    )
    # From the exit zone e the only step is towards the heroes: it stands and fights.
    assert pick(state, "coward").verb == "atacar"


def test_protector_heals_a_hurt_ally_and_guards():
    state = situation(
        c("h", "heroes", "b", weapons=[SWORD], heals=[POTION]),
        c("ally", "heroes", "b", pv=12, pv_current=7),
        c("e", "enemies", "b"),
    )
    assert pick(state, "protector") == Action("curar", "h", target="ally", item="poción")
    assert pick(state, "tactician").verb == "atacar"  # 7/12 is not "badly hurt"


def test_protector_strikes_whoever_engages_its_ward():
    state = situation(
        c("h", "heroes", "b", weapons=[BOW, SWORD]),
        c("ward", "heroes", "c", pv_current=5),
        c("near_me", "enemies", "b", pv=3),
        c("on_ward", "enemies", "c"),
    )
    assert pick(state, "protector").target == "on_ward"


def test_scenario_temperament_is_used_and_cli_overrides_it():
    state = situation(
        c("h", "heroes", "b", weapons=[SWORD, BOW], temperament="brute"),
        c("near", "enemies", "b"),
        c("far", "enemies", "d", pv=1),
    )
    assert HeuristicAgent().act(state, random.Random(0)).target == "near"
    assert make_agent("tactician").act(state, random.Random(0)).target == "far"
    assert make_agent("heuristic:tactician").act(state, random.Random(0)).target == "far"


def test_unknown_temperament_is_refused():
    with pytest.raises(UnknownNameError, match="unknown agent 'berserk'"):
        make_agent("berserk")


def test_every_advertised_agent_name_is_accepted():
    from escaramuza.agents import AGENT_NAMES

    for name in AGENT_NAMES:
        if name != "mcts":
            assert make_agent(name) is not None
