"""What the env layer memoises to make a step cheaper, and when the memo must not be used.

``ActionCodec.legal_map`` memoises action → index per scenario (keyed by the
action's fields and, for an item action, the actor's ``items``), and
``ObservationEncoder`` keeps one scenario's packing plan (positions, scales and
per-side bounds, values packed in slot order). These tests change what the memo
or the plan depends on — the scenario (combatant order), the actor's items, the
learner's side, a list order that is not the index order — and check the results
follow, against the slow path (``decode``) or a fresh encoder.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest
import yaml

from escaramuza.envs.codec import ActionCodec
from escaramuza.envs.observation import ObservationEncoder
from escaramuza.envs.single import EscaramuzaEnv
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.scenario import load_scenario, resolve_scenario
from escaramuza.rules.core.state import BattleState
from tests.envs.envtest_cases import masked_choice


def _states(env: EscaramuzaEnv, seed: int, n: int) -> list[BattleState]:
    """Clones of the learner's first ``n`` undecided states of a random rollout."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    states: list[BattleState] = []
    while len(states) < n:
        if env.state.outcome is None:
            states.append(env.state.clone())
        _, _, terminated, truncated, _ = env.step(masked_choice(env.action_masks(), rng))
        if terminated or truncated:
            env.reset(seed=seed + len(states))
    return states


def _round_trips(codec: ActionCodec, state: BattleState) -> dict[int, Action]:
    table = codec.legal_map(state, state.ruleset.legal_actions(state))
    for index, action in table.items():
        assert codec.decode(state, index) == action
    return table


def test_legal_map_memo_is_per_scenario(tmp_path: Path) -> None:
    # The same combatants in the opposite order: an action with the same fields in
    # both battles (the same attacker, target and weapon) has another index, so a
    # memo shared across scenarios would answer with the other battle's index.
    data = yaml.safe_load(Path(resolve_scenario("destiny_dice/emboscada")).read_text())
    data["combatants"].reverse()
    data["name"] = "emboscada-reversed"
    path = tmp_path / "emboscada-reversed.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    forward = EscaramuzaEnv("destiny_dice", "destiny_dice/emboscada", opponent="random")
    backward = EscaramuzaEnv("destiny_dice", load_scenario(str(path)), opponent="random")
    shared = ActionCodec(forward.ruleset, 16, 16, 6)
    first_index: dict[Action, int] = {}
    clashes = 0
    for a, b in zip(_states(forward, 1, 12), _states(backward, 1, 12), strict=True):
        for state in (a, b, a):
            table = _round_trips(shared, state)
            for index, action in table.items():
                clashes += first_index.setdefault(action, index) != index
    assert clashes > 0, "no action changed index between the scenarios: the test proves nothing"


def test_legal_map_memo_follows_the_actors_items() -> None:
    env = EscaramuzaEnv("destiny_dice", "destiny_dice/emboscada", opponent="random")
    codec = env.codec
    for state in _states(env, 3, 30):
        actor = state.by_id[state.pending.actor]
        with_items = [a for a in state.ruleset.legal_actions(state) if a.item is not None]
        if len(actor.items) < 2 or not with_items:
            continue
        before = _round_trips(codec, state)
        # Same battle, same scenario, but the actor's items in the opposite order:
        # the item slot of every item action moves, and the memo must see it.
        actor.items = tuple(reversed(actor.items))
        after = _round_trips(codec, state)
        assert set(before.values()) == set(after.values())
        assert before != after
        return
    pytest.fail("no decision with an item action and an actor with two items")


def test_one_encoder_gives_each_side_and_scenario_its_own_observation() -> None:
    # The encoder keeps one scenario's plan and per-side bounds: encoding for the other
    # side or another scenario in between must leave nothing behind.
    envs = [
        EscaramuzaEnv("destiny_dice", name, opponent="random")
        for name in ("destiny_dice/emboscada", "destiny_dice/kaspar-tiroteo")
    ]
    shared = ObservationEncoder(envs[0].ruleset, 16, 16)
    states = [s for env in envs for s in _states(env, 5, 6)]
    random.Random(0).shuffle(states)
    g = shared.max_combatants * shared.per_slot
    for state in states:
        for side in (Side.HEROES, Side.ENEMIES, Side.HEROES, Side.ENEMIES):
            got = shared.encode(state, side)
            fresh = ObservationEncoder(envs[0].ruleset, 16, 16).encode(state, side)
            assert got.tobytes() == fresh.tobytes()
            assert got[g + 1] == (1.0 if side is Side.HEROES else 0.0)
            got[:] = 7.0  # the caller owns its array: scribbling on it changes nothing
        assert np.array_equal(
            shared.encode(state, Side.HEROES),
            ObservationEncoder(envs[0].ruleset, 16, 16).encode(state, Side.HEROES),
        )


def test_a_scenario_listed_out_of_index_order_gets_the_same_observation() -> None:
    # The encoder packs values in slot order; a scenario whose list order is not its
    # Combatant.index order (the loader never makes one, a program could) must still
    # put every combatant in its own slot.
    env = EscaramuzaEnv("destiny_dice", "destiny_dice/emboscada", opponent="random")
    encoder = ObservationEncoder(env.ruleset, 16, 16)
    listed = ObservationEncoder(env.ruleset, 16, 16)
    scenario = env.scenario
    shuffled = dataclasses.replace(scenario, combatants=tuple(reversed(scenario.combatants)))
    for state in _states(env, 4, 6):
        copy = state.clone()
        copy.scenario = shuffled
        copy.combatants = list(reversed(copy.combatants))
        for side in (Side.HEROES, Side.ENEMIES):
            assert listed.encode(copy, side).tobytes() == encoder.encode(state, side).tobytes()
    assert listed.plan(shuffled).reorder is not None
