"""The shared loop family and the shared Python side of a kernel, on a toy ruleset.

Every expected value comes from the toy's plain-Python twin (``tests.core.toy_kernel.
Twin``), which draws from ``random.Random`` as the engine does — never from the
compiled loops themselves.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from escaramuza.rules.core import mt
from escaramuza.rules.core.compiled import CompiledKernel, agent_code
from escaramuza.rules.core.dialect import HEAD
from escaramuza.rules.core.kernel import AGENT_SEED, KernelRefusal
from escaramuza.rules.core.layout import Columns
from escaramuza.rules.core.loops import (
    RANDOM_AGENT,
    RUNNING,
    SCENARIO,
    SUSPEND_AGENT_KEY,
    TEMPERAMENTS,
    agent_random,
    arm,
    compile_loops,
    new_agent_rng,
)
from tests.core import toy_kernel as toy
from tests.fastpath_helpers import rollout_row

pytestmark = pytest.mark.compile

PV = (20, 17)
TEMPERS = (0, 5)  # a tactician hero, an enemy of the random temperament (it draws)
PAIRINGS = [(SCENARIO, SCENARIO), (RANDOM_AGENT, 1), (2, SCENARIO), (1, 1)]


def _play(
    agents: tuple[int, int], seeds: list[int], with_keys: bool = True, pv: tuple[int, int] = PV
) -> tuple[np.ndarray, np.ndarray]:
    s, d0 = toy.bundles(pv, TEMPERS)
    n = len(seeds)
    dice_keys, dice_len = mt.seed_keys(seeds)
    if with_keys:
        keys, lengths = mt.agent_keys(seeds)
    else:
        keys, lengths = np.zeros((n, 1), dtype=np.uint32), np.zeros(n, dtype=np.int64)
    out_cs, out_g = toy.CS.new(n, 2), toy.G.new(n)
    toy.LOOPS.play_battles(
        s,
        tuple(a.copy() for a in d0),
        d0,
        np.zeros((3, 1), dtype=np.int64),
        np.array(agents, dtype=np.int64),
        np.ones(n, dtype=np.bool_),
        dice_keys,
        dice_len,
        keys,
        lengths,
        mt.new_state(mt.LANES),
        new_agent_rng(keys.shape[1]),
        out_cs,
        out_g,
    )
    return out_cs, out_g


@pytest.mark.parametrize("agents", PAIRINGS)
def test_whole_battles_are_the_twins_seed_for_seed(agents: tuple[int, int]) -> None:
    seeds = list(range(37))  # not a multiple of the eight lanes
    out_cs, out_g = _play(agents, seeds)
    G, CS = toy.G, toy.CS
    for b, seed in enumerate(seeds):
        outcome, reason, rnd, pv, decisions = toy.reference_battle(PV, TEMPERS, agents, seed)
        got = out_g[b]
        assert (got[G.OUTCOME], got[G.REASON], got[G.ROUND], got[G.DECISIONS]) == (
            outcome,
            reason,
            rnd,
            decisions,
        ), seed
        assert out_cs[b, :, CS.PV].tolist() == pv
        assert got[G.SUSPEND] == 0


def test_a_battle_whose_agents_draw_suspends_without_their_key() -> None:
    seeds = list(range(16))
    # An enemy at 4 PV: whether it ever decides among two actions depends on the dice.
    _, out_g = _play((SCENARIO, SCENARIO), seeds, with_keys=False, pv=(20, 4))
    suspended = out_g[:, toy.G.SUSPEND] == SUSPEND_AGENT_KEY
    # The random-temperament enemy draws whenever it has two actions or more: which
    # battles reach such a decision is the twin's to say.
    for b, seed in enumerate(seeds):
        dice = random.Random(seed)
        twin = toy.Twin((20, 4), TEMPERS)
        twin.start(dice)
        draws = False
        arng = random.Random(f"escaramuza-agents-{seed}")
        while twin.outcome == RUNNING and not draws:
            draws = twin.actor == 1 and twin.legal() > 1
            twin.apply(twin.decide(SCENARIO, arng), dice)
        assert bool(suspended[b]) == draws, seed
    assert suspended.any() and not suspended.all()


def test_the_kernel_class_replays_suspended_battles_with_their_keys() -> None:
    kernel = toy.toy_kernel()
    scenario = toy.toy_scenario(PV, TEMPERS)
    seeds = list(range(20))
    battles = kernel.play_battles(scenario, ["heuristic", "random"], seeds)
    for battle, seed in zip(battles, seeds, strict=True):
        outcome, reason, rnd, pv, decisions = toy.reference_battle(
            PV, TEMPERS, (SCENARIO, RANDOM_AGENT), seed
        )
        assert battle.winner == ("heroes", "enemies", None)[outcome]
        assert battle.reason == ("defeated", "timeout")[reason]
        assert (battle.rounds, battle.decisions) == (rnd, decisions)
        assert battle.resources == ((("pv", pv[0]),), (("pv", pv[1]),))
        assert battle.taken == (PV[0] - pv[0], PV[1] - pv[1])
    columns = kernel.play_columns(scenario, ["heuristic", "random"], seeds)
    assert columns.rounds.tolist() == [b.rounds for b in battles]
    assert columns.taken.tolist() == [list(b.taken) for b in battles]


def test_agent_keys_first_plays_the_same_battles_without_a_pass_for_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scenario = toy.toy_scenario(PV, TEMPERS)
    seeds = list(range(20))
    asked: list[int] = []
    real = CompiledKernel._with_agent_keys

    def spy(*args: Any) -> Any:
        asked.append(1)
        return real(*args)

    monkeypatch.setattr(CompiledKernel, "_with_agent_keys", staticmethod(spy))
    later = toy.toy_kernel().play_battles(scenario, ["heuristic", "random"], seeds)
    assert asked  # the random agent drew: its battles suspended for their keys
    asked.clear()

    class KeysFirst(CompiledKernel):
        AGENT_KEYS_FIRST = True

    first = KeysFirst("toy", toy, toy)
    assert first.play_battles(scenario, ["heuristic", "random"], seeds) == later
    assert not asked


def test_battles_suspending_past_the_kernels_passes_are_refused() -> None:

    class OnePass(CompiledKernel):
        MAX_PASSES = 1  # the pass that finds the agents' keys missing is the last

    kernel = OnePass("toy", toy, toy)
    with pytest.raises(KernelRefusal, match="kept suspending"):
        kernel.play_battles(toy.toy_scenario(PV, TEMPERS), ["heuristic", "random"], [0, 1])


@pytest.mark.parametrize("seed", [0, 7, 1 << 40])
def test_agent_random_is_the_agents_generators_random(seed: int) -> None:
    arng = new_agent_rng(40)
    g = toy.G.new()
    assert agent_random(arng, g, toy.G.SUSPEND) == 0.0  # no key: it suspends
    assert g[toy.G.SUSPEND] == SUSPEND_AGENT_KEY
    keys, lengths = mt.agent_keys([seed])
    arm(arng, keys[0], lengths[0])
    g[:] = 0
    want = random.Random(AGENT_SEED.format(seed))
    assert [agent_random(arng, g, toy.G.SUSPEND) for _ in range(5)] == [
        want.random() for _ in range(5)
    ]
    assert g[toy.G.SUSPEND] == 0


def test_agent_codes_and_refusals() -> None:
    assert agent_code("random") == RANDOM_AGENT
    assert agent_code("heuristic") == SCENARIO
    assert agent_code("heuristic:coward") == TEMPERAMENTS.index("coward") == agent_code("coward")
    with pytest.raises(KernelRefusal, match="mcts"):
        agent_code("mcts")
    kernel = toy.toy_kernel()
    scenario = toy.toy_scenario(PV, TEMPERS)
    assert kernel.refusal(scenario, ["heuristic", "random"]) is None
    why = kernel.refusal(scenario, ["heuristic", "policy:x.zip"])
    assert why is not None and why.startswith("the toy kernel does not implement")
    other = SimpleNamespace(**{**vars(scenario), "ruleset": SimpleNamespace(id="cairn")})
    assert "is not toy" in (kernel.refusal(other, ["heuristic", "heuristic"]) or "")
    # The export is range-checked: a PV outside the sheet's declared range is refused.
    assert "maxpv" in (kernel.refusal(toy.toy_scenario((0, 17), TEMPERS), ["random"] * 2) or "")


def _twin_rollout(
    pv: list[int], rnd: int, actor: int, first: int, seed: int, stop: int, own: int, cap: int
) -> tuple[int, bool, float, float, bool]:
    twin = toy.Twin(PV, TEMPERS)
    twin.pv, twin.round, twin.actor = list(pv), rnd, actor
    dice = random.Random(seed)
    arng = random.Random(seed)
    root = side = actor
    k = first
    decisions = 0
    tracking, left, out = True, False, False
    while True:
        twin.apply(k, dice)
        decisions += 1
        if tracking:
            if twin.outcome != RUNNING:
                active = twin.pv[root] > 0
                out = twin.outcome == 1 - side or (twin.outcome == 2 and not active) or not active
                tracking = False
            elif twin.actor != root:
                left = True
            elif left:
                tracking = False
        if twin.outcome != RUNNING or twin.round >= stop or decisions >= cap:
            break
        k = twin.decide(own if twin.actor == side else SCENARIO, arng)
    w = twin.outcome
    winner = 1 if w == side else (-1 if w == 1 - side else 0)
    return winner, w != RUNNING, twin.strength(side), twin.strength(1 - side), out


@pytest.mark.parametrize(
    ("horizon", "own", "cap"), [(None, None, 10_000), (2, "brute", 10_000), (None, "random", 3)]
)
def test_rollouts_are_the_twins(horizon: int | None, own: str | None, cap: int) -> None:
    kernel = toy.toy_kernel()
    scenario = toy.toy_scenario(PV, TEMPERS)
    state = SimpleNamespace(
        scenario=scenario, pv=(9, 11), round=3, actor=1, pending=SimpleNamespace(actor="c1")
    )
    actions = [SimpleNamespace(actor="c1", k=k) for k in range(3)]
    seeds = [5, 1 << 40, 77, 3]
    batch = kernel.rollouts(state, actions, seeds, horizon, own, cap)
    stop = 3 + horizon if horizon is not None else 1 << 62
    own_code = agent_code(own) if own is not None else SCENARIO
    for a in range(3):
        for j, seed in enumerate(seeds):
            want = _twin_rollout([9, 11], 3, 1, a, seed, stop, own_code, cap)
            assert rollout_row(batch, a, j) == want, (a, seed)


def test_rollouts_refuse_an_action_not_of_the_pending_decision() -> None:
    kernel = toy.toy_kernel()
    state = SimpleNamespace(
        scenario=toy.toy_scenario(PV, TEMPERS),
        pv=(9, 11),
        round=3,
        actor=1,
        pending=SimpleNamespace(actor="c1"),
    )
    with pytest.raises(KernelRefusal, match="cannot resume this state"):
        kernel.rollouts(state, [SimpleNamespace(actor="c0", k=0)], [1], None, None, 100)


def test_advance_stops_at_each_decision_of_the_learning_side() -> None:
    """Stepping: the learner (the heroes) always takes its last legal action, which is
    what the tactician temperament does, so the battle is the twin's tactician battle."""
    s, d0 = toy.bundles(PV, TEMPERS)
    agents = np.array([SCENARIO, SCENARIO], dtype=np.int64)
    la = np.zeros((3, 1), dtype=np.int64)
    for seed in range(12):
        d = tuple(a.copy() for a in d0)
        dice = mt.new_state()
        mt.seed_key(dice, mt.key_of(seed))
        arng = new_agent_rng(40)
        keys, lengths = mt.agent_keys([seed])
        from escaramuza.rules.core.loops import arm

        arm(arng, keys[0], lengths[0])
        toy.start(s, d, dice)
        steps = 0
        while True:
            n = toy.LOOPS.advance(s, d, la, 0, agents, dice, arng)
            if n == 0:
                break
            assert d[1][toy.G.ACTOR] == 0
            toy.apply(s, d, la[n - 1], dice)
            d[1][toy.G.DECISIONS] += 1
            steps += 1
        outcome, _, rnd, pv, decisions = toy.reference_battle(PV, TEMPERS, (0, SCENARIO), seed)
        g = d[1]
        assert (g[toy.G.OUTCOME], g[toy.G.ROUND], g[toy.G.DECISIONS]) == (outcome, rnd, decisions)
        assert d[0][:, toy.CS.PV].tolist() == pv
        assert 0 < steps < decisions


@pytest.mark.parametrize("layout", ["missing", "late", "other range"])
def test_compile_loops_refuses_a_layout_not_starting_with_the_dialects_head(layout: str) -> None:
    head = list(HEAD["G"].items())
    if layout == "missing":  # no REASON …
        members = head[:1]
    elif layout == "late":  # the head after a column of the ruleset's own
        members = [("EXTRA", (0, 1, "a column")), *head]
    else:  # ROUND with a range of its own
        members = [(n, (0, 9, "the round") if n == "ROUND" else spec) for n, spec in head]
    BareG = Columns("BareG", members)  # type: ignore[call-overload]

    with pytest.raises(TypeError, match="layout G does not start with OUTCOME, REASON, ROUND"):
        compile_loops(
            "nowhere",
            reset=toy.reset,
            start=toy.start,
            legal=toy.legal,
            apply=toy.apply,
            choose=toy.choose,
            health=(int(toy.CS.PV), int(toy.ST.MAXPV)),
            ST=toy.ST,
            CS=toy.CS,
            G=BareG,
        )


RUN_BOTH = """
import numpy as np
from escaramuza.rules.core import mt
from escaramuza.rules.core.loops import new_agent_rng
from tests.core import toy_kernel as a, toy_kernel_b as b
out = []
for module in (a, b):
    s, d0 = a.bundles((20, 17), (0, 1))
    seeds = list(range(8))
    keys, lengths = mt.seed_keys(seeds)
    out_cs, out_g = a.CS.new(8, 2), a.G.new(8)
    module.LOOPS.play_battles(
        s, tuple(x.copy() for x in d0), d0, np.zeros((3, 1), dtype=np.int64),
        np.array([-2, -2]), np.ones(8, dtype=np.bool_), keys, lengths,
        np.zeros((8, 1), dtype=np.uint32), np.zeros(8, dtype=np.int64),
        mt.new_state(mt.LANES), new_agent_rng(1), out_cs, out_g,
    )
    hits = sum(module.LOOPS.play_battles.python_twin.stats.cache_hits.values())
    out.append((out_cs[:, :, a.CS.PV].tolist(), hits))
print(out)
"""


def test_two_owners_of_one_template_never_share_machine_code(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """numba names a cache file after the template's source file and qualified name;
    the owner's name is added, or the second ruleset would load the first's loop."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def run() -> list[tuple[list[list[int]], int]]:
        done = subprocess.run(
            [sys.executable, "-c", RUN_BOTH], env=env, capture_output=True, text=True, check=True
        )
        return eval(done.stdout)

    first, second = run(), run()
    (pv_a, hits_a), (pv_b, hits_b) = first
    want_a = [toy.reference_battle((20, 17), (0, 1), (-2, -2), s)[3] for s in range(8)]
    want_b = [toy.reference_battle((20, 17), (0, 1), (-2, -2), s, bonus=1)[3] for s in range(8)]
    assert (pv_a, pv_b) == (want_a, want_b)
    assert want_a != want_b
    assert (hits_a, hits_b) == (0, 0)  # a fresh cache
    assert [pv for pv, _ in second] == [pv_a, pv_b]
    assert [hits for _, hits in second] == [1, 1]  # both loaded, each its own
