"""One definition of a valid state: what the loader refuses of an edited state file.

Every state the engine reaches loads (the round-trip tests); these are the states no
battle can reach — a resource below 0, counters out of range, an order without a
combatant who can act, a pending decision for somebody out of the fight, an outcome
that does not match the round — each refused with its field and reason, in every
ruleset. The states come from real battles (the engine's random agents), so a test
could only pass by refusing the one spoiled field.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from escaramuza.agents import RandomAgent
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.model import Status
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file import StateFileError, state_from_dict, state_to_dict

#: One scenario of each ruleset, with a mid-battle state a few decisions in.
SCENARIOS = (
    "destiny_dice/emboscada",
    "donjon/duelo",
    "cairn/emboscada_goblin",
    "sistema_2d10/duelo",
)


def mid_battle(name: str, decisions: int = 3, seed: int = 3) -> BattleState:
    state = new_battle(load_scenario(name), RandomRoller(seed))
    rng, roller, agent = random.Random(seed), RandomRoller(seed + 1), RandomAgent()
    for _ in range(decisions):
        if state.outcome is not None:
            break
        apply_action(state, agent.act(state, rng), roller)
    assert state.outcome is None
    return state


def finished(name: str, seed: int = 3) -> BattleState:
    state = new_battle(load_scenario(name), RandomRoller(seed))
    rng, roller, agent = random.Random(seed), RandomRoller(seed + 1), RandomAgent()
    while state.outcome is None:
        apply_action(state, agent.act(state, rng), roller)
    return state


def refusal(doc: dict[str, Any]) -> StateFileError:
    with pytest.raises(StateFileError) as info:
        state_from_dict(doc, "edited.json")
    return info.value


def _acting(doc: dict[str, Any]) -> int:
    return next(i for i, c in enumerate(doc["combatants"]) if c["id"] == doc["pending"]["actor"])


@pytest.mark.parametrize("name", SCENARIOS)
def test_an_unedited_state_loads_in_every_ruleset(name: str) -> None:
    # The baseline of every spoiled document below: without the edit it loads.
    for state in (mid_battle(name), finished(name)):
        loaded, _ = state_from_dict(state_to_dict(state), "fine.json")
        assert state_to_dict(loaded) == state_to_dict(state)


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("value", [-1, -5, -(2**62), -9_000_000_000_000_000_000])
def test_a_negative_resource_is_refused(name: str, value: int) -> None:
    doc = state_to_dict(mid_battle(name))
    for i, c in enumerate(doc["combatants"]):
        for key in c["resources"]:
            spoiled = state_to_dict(mid_battle(name))
            spoiled["combatants"][i]["resources"][key] = value
            err = refusal(spoiled)
            assert err.field == f"combatants[{i}].resources.{key}"
            assert f"{value} is below 0" in err.reason


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_resource_above_its_maximum_is_refused(name: str) -> None:
    state = mid_battle(name)
    c = state.combatants[0]
    key = next(iter(c.resources))
    doc = state_to_dict(state)
    doc["combatants"][0]["resources"][key] = c.maxima[key] + 1
    err = refusal(doc)
    assert err.field == f"combatants[0].resources.{key}" and "above" in err.reason


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("turn", [-1, 10**18])
def test_a_turn_out_of_range_is_refused(name: str, turn: int) -> None:
    doc = state_to_dict(mid_battle(name))
    doc["turn"] = turn
    err = refusal(doc)
    assert err.field == "turn" and str(turn) in err.reason


@pytest.mark.parametrize("name", ["destiny_dice/emboscada", "sistema_2d10/duelo"])
def test_a_turn_outside_the_orders_positions_is_refused_in_the_current_language(
    name: str,
) -> None:
    """Both rulesets' (one shared) check was English under ``--lang es``."""
    from escaramuza.rules.core.i18n import language

    doc = state_to_dict(mid_battle(name))
    doc["turn"] = 99
    last = len(doc["order"]) - 1
    with language("es"):
        err = refusal(doc)
    assert (err.field, err.reason) == (
        "turn",
        f"99 está fuera de 0–{last} (las posiciones del orden)",
    )


ROUNDS = "(rounds count from 1 while the battle goes on, up to the scenario's round_limit)"


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize(
    "spoil",
    [lambda limit: 0, lambda limit: -1, lambda limit: limit + 1],
    ids=["zero", "negative", "past the limit"],
)
def test_a_round_out_of_range_is_refused_with_the_one_range_while_the_battle_goes_on(
    name: str, spoil: Callable[[int], int]
) -> None:
    # Below 1 or above the limit, one message and the range that holds (0 was "not over",
    # -1 "outside 0–limit": the range of a battle that is over).
    state = mid_battle(name)
    limit = state.scenario.round_limit
    doc = state_to_dict(state)
    doc["round"] = spoil(limit)
    err = refusal(doc)
    assert (err.field, err.reason) == ("round", f"{doc['round']} is outside 1–{limit} {ROUNDS}")


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_round_out_of_range_is_refused_once_the_battle_is_over(name: str) -> None:
    state = finished(name)
    limit = state.scenario.round_limit
    doc = state_to_dict(state)
    doc["round"] = doc["outcome"]["rounds"] = limit + 1
    err = refusal(doc)
    assert (err.field, err.reason) == ("round", f"{limit + 1} is outside 0–{limit} {ROUNDS}")


@pytest.mark.parametrize("name", ["destiny_dice/emboscada", "donjon/duelo", "sistema_2d10/duelo"])
@pytest.mark.parametrize("spoil", ["empty", "without the actor", "without the last"])
def test_an_order_missing_a_combatant_who_can_act_is_refused(name: str, spoil: str) -> None:
    doc = state_to_dict(mid_battle(name))
    actor = doc["pending"]["actor"]
    order = doc["order"]
    assert order, "these rulesets keep an initiative order"
    doc["order"] = {
        "empty": [],
        "without the actor": [c for c in order if c != actor],
        "without the last": order[:-1],
    }[spoil]
    err = refusal(doc)
    # The order itself, or the turn that points past its end, is what the message names.
    assert err.field in ("order", "turn")


@pytest.mark.parametrize(
    ("name", "reason", "razon"),
    [
        (
            "destiny_dice/emboscada",
            "the order holds every combatant that can act or be healed",
            "el orden incluye a todo combatiente que puede actuar o ser curado",
        ),
        (
            "sistema_2d10/escuadra",
            "the order holds every combatant",
            "el orden incluye a todos los combatientes",
        ),
    ],
)
def test_an_order_that_lost_a_fallen_combatant_names_who_in_either_language(
    name: str, reason: str, razon: str
) -> None:
    # Destiny Dice and Sistema 2d10 roll initiative once and nobody leaves the order: a
    # combatant who is down may be healed back, so it belongs in it.
    states = (mid_battle(name, n) for n in range(1, 200))
    state = next(s for s in states if any(c.status is Status.DOWN for c in s.combatants))
    lost = next(c.id for c in state.combatants if c.status is Status.DOWN)
    doc = state_to_dict(state)
    actor = doc["order"][doc["turn"]]
    doc["order"] = [c for c in doc["order"] if c != lost]
    doc["turn"] = doc["order"].index(actor)
    err = refusal(doc)
    assert (err.field, err.reason) == ("order", f"{lost} missing: {reason}")
    from escaramuza.rules.core.i18n import language

    with language("es"):
        err = refusal(doc)
    assert (err.field, err.reason) == ("order", f"fuera del orden: {lost} ({razon})")


def test_dd16_a_destiny_dice_order_need_not_hold_a_defeated_enemy() -> None:
    # DD-01/DD-16: who is in the fight rolls initiative; an enemy defeated from the start
    # does not, and is out for good: a state whose order leaves one out loads.
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(1))
    foe = next(c for c in state.combatants if c.side.value == "enemies")
    foe.status, foe.resources["pv"] = Status.DEFEATED, 0
    doc = state_to_dict(state)
    actor = doc["order"][doc["turn"]]
    doc["order"] = [c for c in doc["order"] if c != foe.id]
    doc["turn"] = doc["order"].index(actor)
    loaded, _ = state_from_dict(doc)
    assert foe.id not in loaded.order and loaded.get(foe.id).status is Status.DEFEATED


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("status", ["down", "defeated", "fled"])
def test_a_pending_decision_for_a_combatant_out_of_the_fight_is_refused(
    name: str, status: str
) -> None:
    from escaramuza.rules.core.model import Status

    if status not in {s.value for s in Status}:
        pytest.skip(f"no status {status!r}")
    doc = state_to_dict(mid_battle(name))
    i = _acting(doc)
    doc["combatants"][i]["status"] = status
    err = refusal(doc)
    assert err.field in ("pending.actor", "data.turn_actor", "data.queue[0]")
    assert status in err.reason


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize(
    "spoil",
    [lambda o, r: -1, lambda o, r: r + 1, lambda o, r: 10**18],
    ids=["negative", "another round", "huge"],
)
def test_an_outcome_that_does_not_match_the_battle_is_refused(
    name: str, spoil: Callable[[dict[str, Any], int], int]
) -> None:
    doc = state_to_dict(finished(name))
    assert doc["outcome"] is not None
    doc["outcome"]["rounds"] = spoil(doc["outcome"], doc["round"])
    err = refusal(doc)
    assert err.field == "outcome.rounds"


def test_validate_lists_every_value_out_of_range_with_its_field(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from escaramuza.cli import main

    doc = state_to_dict(mid_battle("destiny_dice/emboscada"))
    doc["combatants"][0]["resources"]["pv"] = -5
    doc["combatants"][2]["resources"]["pc"] = -(2**62)
    doc["turn"] = 10**18
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["validate", str(path)]) != 0
    out = capsys.readouterr()
    text = out.out + out.err
    assert "combatants[0].resources.pv" in text and "-5 is below 0" in text
    assert "combatants[2].resources.pc" in text and f"{-(2**62)} is below 0" in text
    assert "turn" in text and f"{10**18} is outside" in text
    assert "Traceback" not in text
    # The one-line message of the other commands names the first and counts the rest.
    assert main(["suggest", str(path)]) == 2
    err = capsys.readouterr().err
    assert "combatants[0].resources.pv" in err and "2 more problem(s)" in err


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("side", ["neutral", 1, None])
def test_a_combatant_on_no_known_side_is_refused(name: str, side: object) -> None:
    doc = state_to_dict(mid_battle(name))
    doc["combatants"][0]["side"] = side
    err = refusal(doc)
    assert (err.field, err.reason) == (
        "combatants[0].side",
        f"unknown side {side!r} (known: heroes, enemies)",
    )


def test_a_combatant_moved_to_the_other_side_is_refused() -> None:
    doc = state_to_dict(mid_battle("destiny_dice/emboscada"))
    first = doc["combatants"][0]
    assert first["side"] == "heroes"
    first["side"] = "enemies"
    err = refusal(doc)
    assert (err.field, err.reason) == (
        "combatants[0].side",
        f"'enemies' but {first['id']} is on the heroes",
    )


META = {"seed": 7, "steps": 3, "roll": "auto"}
OUT_OF_RANGE = "expected an integer from 0 to {}, got {!r}"
#: The largest seed (2**63 - 1) and the largest step count a state file may hold.
TOPS = {"seed": 9223372036854775807, "steps": 10**12}


@pytest.mark.parametrize("key", ["seed", "steps"])
@pytest.mark.parametrize("value", [-1, 2**63, "x", True, 1.5, None])
def test_a_seed_or_step_count_the_tool_would_refuse_is_refused(key: str, value: object) -> None:
    doc = state_to_dict(mid_battle("destiny_dice/emboscada"), dict(META, **{key: value}))
    err = refusal(doc)
    assert (err.field, err.reason) == (f"meta.{key}", OUT_OF_RANGE.format(TOPS[key], value))


def test_a_step_count_near_the_largest_seed_is_refused() -> None:
    # The session saves steps + 1 after its next decision: at 2**63 - 1 that save would
    # be a file this loader refuses, so the bound sits far below it.
    doc = state_to_dict(mid_battle("destiny_dice/emboscada"), dict(META, steps=2**63 - 1))
    err = refusal(doc)
    assert (err.field, err.reason) == ("meta.steps", OUT_OF_RANGE.format(10**12, 2**63 - 1))
    doc = state_to_dict(mid_battle("destiny_dice/emboscada"), dict(META, steps=10**12))
    _state, meta = state_from_dict(doc, "fine.json")
    assert meta["steps"] == 10**12


def test_an_unknown_roll_mode_is_refused() -> None:
    doc = state_to_dict(mid_battle("destiny_dice/emboscada"), dict(META, roll="psychic"))
    err = refusal(doc)
    assert (err.field, err.reason) == (
        "meta.roll",
        "unknown roll mode 'psychic' (known: auto, manual)",
    )


@pytest.mark.parametrize("seed", [0, 2**63 - 1])
def test_every_seed_the_tool_accepts_loads(seed: int) -> None:
    doc = state_to_dict(mid_battle("destiny_dice/emboscada"), dict(META, seed=seed, roll="manual"))
    _state, meta = state_from_dict(doc, "fine.json")
    assert meta == dict(META, seed=seed, roll="manual")


@pytest.mark.parametrize(
    ("edit", "field", "key"),
    [
        (lambda t: t.replace('"round":', '"round": 1, "round":', 1), "round", "round"),
        (lambda t: t.replace('"zone":', '"zone": "x", "zone":', 1), "combatants[0].zone", "zone"),
        (lambda t: t.replace('"seed":', '"seed": 1, "seed":', 1), "meta.seed", "seed"),
    ],
)
def test_a_json_state_file_with_a_duplicate_key_is_refused(
    tmp_path: Any, edit: Callable[[str], str], field: str, key: str
) -> None:
    import json

    from escaramuza.state_file import load_state

    doc = state_to_dict(mid_battle("destiny_dice/emboscada"), META)
    path = tmp_path / "edited.json"
    path.write_text(edit(json.dumps(doc)), encoding="utf-8")
    with pytest.raises(StateFileError) as info:
        load_state(path)
    assert str(info.value) == (
        f"{path}: {field}: duplicate key {key!r} (it appears earlier in the object)"
    )


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("sangrado", -3, "sangrado -3 is outside 1–99"),  # a bleed that heals
        ("sangrado", 0, "sangrado 0 is outside 1–99"),
        ("derribado", 0, "derribado 0 is outside 1–99"),
        ("aturdido", 5, "aturdido 5 is outside -10–0"),  # a stun that helps
        ("aturdido_16", -11, "aturdido_16 -11 is outside -10–0"),
        ("incapacitado_brazo_derecho", 2, "incapacitado_brazo_derecho 2 is outside -10–0"),
    ],
)
def test_s215_a_gdf_state_with_a_value_no_battle_deals_is_refused(
    name: str, value: int, reason: str
) -> None:
    """A stun's or a limb's MS "del -1 al -10" (0 where the table deals it), a bleed's PV and
    a fall's actions from 1: a state file holding another is refused by field."""
    doc = state_to_dict(mid_battle("sistema_2d10/duelo"))
    doc["combatants"][1]["conditions"] = [{"name": name, "value": value}]
    err = refusal(doc)
    assert err.field == "combatants[1].conditions[0].value"
    assert reason in err.reason
    # The same state at the range's edge loads.
    doc["combatants"][1]["conditions"][0]["value"] = -10 if value > 0 or "_16" in name else 1
    state_from_dict(doc, "edge.json")


@pytest.mark.parametrize(
    ("place", "text", "field", "shown"),
    [
        (
            "until",
            "\u001b]0;PWNED\u0007\u001b[2J",
            "combatants[0].conditions[0].until",
            "'\\x1b' (U+001B)",
        ),
        ("dice", "\u001b[31m", "combatants[0].conditions[0].dice", "'\\x1b' (U+001B)"),
        ("key", "\u009b31m", "combatants[0].conditions[0].\\x9b31m", "'\\x9b' (U+009B)"),
    ],
)
def test_a_state_file_text_holding_a_control_character_is_refused(
    tmp_path: Any, place: str, text: str, field: str, shown: str
) -> None:
    """A condition's tags are printed by gm's table ('aturdido -2 [until]'): written as a
    JSON escape, a control character would act on the GM's terminal (clear it, retitle its
    window), so the loader refuses it as the YAML reader does, the field named and the
    character escaped in the message."""
    import json

    from escaramuza.state_file import load_state

    doc = state_to_dict(mid_battle("sistema_2d10/duelo"))
    condition: dict[str, Any] = {"name": "aturdido", "value": -2}
    if place == "key":
        condition[text] = 1
    else:
        condition[place] = text
    doc["combatants"][0]["conditions"] = [condition]
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(StateFileError) as info:
        load_state(path)
    message = str(info.value)
    assert message == (
        f"{path}: {field}: control character {shown} in a value: a name or text may not hold "
        "one, escaped or not (a terminal showing it would act on it)"
    )
    assert not any(0x00 <= ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in message)
