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
from typing import Any

import numpy as np

from escaramuza.rules.core import mt
from escaramuza.rules.core.jit import copy_into, njit
from escaramuza.rules.core.layout import Columns
from escaramuza.rules.core.loops import KIND_TURN, RUNNING, T_RANDOM, compile_loops

LAST_ROUND = 20
BONUS = 0  # the twin module (toy_kernel_b) deals one more


class ST(Columns):
    SIDE = (0, 1, "0 heroes, 1 enemies")
    TEMPERAMENT = (0, 5, "the scenario temperament's code")
    MAXPV = (1, 100, "most PV")


class CS(Columns):
    STATUS = (0, 1, "0 active, 1 down")
    ZONE = (0, 0, "always zone 0")
    PV = (0, 100, "PV left")
    KO_ROUND = (-1, 100, "round of the knock-out, -1 never")
    DEALT = (0, 10_000, "damage dealt")
    DEALT_TO_FOES = (0, 10_000, "damage dealt to foes")
    TAKEN = (0, 10_000, "damage taken")


class G(Columns):
    OUTCOME = (-1, 2, "running, or the winner's code")
    REASON = (0, 1, "0 defeated, 1 timeout")
    ROUND = (0, 100, "the round")
    WIPE = (0, 1, "never")
    ACTOR = (0, 1, "who decides")
    KIND = (0, 1, "always a turn")
    SUSPEND = (0, 64, "why the battle stopped for Python")
    DECISIONS = (0, 1 << 20, "decisions taken")


@njit(cache=True, _nrt=False)
def reset(s: Any, d: Any, d0: Any) -> None:
    copy_into(d[0], d0[0])
    copy_into(d[1], d0[1])


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
        la[k, 0] = k
    return n


@njit(cache=True, _nrt=False)
def apply(s: Any, d: Any, row: np.ndarray, dice: np.ndarray) -> None:
    cs = d[0]
    g = d[1]
    me = g[G.ACTOR]
    foe = 1 - me
    hit = mt.randbelow(dice, 6) + 1 + row[0] + BONUS
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


@njit(cache=True, _nrt=False)
def strength(s: Any, d: Any, side: np.int64) -> float:
    stat = s[0]
    cs = d[0]
    for c in range(2):
        if stat[c, ST.SIDE] == side:
            return cs[c, CS.PV] / stat[c, ST.MAXPV]
    return 0.0


LOOPS = compile_loops(
    __name__,
    reset=reset,
    start=start,
    legal=legal,
    apply=apply,
    choose=choose,
    strength=strength,
    ST=ST,
    CS=CS,
    G=G,
)


def bundles(pv: tuple[int, int], temperaments: tuple[int, int]) -> tuple[tuple, tuple]:
    """The static bundle (sheet; who opens a round: always combatant 0) and the start."""
    stat = ST.new(2)
    cs = CS.new(2)
    for c in range(2):
        ST.put(stat[c], f"c{c}", side=c, temperament=temperaments[c], maxpv=pv[c])
        CS.put(cs[c], f"c{c}", pv=pv[c], ko_round=-1)
    g = G.new()
    g[G.OUTCOME] = RUNNING
    return (stat, np.zeros(1, dtype=np.int64)), (cs, g)


# -- the plain-Python twin (the specification) ---------------------------------------------
def reference_decide(pv: int, agent: int, temperament: int, arng: random.Random) -> int:
    n = 1 + pv % 3
    if agent == -1:
        return arng.randrange(n)
    if n == 1:
        return 0
    mood = temperament if agent < 0 else agent
    if mood == T_RANDOM:
        return arng.randrange(n)
    return n - 1 if mood == 0 else (0 if mood == 1 else n // 2)


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
    hp = list(pv)
    rnd = 1
    actor = dice.randrange(2)
    decisions = 0
    while True:
        k = reference_decide(hp[actor], agents[actor], temperaments[actor], arng)
        decisions += 1
        foe = 1 - actor
        hp[foe] -= min(dice.randrange(6) + 1 + k + bonus, hp[foe])
        if hp[foe] == 0:
            return actor, 0, rnd, hp, decisions
        actor = foe
        if foe == 0:
            rnd += 1
            if rnd > LAST_ROUND:
                return 2, 1, rnd, hp, decisions
