"""The ruleset protocol's shared mechanics and drivers, on a tiny toy ruleset.

The toy is not a game anyone plays: it exercises ``new_battle``, ``apply_action``,
``begin_round`` (round limit), ``check_end``, ``finish``, the runner and the
scenario loader without depending on any real ruleset.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

import escaramuza.rules as rules_pkg
from escaramuza.agents.base import RandomAgent
from escaramuza.agents.runner import play_battle
from escaramuza.rules.core.dice import RandomRoller, Roller, ScriptedRoller
from escaramuza.rules.core.errors import IllegalActionError, ScenarioError
from escaramuza.rules.core.events import (
    BattleEnded,
    Damaged,
    Event,
    Moved,
    Rolled,
    RoundStarted,
)
from escaramuza.rules.core.model import (
    Action,
    Combatant,
    Decision,
    DecisionKind,
    Side,
    Status,
    VerbSpec,
)
from escaramuza.rules.core.ruleset import Ruleset, apply_action, new_battle
from escaramuza.rules.core.scenario import Scenario, parse_scenario_text
from escaramuza.rules.core.state import BattleState


class ToyOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    hit_on: int = Field(4, ge=1, le=6)


class ToyStats(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pv: int = Field(ge=1, le=20)


class Toy(Ruleset):
    """Strike an enemy in your zone (d6 ≥ hit_on: −1 pv), move one zone, or wait."""

    id = "toy"
    name = "Toy"
    env_id = "escaramuza/Toy-v0"
    default_scenario = "toy/none"
    verbs = (VerbSpec("strike", target=True), VerbSpec("move", zone=True), VerbSpec("wait"))
    resources = {"pv": 10.0}
    conditions = ()
    band_names = ("same", "near", "far")
    options_model = ToyOptions
    stats_model = ToyStats

    def build_combatant(
        self, base: dict[str, Any], stats: BaseModel, options: BaseModel, index: int
    ) -> Combatant:
        assert isinstance(stats, ToyStats)
        if base["id"] == "forbidden":
            raise ValueError("pv: a forbidden combatant cannot fight")
        return Combatant(
            index=index, stats=stats, resources={"pv": stats.pv}, maxima={"pv": stats.pv}, **base
        )

    def validate_scenario(self, scenario: Any) -> None:
        if scenario.round_limit == 13:
            raise ValueError("round_limit: 13 is unlucky")

    def _next(self, state: BattleState, start: int) -> list[Event]:
        ids = [c.id for c in state.combatants]
        for i in range(start, len(ids)):
            if state.by_id[ids[i]].active:
                c = state.by_id[ids[i]]
                state.turn = i
                state.pending = Decision(DecisionKind.TURN, c.id, c.side)
                return []
        events = self.begin_round(state)
        if state.outcome is None:
            events += self._next(state, 0)
        return events

    def start(self, state: BattleState, roller: Roller) -> list[Event]:
        return self._next(state, len(state.combatants))

    def legal_actions(self, state: BattleState) -> list[Action]:
        assert state.pending is not None
        me = state.by_id[state.pending.actor]
        out = [
            Action("strike", me.id, target=c.id)
            for c in state.active(me.side.other)
            if c.zone == me.zone
        ]
        out += [Action("move", me.id, zone=z) for z in state.battlefield.neighbours(me.zone)]
        return [*out, Action("wait", me.id)]

    def apply(self, state: BattleState, action: Action, roller: Roller) -> list[Event]:
        me = state.by_id[action.actor]
        events: list[Event] = []
        if action.verb == "strike":
            assert action.target is not None
            target = state.by_id[action.target]
            face = roller.roll(6, f"{me.id} strikes")
            events.append(Rolled(f"{me.name} rolls d6: {face}", me.id, "strike", (face,), face))
            if face >= state.options.hit_on:
                target.resources["pv"] -= 1
                events.append(
                    Damaged(
                        f"{target.name} loses 1 pv",
                        target.id,
                        1,
                        "pv",
                        me.id,
                        target.resources["pv"],
                    )
                )
                if target.resources["pv"] <= 0:
                    events.append(self.set_status(target, Status.DEFEATED, "down", me.id))
        elif action.verb == "move":
            assert action.zone is not None
            events.append(Moved(f"{me.name} moves", me.id, me.zone, action.zone))
            me.zone = action.zone
        events += self.check_end(state)
        if state.outcome is None:
            events += self._next(state, state.turn + 1)
        return events


TOY = Toy()

TOY_YAML = """\
name: toy-duel
title: A toy duel
ruleset: toy
round_limit: {limit}
victory: {victory}
battlefield:
  zones:
    - {{id: left, cover: 1}}
    - {{id: mid}}
    - {{id: right, exit: true}}
  links:
    - [left, mid]
    - {{between: [mid, right], difficult: true}}
combatants:
  - {{id: hero, side: heroes, zone: left, pv: {pv}}}
  - {{id: foe, side: enemies, zone: right, pv: {pv}, temperament: brute}}
"""


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    real = rules_pkg.get_ruleset
    monkeypatch.setitem(rules_pkg.RULESETS, "toy", "tests:Toy")
    monkeypatch.setattr(rules_pkg, "get_ruleset", lambda rid: TOY if rid == "toy" else real(rid))
    yield


def toy_scenario(limit: int = 20, victory: str = "defeat_all", pv: int = 2) -> Scenario:
    return parse_scenario_text(TOY_YAML.format(limit=limit, victory=victory, pv=pv), "toy.yaml")


def test_loader_builds_generic_parts() -> None:
    sc = toy_scenario()
    assert sc.name == "toy-duel" and sc.title == "A toy duel" and sc.ruleset is TOY
    assert sc.options.hit_on == 4
    assert sc.battlefield.zone("left").cover == 1 and sc.battlefield.exits() == ("right",)
    assert sc.battlefield.graph.edges["mid", "right"]["difficult"] is True
    assert [(c.id, c.side, c.zone, c.temperament) for c in sc.combatants] == [
        ("hero", Side.HEROES, "left", "tactician"),
        ("foe", Side.ENEMIES, "right", "brute"),
    ]


@pytest.mark.parametrize(
    ("edit", "field", "reason"),
    [
        (("round_limit: 20", "round_limit: 13"), "round_limit", "13 is unlucky"),
        (("id: hero,", "id: forbidden,"), "combatants[0].pv", "forbidden combatant"),
        (
            ("ruleset: toy", "ruleset: toy\noptions: {hit_on: 9}"),
            "options.hit_on",
            "less than or equal to 6",
        ),
        (
            ("temperament: brute", "temperament: berserk"),
            "combatants[1].temperament",
            "unknown temperament 'berserk'",
        ),
        (("pv: 2}", "pv: 2"), "line", "YAML syntax error"),
    ],
)
def test_loader_reports_file_field_and_reason(
    edit: tuple[str, str], field: str, reason: str
) -> None:
    text = TOY_YAML.format(limit=20, victory="defeat_all", pv=2).replace(*edit, 1)
    with pytest.raises(ScenarioError) as info:
        parse_scenario_text(text, "toy.yaml")
    assert info.value.source == "toy.yaml"
    assert info.value.field.startswith(field)
    assert reason in info.value.reason
    assert str(info.value).startswith(f"toy.yaml: {field}")


def test_new_battle_sets_first_decision_and_copies_combatants() -> None:
    sc = toy_scenario()
    state = new_battle(sc, ScriptedRoller([]))
    assert state.round == 1 and state.pending is not None and state.pending.actor == "hero"
    assert isinstance(state.log[0], RoundStarted)
    state.get("hero").resources["pv"] = 0
    assert sc.combatants[0].resources["pv"] == 2  # the scenario is never mutated


def test_apply_action_rejects_illegal_actions_with_the_legal_list() -> None:
    state = new_battle(toy_scenario(), ScriptedRoller([]))
    with pytest.raises(IllegalActionError, match=r"pending decision is hero \(turn\).*hero: wait"):
        apply_action(state, Action("strike", "hero", target="foe"), ScriptedRoller([]))
    with pytest.raises(IllegalActionError):
        apply_action(state, Action("wait", "foe"), ScriptedRoller([]))
    assert state.pending is not None and state.pending.actor == "hero"  # nothing happened


def test_apply_action_after_the_end_is_illegal() -> None:
    state = new_battle(toy_scenario(limit=1), ScriptedRoller([]))
    apply_action(state, Action("wait", "hero"), ScriptedRoller([]))
    apply_action(state, Action("wait", "foe"), ScriptedRoller([]))
    assert state.outcome is not None
    with pytest.raises(IllegalActionError, match="the battle is over"):
        apply_action(state, Action("wait", "hero"), ScriptedRoller([]))


@pytest.mark.parametrize(("victory", "winner"), [("defeat_all", None), ("survive", Side.HEROES)])
def test_begin_round_ends_on_the_round_limit(victory: str, winner: Side | None) -> None:
    state = new_battle(toy_scenario(limit=2, victory=victory), ScriptedRoller([]))
    for _ in range(4):
        assert state.pending is not None
        apply_action(state, Action("wait", state.pending.actor), ScriptedRoller([]))
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason, state.outcome.rounds) == (
        winner,
        "timeout",
        2,
    )
    assert state.pending is None and state.round == 2
    assert isinstance(state.log[-1], BattleEnded) and state.log[-1].reason == "timeout"


def test_check_end_when_a_side_is_out() -> None:
    state = new_battle(toy_scenario(pv=1), ScriptedRoller([]))
    roller = ScriptedRoller(["d6=5"])
    apply_action(state, Action("move", "hero", zone="mid"), roller)
    apply_action(state, Action("move", "foe", zone="mid"), roller)
    events = apply_action(state, Action("strike", "hero", target="foe"), roller)
    roller.assert_exhausted()
    assert state.outcome is not None and state.outcome.winner is Side.HEROES
    assert state.outcome.reason == "defeated"
    assert [type(e).__name__ for e in events] == [
        "Rolled",
        "Damaged",
        "StatusChanged",
        "BattleEnded",
    ]
    assert events[-1].text == "Battle over after 2 round(s): the heroes win (defeated)."


def test_check_end_mutual() -> None:
    state = new_battle(toy_scenario(), ScriptedRoller([]))
    for c in state.combatants:
        c.status = Status.DOWN
    events = TOY.check_end(state)
    assert state.outcome is not None and state.outcome.winner is None
    assert state.outcome.reason == "mutual" and "nobody wins" in events[-1].text
    assert TOY.check_end(state) == []  # ending twice adds nothing


def test_band_mapping_caps_at_the_last_band() -> None:
    assert [TOY.band(h) for h in range(5)] == [0, 1, 2, 2, 2]


def test_play_battle_same_seed_same_log() -> None:
    sc = toy_scenario(pv=3)
    agents = {Side.HEROES: RandomAgent(), Side.ENEMIES: RandomAgent()}
    logs = [
        [e.to_json() for e in play_battle(sc, agents, seed=s, validate=True).log] for s in (7, 7, 8)
    ]
    assert logs[0] == logs[1]
    assert logs[0] != logs[2]


def test_play_battle_streams_every_event_once() -> None:
    sc = toy_scenario(pv=3)
    seen: list[Event] = []
    state = play_battle(
        sc, {Side.HEROES: RandomAgent(), Side.ENEMIES: RandomAgent()}, seed=3, on_events=seen.extend
    )
    assert seen == state.log
    assert state.outcome is not None and state.outcome.rounds <= sc.round_limit


def test_play_battle_uses_an_injected_roller() -> None:
    sc = toy_scenario(pv=1)
    a = play_battle(
        sc,
        {Side.HEROES: RandomAgent(), Side.ENEMIES: RandomAgent()},
        seed=1,
        roller=RandomRoller(99),
    )
    b = play_battle(
        sc,
        {Side.HEROES: RandomAgent(), Side.ENEMIES: RandomAgent()},
        seed=1,
        roller=RandomRoller(99),
    )
    assert [e.text for e in a.log] == [e.text for e in b.log]
