"""A toy ruleset on the shared loop family (rules.core.loops), and its plain-Python twin.

Two combatants trade blows: the actor picks one of ``1 + pv % 3`` actions, action
``k`` deals ``d6 + k`` to its foe; a combatant at 0 PV is down and the other side
wins; after round 20 it is a draw. Small enough to be checked by hand, and it exercises
everything the loops do: temperaments, the random agent and temperament (the agents'
generator, seeded on its first draw), legal lists of varying length, rollouts with the
root actor's walk, and stepping one side.
"""

from __future__ import annotations

import random
import sys
from types import SimpleNamespace
from typing import Any

import numpy as np

from escaramuza.rules.core import mt
from escaramuza.rules.core.compiled import CompiledKernel, Exported
from escaramuza.rules.core.dialect import HEAD
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.layout import Columns
from escaramuza.rules.core.legal import LA
from escaramuza.rules.core.loops import (
    KIND_TURN,
    RUNNING,
    T_RANDOM,
    Loops,
    compile_loops,
    copy_head,
    new_damage_log,
)

LAST_ROUND = 20
BONUS = 0  # the twin module (toy_kernel_b) deals one more


#: What messages call the toy ("the toy kernel"); its outcome reasons.
TITLE = "toy"
REASONS = ("defeated", "timeout")
#: The dynamic arrays reset copies: the state and the globals (the dialect's first two).
KEPT = (0, 1)
RESOURCES = (("pv", "PV"),)
HEALTH = ("PV", "MAXPV")


class ST(Columns):
    SIDE, TEMPERAMENT = HEAD["ST"].values()
    MAXPV = (1, 100, "most PV")


class CS(Columns):
    STATUS, ZONE, KO_ROUND, DIED, DEALT, DEALT_TO_FOES, TAKEN = HEAD["CS"].values()
    PV = (0, 100, "PV left")


class G(Columns):
    OUTCOME, REASON, ROUND, WIPE, ACTOR, KIND, SUSPEND, DECISIONS, DAMAGES = HEAD["G"].values()


@njit(cache=True, _nrt=False)
def reset(s: Any, d: Any, d0: Any) -> None:
    copy_head(d, d0)


@njit(cache=True, _nrt=False)
def start(s: Any, d: Any, dice: np.ndarray) -> None:
    g = d[1]
    g[G.ROUND] = 1
    g[G.ACTOR] = mt.randbelow(dice, 2)
    g[G.KIND] = KIND_TURN


@njit(cache=True, _nrt=False)
def legal(s: Any, d: Any, la: np.ndarray) -> np.int64:
    cs = d[0]
    n = 1 + cs[d[1][G.ACTOR], CS.PV] % 3
    for k in range(n):
        la[k, LA.VERB] = k
    return n


@njit(cache=True, _nrt=False)
def apply(s: Any, d: Any, row: np.ndarray, dice: np.ndarray) -> None:
    cs = d[0]
    g = d[1]
    me = g[G.ACTOR]
    foe = 1 - me
    hit = mt.randbelow(dice, 6) + 1 + row[LA.VERB] + BONUS
    hit = min(hit, cs[foe, CS.PV])
    cs[foe, CS.PV] -= hit
    cs[me, CS.DEALT] += hit
    cs[me, CS.DEALT_TO_FOES] += hit
    cs[foe, CS.TAKEN] += hit
    if cs[foe, CS.PV] == 0:
        cs[foe, CS.STATUS] = 1
        cs[foe, CS.KO_ROUND] = g[G.ROUND]
        g[G.OUTCOME] = s[0][me, ST.SIDE]
        g[G.KIND] = 0
        return
    g[G.ACTOR] = foe
    if foe == s[1][0]:
        g[G.ROUND] += 1
        if g[G.ROUND] > LAST_ROUND:
            g[G.OUTCOME] = 2
            g[G.REASON] = 1
            g[G.KIND] = 0


@njit(cache=True, _nrt=False)
def choose(
    s: Any, d: Any, la: np.ndarray, n: np.int64, mood: np.int64, arng: np.ndarray
) -> np.int64:
    if mood == 0:
        return n - 1
    if mood == 1:
        return 0
    return n // 2


def toy_loops(owner: str, blow: Any) -> Loops:
    """The loop family of the toy with ``blow`` as its ``apply`` hook, compiled for the
    module ``owner`` (whose numba cache files they get): this module's and its twin's."""
    return compile_loops(
        owner,
        reset=reset,
        start=start,
        legal=legal,
        apply=blow,
        choose=choose,
        health=(int(CS.PV), int(ST.MAXPV)),
        ST=ST,
        CS=CS,
        G=G,
    )


LOOPS = toy_loops(__name__, apply)


def bundles(pv: tuple[int, int], temperaments: tuple[int, int]) -> tuple[tuple, tuple]:
    """The static bundle (sheet; who opens a round: always combatant 0) and the start."""
    stat = ST.new(2)
    cs = CS.new(2)
    for c in range(2):
        ST.put(stat[c], f"c{c}", side=c, temperament=temperaments[c], maxpv=pv[c])
        CS.put(cs[c], f"c{c}", pv=pv[c], ko_round=-1)
    g = G.new()
    g[G.OUTCOME] = RUNNING
    return (stat, np.zeros(1, dtype=np.int64)), (cs, g, new_damage_log())


# -- the plain-Python twin (the specification) ---------------------------------------------
class Twin:
    """The toy battle in plain Python, drawing from ``random.Random`` as the engine does."""

    def __init__(self, pv: tuple[int, int], temperaments: tuple[int, int], bonus: int = 0) -> None:
        self.maxpv = pv
        self.pv = list(pv)
        self.temperaments = temperaments
        self.bonus = bonus
        self.round = 1
        self.actor = 0
        self.outcome = RUNNING
        self.reason = 0

    def start(self, dice: random.Random) -> None:
        self.actor = dice.randrange(2)

    def legal(self) -> int:
        return 1 + self.pv[self.actor] % 3

    def decide(self, agent: int, arng: random.Random) -> int:
        """``RandomAgent.act`` / ``heuristic_choice`` over the toy's temperaments."""
        n = self.legal()
        if agent == -1:
            return arng.randrange(n)
        if n == 1:
            return 0
        mood = self.temperaments[self.actor] if agent < 0 else agent
        if mood == T_RANDOM:
            return arng.randrange(n)
        return n - 1 if mood == 0 else (0 if mood == 1 else n // 2)

    def apply(self, k: int, dice: random.Random) -> None:
        foe = 1 - self.actor
        self.pv[foe] -= min(dice.randrange(6) + 1 + k + self.bonus, self.pv[foe])
        if self.pv[foe] == 0:
            self.outcome = self.actor
            return
        self.actor = foe
        if foe == 0:
            self.round += 1
            if self.round > LAST_ROUND:
                self.outcome, self.reason = 2, 1

    def strength(self, side: int) -> float:
        """``agents.search.side_strength`` of the side's one combatant."""
        return 0.5 + 0.5 * self.pv[side] / self.maxpv[side] if self.pv[side] > 0 else 0.0


def reference_battle(
    pv: tuple[int, int],
    temperaments: tuple[int, int],
    agents: tuple[int, int],
    seed: int,
    bonus: int = 0,
) -> tuple[int, int, int, list[int], int]:
    """(outcome, reason, round, final PV, decisions) of battle ``seed``."""
    dice = random.Random(seed)
    arng = random.Random(f"escaramuza-agents-{seed}")
    twin = Twin(pv, temperaments, bonus)
    twin.start(dice)
    decisions = 0
    while twin.outcome == RUNNING:
        twin.apply(twin.decide(agents[twin.actor], arng), dice)
        decisions += 1
    return twin.outcome, twin.reason, twin.round, twin.pv, decisions


# -- the toy's kernel on the shared Python side ----------------------------------------------
def export_scenario(scenario: Any) -> Exported:
    static, start = bundles(scenario.pv, scenario.temperaments)
    return Exported(scenario, static, start, actions=3)


def export_state(exported: Exported, state: Any) -> tuple[np.ndarray, ...]:
    cs = CS.new(2)
    for c in range(2):
        CS.put(cs[c], f"c{c}", pv=state.pv[c], ko_round=-1)
    g = G.new()
    G.put(g, "g", outcome=RUNNING, round=state.round, actor=state.actor, kind=KIND_TURN)
    return cs, g, new_damage_log()


def action_row(exported: Exported, state: Any, action: Any) -> list[int]:
    return [action.k, -1, -1, -1, -1]


def conditions(row: Any) -> tuple[tuple[str, int], ...]:
    return ()


def toy_kernel() -> CompiledKernel:
    """The toy as a ``rules.core.kernel.Kernel``: the shared export cache, refusal,
    agents' keys, replay of suspended battles, read-back and rollouts."""
    module = sys.modules[__name__]
    return CompiledKernel("toy", module, module)


def toy_scenario(pv: tuple[int, int], temperaments: tuple[int, int]) -> Any:
    """A stand-in scenario object with what the shared Python side reads."""
    return SimpleNamespace(
        ruleset=SimpleNamespace(id="toy"),
        name="toy duel",
        battlefield=SimpleNamespace(zone_ids=("field",)),
        pv=pv,
        temperaments=temperaments,
    )
