"""State files: every ruleset's mid-battle state round-trips; bad files are rejected clearly."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from escaramuza.agents import HeuristicAgent, RandomAgent
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file import (
    StateFileError,
    decode_value,
    encode_value,
    load_state,
    save_state,
    state_to_dict,
)


def mid_battle(name: str, seed: int = 7, decisions: int = 10) -> BattleState:
    state = new_battle(load_scenario(name), RandomRoller(seed))
    rng, agent = random.Random(seed), RandomAgent()
    roller = RandomRoller(seed + 1)
    for _ in range(decisions):
        if state.outcome is not None:
            break
        apply_action(state, agent.act(state, rng), roller)
    return state


def finish(state: BattleState, seed: int) -> tuple[object, list[str]]:
    rng, roller, agent = random.Random(seed), RandomRoller(seed), HeuristicAgent()
    start = len(state.log)
    while state.outcome is None:
        apply_action(state, agent.act(state, rng), roller)
    return state.outcome, [e.text for e in state.log[start:]]


@pytest.mark.parametrize("name", sorted(shipped_scenarios()))
def test_mid_battle_state_round_trips_in_every_scenario(name: str, tmp_path: Path) -> None:
    state = mid_battle(name)
    path = tmp_path / "state.json"
    save_state(state, path)
    loaded, meta = load_state(path)
    assert meta == {}
    assert loaded.ruleset.legal_actions(loaded) == state.ruleset.legal_actions(state)
    assert (loaded.round, loaded.turn, loaded.order, loaded.pending, loaded.outcome) == (
        state.round,
        state.turn,
        state.order,
        state.pending,
        state.outcome,
    )
    assert loaded.data == state.data
    for a, b in zip(state.combatants, loaded.combatants, strict=True):
        assert (a.id, a.zone, a.status, a.resources, a.conditions, a.data) == (
            b.id,
            b.zone,
            b.status,
            b.resources,
            b.conditions,
            b.data,
        )
    # Continued with the same dice and agents, both reach the same end, event for event.
    assert finish(state, 99) == finish(loaded, 99)
    # Saving the loaded state writes the same document.
    assert state_to_dict(loaded) == state_to_dict(state)


@pytest.mark.parametrize(
    "value",
    [None, True, 3, 2.5, "x", (), (1, (2, "a")), frozenset({"a", "b"})],
)
def test_bookkeeping_values_round_trip(value: object) -> None:
    raw = json.loads(json.dumps(encode_value(value)))
    assert decode_value(raw, "data.k", "<test>") == value


def test_dataclasses_and_enums_round_trip_with_a_type_tag() -> None:
    from escaramuza.rules.core.model import Action, Side

    value = (Action("atacar", "a", target="b", item="daga"), Side.HEROES)
    raw = json.loads(json.dumps(encode_value(value)))
    assert raw[0]["$type"] == "escaramuza.rules.core.model:Action"
    assert decode_value(raw, "data.k", "<test>") == value


def test_state_file_is_written_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = mid_battle("destiny_dice/emboscada")
    path = tmp_path / "battle.json"
    save_state(state, path)
    before = path.read_text(encoding="utf-8")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    later = mid_battle("destiny_dice/emboscada", decisions=20)
    with pytest.raises(StateFileError, match="cannot be written"):
        save_state(later, path)
    assert path.read_text(encoding="utf-8") == before  # the old file is intact
    assert [p.name for p in tmp_path.iterdir()] == ["battle.json"]  # no temp file left


def _doc() -> dict:
    return state_to_dict(mid_battle("destiny_dice/emboscada"))


def _set(doc: dict, path: str, value: object) -> dict:
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    target = doc
    for k in keys[:-1]:
        target = target[k]
    target[keys[-1]] = value
    return doc


def _drop(doc: dict, path: str) -> dict:
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    target = doc
    for k in keys[:-1]:
        target = target[k]
    del target[keys[-1]]
    return doc


# Each row: how to spoil a good document → the field and the reason the error names.
BAD_DOCS = [
    (lambda d: _set(d, "version", 2), "version", "unsupported version 2"),
    (lambda d: _set(d, "version", "1"), "version", "expected an integer"),
    (lambda d: _set(d, "format", "something"), "format", "expected 'escaramuza-state'"),
    (lambda d: _set(d, "scenario", "nowhere/nothing"), "scenario", "cannot load scenario"),
    (lambda d: _set(d, "ruleset", "donjon"), "ruleset", "but the scenario is 'destiny_dice'"),
    (lambda d: _set(d, "round", "two"), "round", "expected an integer"),
    (lambda d: _set(d, "round", 99), "round", "99 is outside 1–20"),
    (
        lambda d: _set(d, "combatants.0.id", "ghost"),
        "combatants[0].id",
        "unknown combatant 'ghost'",
    ),
    (lambda d: _set(d, "combatants.1.zone", "moon"), "combatants[1].zone", "unknown zone 'moon'"),
    (
        lambda d: _set(d, "combatants.0.resources.pv", 99),
        "combatants[0].resources.pv",
        "above brann's maximum of 18",
    ),
    (
        lambda d: _set(d, "combatants.0.resources.pv", "5"),
        "combatants[0].resources.pv",
        "expected an integer",
    ),
    (
        lambda d: _set(d, "combatants.0.resources.mana", 1),
        "combatants[0].resources.mana",
        "unknown resource",
    ),
    (
        lambda d: _set(d, "combatants.0.status", "asleep"),
        "combatants[0].status",
        "unknown status 'asleep'",
    ),
    (
        lambda d: _set(d, "combatants.0.conditions", [{"name": "ciego", "value": "x"}]),
        "combatants[0].conditions[0].value",
        "expected an integer",
    ),
    (lambda d: _drop(d, "combatants.3"), "combatants", "missing: rex"),
    (lambda d: _set(d, "order.0", "ghost"), "order[0]", "unknown combatant"),
    (lambda d: _set(d, "pending.actor", "ghost"), "pending.actor", "unknown combatant"),
    (lambda d: _set(d, "pending.name", "dance"), "pending.name", "unknown decision 'dance'"),
    (lambda d: _set(d, "pending", None), "pending", "required while the battle is not over"),
    (
        lambda d: _set(d, "data.turn_actor", {"$type": "os:system", "fields": {}}),
        "data.turn_actor",
        "unknown type 'os:system'",
    ),
    # A project module that is not a registered bookkeeping type is not
    # imported either (the web server once re-ran the CLI from escaramuza.__main__).
    (
        lambda d: _set(d, "data.turn_actor", {"$type": "escaramuza.__main__:main", "fields": {}}),
        "data.turn_actor",
        "unknown type 'escaramuza.__main__:main'",
    ),
    (
        lambda d: _set(d, "data.turn_actor", {"$enum": "escaramuza.training.train:X", "value": 1}),
        "data.turn_actor",
        "unknown type 'escaramuza.training.train:X'",
    ),
    (lambda d: _set(d, "data.moved", {"what": 1}), "data.moved", "unsupported JSON object"),
    (lambda d: _drop(d, "data.moved"), "data.moved", "required field is missing"),
    (lambda d: [], "", "must be a JSON object"),
]


@pytest.mark.parametrize(("spoil", "field", "reason"), BAD_DOCS)
def test_bad_state_files_name_file_field_and_reason(
    spoil, field: str, reason: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(spoil(_doc())), encoding="utf-8")
    with pytest.raises(StateFileError) as info:
        load_state(path)
    err = info.value
    assert err.source == str(path)
    assert err.field == field
    assert reason in err.reason
    assert str(path) in str(err)


@pytest.mark.parametrize(
    ("text", "field", "reason"),
    [
        # 31 characters, then the end of input: JSON expects a key at column 32.
        ('{"format": "escaramuza-state", ', "line 1, column 32", "not valid JSON"),
        ("", "line 1, column 1", "not valid JSON"),
    ],
)
def test_corrupt_json_is_reported_with_its_position(
    text: str, field: str, reason: str, tmp_path: Path
) -> None:
    path = tmp_path / "corrupt.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StateFileError) as info:
        load_state(path)
    assert (info.value.field, reason in info.value.reason) == (field, True)


def test_missing_state_file(tmp_path: Path) -> None:
    with pytest.raises(StateFileError, match="no such file"):
        load_state(tmp_path / "nothing.json")


def test_scenario_path_is_found_next_to_the_state_file(tmp_path: Path) -> None:
    source = Path(load_scenario("destiny_dice/brann-vs-saqueador").source)
    local = tmp_path / "duel.yaml"
    local.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    from escaramuza.rules.core.scenario import load_scenario_file

    state = new_battle(load_scenario_file(local), RandomRoller(1))
    path = tmp_path / "s.json"
    save_state(state, path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["scenario"] == str(local.resolve())
    doc["scenario"] = "duel.yaml"  # relative to the state file's folder
    path.write_text(json.dumps(doc), encoding="utf-8")
    loaded, _ = load_state(path)
    assert loaded.ruleset.legal_actions(loaded) == state.ruleset.legal_actions(state)


def test_s215_limb_and_stun_variants_load_from_a_state_file(tmp_path: Path) -> None:
    """S2-15's conditions named after the limb or the kind of stun (the ruleset's
    ``condition_aliases``) are conditions a loaded state may carry."""
    from escaramuza.rules.core.model import Condition
    from escaramuza.rules.sistema_2d10.ruleset import Sistema2d10

    state = mid_battle("sistema_2d10/duelo", decisions=2)
    assert Sistema2d10.condition_aliases  # otherwise this test checks nothing
    victim = state.combatants[0]
    for name in Sistema2d10.condition_aliases:
        victim.conditions[name] = Condition(name, -2, persistent=True, until="hasta_sanar")
    path = tmp_path / "state.json"
    save_state(state, path)
    loaded, _ = load_state(path)
    assert set(loaded.combatants[0].conditions) >= set(Sistema2d10.condition_aliases)


def test_dd19_an_asustado_of_two_foes_round_trips_and_an_unknown_one_is_refused(
    tmp_path: Path,
) -> None:
    """DD-19: a second fright adds its source to an Asustado (it is "Persistente"); a
    state holding one of two foes loads back with both, and a source no combatant has is
    refused by name."""
    from escaramuza.rules.core.model import Condition, Side

    state = mid_battle("destiny_dice/emboscada", decisions=2)
    hero = next(c for c in state.combatants if c.side is Side.HEROES)
    foes = [c.id for c in state.combatants if c.side is Side.ENEMIES][:2]
    hero.conditions["asustado"] = Condition("asustado", source=",".join(foes), persistent=True)
    path = tmp_path / "state.json"
    save_state(state, path)
    loaded, _ = load_state(path)
    assert loaded.by_id[hero.id].conditions["asustado"].sources() == tuple(foes)
    hero.conditions["asustado"] = Condition("asustado", source=f"{foes[0]},nadie", persistent=True)
    save_state(state, path)
    with pytest.raises(StateFileError) as info:
        load_state(path)
    assert info.value.field == f"combatants[{hero.index}].conditions[0].source"
    assert "nadie" in info.value.reason
