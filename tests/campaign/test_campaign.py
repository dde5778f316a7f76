"""``escaramuza campaign``: rests by rule id, exact carrying between fights, bad day files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escaramuza.campaign import DayRef, _fighters, _seed, play_day
from escaramuza.cli import main
from escaramuza.day import load_day_file
from escaramuza.rules.core.dice import RandomRoller, ScriptedRoller
from escaramuza.rules.core.model import Condition, Side, Status
from escaramuza.rules.core.rest import rest

DD_DAY = "scenarios/destiny_dice/jornada.day.yaml"


def _party(path: str) -> dict:
    day = load_day_file(path)
    heroes = {
        c.id: c.clone() for c in day.encounters[0].scenario.combatants if c.side is Side.HEROES
    }
    return day, heroes


def test_dd17_short_rest_between_encounters_heals_1d4_and_one_of_each_energy() -> None:
    day, party = _party(DD_DAY)
    nara = party["nara"]
    nara.resources.update(pv=3, pa=0)
    brann = party["brann"]
    brann.resources["pv"] = 17  # 1 below its 18: the d4 is capped at the maximum
    others = [party[h] for h in day.heroes]
    # one d4 per living hero, in day order: brann 4, ilse 1, nara 3, rex 2
    rest("destiny_dice", "short", others, ScriptedRoller(["d4=4", "d4=1", "d4=3", "d4=2"]))
    assert brann.resources["pv"] == 18
    assert nara.resources["pv"] == 6
    assert nara.resources["pa"] == 1
    # energia_max caps EC/EM at the sheet's maximum
    assert all(
        party[h].resources[k] <= party[h].maxima[k] for h in day.heroes for k in ("pc", "pm", "pa")
    )


def test_dd17_rest_skips_the_dead_and_dd19_temporal_states_end_with_the_fight() -> None:
    day, party = _party(DD_DAY)
    party["rex"].status = Status.DEAD
    party["ilse"].conditions = {
        "derribado": Condition("derribado"),
        "envenenado": Condition("envenenado", persistent=True, dice="1"),
    }
    rest(
        "destiny_dice",
        "short",
        [party[h] for h in day.heroes],
        ScriptedRoller(["d4=1", "d4=1", "d4=1"]),
    )  # three living heroes, three dice
    fighters = _fighters(day, 1, party)
    ids = [c.id for c in fighters]
    assert "rex" not in ids  # the dead do not walk into the next fight
    ilse = next(c for c in fighters if c.id == "ilse")
    assert set(ilse.conditions) == {"envenenado"}
    assert [c.index for c in fighters] == list(range(len(fighters)))


def test_resources_carry_exactly_into_the_next_encounter() -> None:
    day, party = _party(DD_DAY)
    nara = party["nara"]
    nara.resources.update(pv=5, pc=1, pm=0, pa=2)
    key = next(k for k in nara.data if k.startswith("uses:"))
    nara.data[key] = 1  # one potion drunk
    fighters = _fighters(day, 2, party)
    carried = next(c for c in fighters if c.id == "nara")
    assert carried.resources == {"pv": 5, "pc": 1, "pm": 0, "pa": 2}
    assert carried.data[key] == 1
    # placed where the third encounter puts its third hero
    scenario_nara = next(c for c in day.encounters[2].scenario.combatants if c.id == "nara")
    assert carried.zone == scenario_nara.zone


def test_a_played_day_enters_each_fight_as_the_last_fight_and_rest_left_it() -> None:
    # Recompute day 0's first fight and rest with the public pieces, independently.
    import dataclasses

    from escaramuza.agents import make_agent
    from escaramuza.agents.runner import play_battle

    day, _ = _party(DD_DAY)
    record = play_day(day, "heuristic", "heuristic", 5, 0)
    scenario = day.encounters[0].scenario
    agents = {s: make_agent("heuristic") for s in Side}
    state = play_battle(dataclasses.replace(scenario), agents, seed=_seed(5, 0, 0), narrate=False)
    assert state.outcome.winner is Side.HEROES
    heroes = [c for c in state.combatants if c.side is Side.HEROES]
    rest("destiny_dice", "short", heroes, RandomRoller(_seed(5, 0, 0, 1)))
    entering = record.entering[1]
    for h, c in zip(entering, heroes, strict=True):
        assert h.resources == tuple(c.resources[k] for k in ("pv", "pc", "pm", "pa"))
        assert h.status == c.status.value


def test_dj20_scene_healing_between_encounters_heals_the_lowest_attribute_first() -> None:
    day, party = _party("scenarios/donjon/jornada.day.yaml")
    pc = party[day.heroes[0]]
    pc.resources["virilidad"] = pc.maxima["virilidad"] - 2
    pc.resources["celeridad"] = pc.maxima["celeridad"] - 1
    pc.resources["heridas"] = pc.maxima["heridas"] - 1
    before = dict(pc.resources)
    rest("donjon", "scene", [pc], RandomRoller(0))
    low = min(("virilidad", "celeridad"), key=lambda k: (before[k], k != "celeridad"))
    changed = {k for k in before if pc.resources[k] != before[k]}
    assert changed == {low}
    assert pc.resources[low] == before[low] + 1
    assert pc.resources["heridas"] == before["heridas"]  # Heridas wait for the attributes


def test_ca20_rest_restores_pi_while_lost_attributes_and_scars_persist() -> None:
    day, party = _party("scenarios/cairn/jornada.day.yaml")
    bryn, ilse = party["bryn"], party["ilse"]
    bryn.resources.update(pi=0, fue=9)
    bryn.conditions["desjarretado"] = Condition("desjarretado", persistent=True)
    bryn.data["scars"] = (7,)
    ilse.resources["pi"] = 1
    ilse.conditions["privado"] = Condition("privado", persistent=True)
    rest("cairn", "rest", [party[h] for h in day.heroes], RandomRoller(0))
    assert bryn.resources["pi"] == bryn.maxima["pi"]
    assert bryn.resources["fue"] == 9
    assert ilse.resources["pi"] == 1  # privado: no PI back
    fighters = _fighters(day, 1, party)
    carried = next(c for c in fighters if c.id == "bryn")
    assert "desjarretado" in carried.conditions and carried.data["scars"] == (7,)


def test_ca12_dano_critico_untreated_dies_and_tended_is_stabilised() -> None:
    day, party = _party("scenarios/cairn/jornada.day.yaml")
    for c in party.values():
        c.status = Status.DOWN
    party["mara"].conditions["dano_critico"] = Condition("dano_critico", persistent=True)
    rest("cairn", "rest", list(party.values()), RandomRoller(0))
    assert party["mara"].status is Status.DEAD  # nobody standing to bandage her
    day, party = _party("scenarios/cairn/jornada.day.yaml")
    party["mara"].status = Status.DOWN
    party["mara"].conditions["dano_critico"] = Condition("dano_critico", persistent=True)
    rest("cairn", "rest", list(party.values()), RandomRoller(0))
    assert party["mara"].status is Status.DOWN
    assert "mara" not in [c.id for c in _fighters(day, 1, party)]


def test_s2_none_is_the_default_and_full_heals_the_gdf_effects() -> None:
    day, party = _party("scenarios/sistema_2d10/jornada.day.yaml")
    assert {e.rest for e in day.encounters} == {"none"}
    pc = party[day.heroes[0]]
    pc.resources["pv"] = 3
    pc.conditions["sangrado"] = Condition("sangrado", 1)
    rest("sistema_2d10", "none", [pc], RandomRoller(0))
    assert pc.resources["pv"] == 3 and "sangrado" in pc.conditions
    rest("sistema_2d10", "full", [pc], RandomRoller(0))
    assert pc.resources["pv"] == pc.maxima["pv"] and not pc.conditions


def test_campaign_json_is_the_same_for_one_and_two_workers(capsys) -> None:
    args = ["campaign", "destiny_dice/jornada", "-n", "40", "--json", "--no-progress"]
    assert main(args) == 0
    one = capsys.readouterr().out
    assert main([*args, "--workers", "2"]) == 0
    assert capsys.readouterr().out == one
    doc = json.loads(one)
    reached = [e["reached"]["count"] for e in doc["encounters"]]
    assert reached[0] == 40 and reached == sorted(reached, reverse=True)
    assert doc["finished"]["count"] == doc["encounters"][-1]["won"]["count"]


def test_shipped_days_are_not_listed_as_scenarios_and_each_ruleset_has_one(capsys) -> None:
    from escaramuza.rules.core.scenario import shipped_days, shipped_scenarios

    assert not any(name.endswith(".day") for name in shipped_scenarios())
    assert sorted(n.split("/")[0] for n in shipped_days()) == [
        "cairn",
        "destiny_dice",
        "donjon",
        "sistema_2d10",
    ]
    assert DayRef.resolve("destiny_dice/jornada").load().heroes == ("brann", "ilse", "nara", "rex")


GOOD = Path(DD_DAY).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "old, new, field, words",
    [
        ("ruleset: destiny_dice", "ruleset: ajedrez", "ruleset", "unknown ruleset 'ajedrez'"),
        ("encounters:", "rest: siesta\nencounters:", "rest", "unknown rest 'siesta'"),
        (
            "- scenario: destiny_dice/emboscada",
            "- scenario: destiny_dice/nada",
            "encounters[2].scenario",
            "no scenario file",
        ),
        (
            "- scenario: destiny_dice/emboscada",
            "- scenario: donjon/duelo",
            "encounters[2].scenario",
            "this day is destiny_dice",
        ),
        (
            "- scenario: destiny_dice/emboscada",
            "- scenario: destiny_dice/emboscada\n  zones: {brann: luna}",
            "encounters[2].zones.brann",
            "unknown zone 'luna'",
        ),
        ("  pv: 18\n", "  pv: dieciocho\n", "heroes[0].pv", "valid integer"),
        (
            "  temperament: brute\n",
            "  temperament: brute\n  zone: vado\n",
            "heroes[0].zone",
            "a day's hero has no zone",
        ),
        ("encounters:", "clima: lluvia\nencounters:", "clima", "unknown field"),
        # each encounter is a scenario read and checked at load: 101 are refused at once
        (
            "- scenario: destiny_dice/emboscada\n",
            "- scenario: destiny_dice/emboscada\n" * 99,
            "encounters",
            "List should have at most 100 items, not 101",
        ),
    ],
)
def test_bad_day_files_are_rejected_like_bad_scenarios(
    tmp_path, capsys, old, new, field, words
) -> None:
    assert old in GOOD
    bad = tmp_path / "mala.day.yaml"
    bad.write_text(GOOD.replace(old, new, 1), encoding="utf-8")
    assert main(["campaign", str(bad), "-n", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"escaramuza: error: {bad}: {field}") and words in err
    assert "Traceback" not in err
    assert main(["validate", str(bad)]) == 2
    out = capsys.readouterr().out
    assert f"{field}:" in out and words in out
