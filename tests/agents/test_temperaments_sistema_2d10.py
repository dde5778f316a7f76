"""Each temperament chooses what its description says, in Sistema 2d10 situations."""

from __future__ import annotations

import random
from typing import Any

import pytest

from escaramuza.agents import HeuristicAgent, make_agent
from escaramuza.rules.core import Action, ScriptedRoller, Status, apply_action, new_battle
from escaramuza.rules.core.scenario import parse_scenario

SWORD = {"name": "espada", "skill": "espada", "attribute": "destreza", "damage": "1d10"}
RIFLE = {
    "name": "fusil",
    "kind": "distancia",
    "skill": "fusil",
    "attribute": "destreza",
    "damage": "1d10",
    "reach": 2,
}
#   a — b — c — d — e      (e is an exit)
ZONES = [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}, {"id": "e", "exit": True}]
LINKS = [["a", "b"], ["b", "c"], ["c", "d"], ["d", "e"]]


def c(cid: str, side: str, zone: str, **kw: Any) -> dict[str, Any]:
    """A combatant with every MHC 6 (defensa pasiva 16), 20 PV, one action."""
    base: dict[str, Any] = {
        "id": cid,
        "side": side,
        "zone": zone,
        "pv": 20,
        "actions": 1,
        "attributes": {"reflejos": 30, "sentidos": 30, "aguante": 30, "destreza": 30},
        "skills": {
            "espada": 30,
            "fusil": 30,
            "esquivar": 30,
            "cubrir": 30,
            "resistencia_al_dolor": 30,
        },
        "weapons": [SWORD],
    }
    base.update(kw)
    return base


def situation(actor: dict[str, Any], *others: dict[str, Any], pv: dict[str, int] | None = None):
    """A battle where ``actor`` (initiative 2d10 = 20) has the first, fresh turn; ``pv``
    sets current PV afterwards (0 = down)."""
    data = {
        "ruleset": "sistema_2d10",
        "battlefield": {"zones": ZONES, "links": LINKS},
        "combatants": [actor, *others],
    }
    sc = parse_scenario(data, "t.yaml")
    dice = ["d10=10", "d10=10"] + ["d10=1"] * (2 * len(others))
    roller = ScriptedRoller(dice)
    state = new_battle(sc, roller)
    roller.assert_exhausted()
    for cid, value in (pv or {}).items():
        who = state.get(cid)
        who.resources["pv"] = value
        if value == 0:
            state.ruleset.set_status(who, Status.DOWN, f"{cid} is down")
    assert state.pending is not None and state.pending.actor == actor["id"]
    return state


def pick(state, temperament: str) -> Action:
    return HeuristicAgent(temperament).act(state, random.Random(0))


# -- brute --------------------------------------------------------------------------


def test_brute_hits_the_nearest_foe_where_the_tactician_finishes_the_far_one():
    state = situation(
        c("h", "heroes", "b", weapons=[RIFLE]),
        c("near", "enemies", "b"),
        c("far", "enemies", "d"),
        pv={"far": 2},  # any hit drops it
    )
    brute = pick(state, "brute")
    assert (brute.verb, brute.target, brute.item) == ("atacar", "near", "fusil")
    assert pick(state, "tactician").target == "far"


def test_brute_closes_in_where_the_coward_holds_back():
    state = situation(c("h", "heroes", "a"), c("e", "enemies", "c"))
    assert pick(state, "brute") == Action("mover", "h", zone="b")
    assert pick(state, "coward") == Action("defensa_completa", "h")  # never advances


def test_brute_never_defends_fully_even_badly_hurt():
    state = situation(c("h", "heroes", "b"), c("e", "enemies", "b"), pv={"h": 4})
    assert pick(state, "brute").verb == "atacar"
    assert pick(state, "cautious") == Action("defensa_completa", "h")


# -- tactician ----------------------------------------------------------------------


def test_tactician_focuses_the_wounded():
    state = situation(
        c("h", "heroes", "a"),
        c("fresh", "enemies", "a"),
        c("wounded", "enemies", "a"),
        pv={"wounded": 3},
    )
    assert pick(state, "tactician").target == "wounded"


def test_tactician_gives_a_spare_dado_expres_when_no_blow_can_hurt():
    # The only foe is in reach but its CA 20 stops any 1d10: no attack is worth an action.
    state = situation(
        c("h", "heroes", "a", dados_expres=2),
        c("ally", "heroes", "a"),
        c("e", "enemies", "a", ca=20),
    )
    assert pick(state, "tactician") == Action("ceder_dado", "h", target="ally")
    assert pick(state, "brute").verb == "atacar"


# -- cautious -----------------------------------------------------------------------


def test_cautious_steps_out_of_contact_to_keep_its_firearm_range():
    state = situation(c("h", "heroes", "b", weapons=[SWORD, RIFLE]), c("e", "enemies", "b"))
    # From a, e (in b) is 1 hop away: still in the fusil's reach, out of the sword's.
    assert pick(state, "cautious") == Action("mover", "h", zone="a")
    assert pick(state, "tactician").verb == "atacar"


def test_cautious_shoots_at_distance_rather_than_brawl_when_it_cannot_step_out():
    state = situation(
        c("h", "heroes", "a", weapons=[SWORD, RIFLE]),
        c("adjacent", "enemies", "a"),
        c("across", "enemies", "b"),
    )
    cautious = pick(state, "cautious")
    assert (cautious.verb, cautious.target, cautious.item) == ("atacar", "across", "fusil")
    assert pick(state, "brute").target == "adjacent"


def test_cautious_approaches_only_to_its_best_range():
    state = situation(c("h", "heroes", "a", weapons=[RIFLE]), c("e", "enemies", "c"))
    # c is 2 hops away: in the fusil's reach already, so it shoots instead of closing in.
    assert pick(state, "cautious").verb == "atacar"
    assert pick(state, "brute").target == "e"
    far = situation(c("h", "heroes", "a", weapons=[RIFLE]), c("e", "enemies", "d"))
    assert pick(far, "cautious") == Action("mover", "h", zone="b")


def test_cautious_withdraws_when_hurt():
    state = situation(c("h", "heroes", "b"), c("e", "enemies", "c"), pv={"h": 8})
    assert pick(state, "cautious") == Action("mover", "h", zone="a")
    assert pick(state, "tactician") == Action("mover", "h", zone="c")


def test_cautious_goes_into_full_defence_when_hurt_and_nowhere_safer():
    # Foes on both sides: no step takes it further from the nearest foe.
    state = situation(
        c("h", "heroes", "b"), c("left", "enemies", "a"), c("right", "enemies", "c"), pv={"h": 8}
    )
    assert pick(state, "cautious") == Action("defensa_completa", "h")


# -- coward -------------------------------------------------------------------------


def test_coward_flees_below_half_pv():
    state = situation(c("h", "enemies", "c"), c("p", "heroes", "b"), pv={"h": 9})
    assert pick(state, "coward") == Action("mover", "h", zone="d")
    assert pick(state, "brute") == Action("mover", "h", zone="b")


def test_coward_runs_for_the_exit_when_its_side_breaks():
    state = situation(
        c("h", "enemies", "d"),
        c("dead", "enemies", "a"),
        c("p", "heroes", "c"),
        pv={"dead": 0},
    )
    assert pick(state, "coward") == Action("mover", "h", zone="e")
    assert pick(state, "tactician") == Action("mover", "h", zone="c")


def test_coward_never_steps_towards_the_enemy_even_to_reach_the_exit():
    # The exit e lies beyond the hero in d: fleeing means going the other way.
    state = situation(c("h", "enemies", "c"), c("p", "heroes", "d"), pv={"h": 5})
    assert pick(state, "coward") == Action("mover", "h", zone="b")


def test_coward_fights_when_cornered():
    state = situation(c("h", "enemies", "e"), c("p", "heroes", "e"), pv={"h": 5})
    # At the exit already, any step is further from it: it stands and fights.
    assert pick(state, "coward") == Action("atacar", "h", target="p", item="espada", option="libre")


# -- protector ----------------------------------------------------------------------


def test_protector_gives_a_dado_expres_to_an_ally():
    state = situation(
        c("h", "heroes", "a", dados_expres=1), c("ally", "heroes", "a"), c("e", "enemies", "e")
    )
    assert pick(state, "protector") == Action("ceder_dado", "h", target="ally")
    assert pick(state, "tactician") == Action("mover", "h", zone="b")


def test_s205_protector_gives_no_dado_expres_to_an_ally_who_still_holds_one():
    # S2-05 "si alguno ha agotado los suyos": the ally holds one of its three, so the
    # protector, holding more, closes in instead.
    state = situation(
        c("h", "heroes", "a", dados_expres=3),
        c("ally", "heroes", "a", dados_expres=1),
        c("e", "enemies", "e"),
    )
    assert pick(state, "protector") == Action("mover", "h", zone="b")
    assert pick(state, "tactician") == Action("mover", "h", zone="b")


def test_protector_strikes_whoever_threatens_its_most_hurt_ally():
    state = situation(
        c("h", "heroes", "b", weapons=[RIFLE, SWORD]),
        c("ward", "heroes", "c"),
        c("near_me", "enemies", "b"),
        c("on_ward", "enemies", "c"),
        pv={"ward": 6, "near_me": 3},
    )
    assert pick(state, "protector").target == "on_ward"
    assert pick(state, "tactician").target == "near_me"


def test_protector_moves_to_the_threat_when_out_of_reach():
    state = situation(
        c("h", "heroes", "a"),
        c("ward", "heroes", "c"),
        c("on_ward", "enemies", "c"),
        pv={"ward": 6},
    )
    assert pick(state, "protector") == Action("mover", "h", zone="b")


# -- active defence -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("temperament", "expected"),
    [
        ("tactician", "no_defender"),
        ("brute", "no_defender"),
        ("cautious", "defender"),
        ("coward", "defender"),
        ("protector", "defender"),
    ],
)
def test_wary_temperaments_defend_against_a_light_blow(temperament: str, expected: str):
    """A 1d6 against CA 4 hurts only on 5–6 (⅓): the tactician keeps its defence, the
    wary ones spend it."""
    light = SWORD | {"damage": "1d6"}
    data = {
        "ruleset": "sistema_2d10",
        "battlefield": {"zones": ZONES, "links": LINKS},
        "combatants": [c("h", "heroes", "a", ca=4), c("e", "enemies", "a", weapons=[light])],
    }
    # Initiative: h 2, e 20; e attacks 6 + 6 + 6 = 18 ≥ defensa pasiva 16.
    roller = ScriptedRoller(["d10=1", "d10=1", "d10=10", "d10=10", "d10=6", "d10=6"])
    state = new_battle(parse_scenario(data, "t.yaml"), roller)
    apply_action(state, Action("atacar", "e", target="h", item="espada", option="libre"), roller)
    roller.assert_exhausted()
    assert state.pending.name == "active_defence"
    assert pick(state, temperament).verb == expected


# -- the scenario's temperament and the override ------------------------------------


def test_scenario_temperament_is_used_and_cli_overrides_it():
    state = situation(
        c("h", "heroes", "b", weapons=[RIFLE], temperament="brute"),
        c("near", "enemies", "b"),
        c("far", "enemies", "d"),
        pv={"far": 2},
    )
    assert HeuristicAgent().act(state, random.Random(0)).target == "near"
    assert make_agent("tactician").act(state, random.Random(0)).target == "far"
