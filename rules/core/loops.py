"""The kernels' one loop family: whole battles, rollouts and stepping, written once.

A ruleset's kernel supplies its compiled rules and temperaments over the two bundles of
one dialect (docs/fast-path.md, "One dialect"): the static bundle ``s`` (a tuple whose
first array is the per-combatant sheet ``stat[c, ST.*]``) and the dynamic bundle ``d``
(a tuple whose first two arrays are the per-combatant state ``cs[c, CS.*]`` and the
battle globals ``g[G.*]``; the rest is the ruleset's scratch). Its functions:

* ``reset(s, d, d0)`` — ``d`` becomes a copy of ``d0``;
* ``start(s, d, dice)`` — the battle's opening (initiative…) up to its first decision;
* ``legal(s, d, la) -> n`` — the pending decision's legal actions, one row each of
  ``la`` (the engine's order);
* ``apply(s, d, row, dice)`` — take the action ``row``, up to the next decision or
  the end;
* ``choose(s, d, la, n, mood, arng) -> i`` — temperament ``mood``'s pick among ``n ≥
  2`` rows (``agents.heuristic.heuristic_choice`` after its shared part, below);
* ``strength(s, d, side) -> float`` — ``agents.search.side_strength``.

:func:`compile_loops` compiles this module's templates for them (``rules.core.jit.
instantiate``): :func:`play_battles` (``agents.runner.play_battle`` per seed),
:func:`rollouts` (``agents.search.MCTS.rollout`` per action and seed) and
:func:`advance` (play the other side's decisions until the next decision of a given
side — the step of a batched environment). The columns the loops read are the same in
every ruleset: ``ST.SIDE``, ``ST.TEMPERAMENT``; ``CS.STATUS`` (0 = active);
``G.OUTCOME`` (:data:`RUNNING`, or a ``rules.core.kernel.WINNERS`` code), ``G.REASON``,
``G.ROUND``, ``G.ACTOR`` and ``G.KIND`` of the pending decision (:data:`KIND_NONE`,
:data:`KIND_TURN`, a ruleset's others from 2), ``G.SUSPEND`` and ``G.DECISIONS``; and
for the read-back (``rules.core.compiled``) ``CS.ZONE``, ``CS.KO_ROUND``, ``CS.DEALT``,
``CS.DEALT_TO_FOES``, ``CS.TAKEN`` and ``G.WIPE`` (:data:`REQUIRED`; ``compile_loops``
checks them).

A battle **suspends** (``g[G.SUSPEND] != 0``) where the kernel needs Python: the
agents' generator's key it was not given (:data:`SUSPEND_AGENT_KEY`: most battles never
draw, and the driver computes keys only for those that do), past
:data:`MAX_DECISIONS` (:data:`SUSPEND_CAP`), or a ruleset's own reason (codes from
:data:`SUSPEND_RULESET`). The loops stop that battle where it is; the driver resolves
the reason and plays it again (``rules.core.compiled``).

The dice stream and the agents' generator are :mod:`rules.core.mt` (CPython's MT19937):
battle ``seed`` rolls from ``random.Random(seed)`` and its agents choose from
``random.Random(AGENT_SEED.format(seed))``, seeded on its first draw; a rollout of seed
``k`` uses ``random.Random(k)`` for both, as ``MCTS._descend`` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from escaramuza.rules.core import mt
from escaramuza.rules.core.dialect import (
    EVERY_SIDE,
    GLOBALS,
    HEAD,
    KIND_NONE,
    KIND_TURN,
    RUNNING,
    STATE,
)
from escaramuza.rules.core.jit import copy_into, instantiate, njit
from escaramuza.rules.core.kernel import BOUND
from escaramuza.rules.core.layout import Columns
from escaramuza.rules.core.scenario import KNOWN_TEMPERAMENTS

#: ``g[G.SUSPEND]``: why a battle stopped for Python (0: it did not).
SUSPEND_AGENT_KEY = 1
SUSPEND_CAP = 2
SUSPEND_RULESET = 16
#: A battle still going after this many decisions stops (the engine's ``play_battle``
#: has no cap; no shipped scenario comes near it).
MAX_DECISIONS = 200_000
#: No stop round, no cap on decisions: beyond any battle (int64; rounds never pass the
#: round limit).
FAR = 1 << 62
#: :func:`follow`'s ``walk``: whether the combatant is still followed, whether the
#: decision has passed to someone else since, and its verdict (out, or on the losing side).
WALK_FOLLOWING, WALK_LEFT, WALK_OUT = 0, 1, 2
WALK_SIZE = 3

#: Agent codes: the RandomAgent, each combatant by its scenario temperament, or one
#: temperament for the whole side (its index in :data:`TEMPERAMENTS`).
RANDOM_AGENT = -1
SCENARIO = -2
FIRST_LEGAL = -3
TEMPERAMENTS = KNOWN_TEMPERAMENTS
T_RANDOM = TEMPERAMENTS.index("random")

# -- the agents' generator ---------------------------------------------------------------
#: ``arng`` layout: the MT state (``mt.STATE_SIZE`` words), whether it is seeded, the key's
#: length (0: not given) and the key's words (``mt.agent_keys``).
A_SEEDED = mt.STATE_SIZE
A_KEYLEN = mt.STATE_SIZE + 1
A_KEY = mt.STATE_SIZE + 2


def new_agent_rng(key_width: int) -> np.ndarray:
    """An agents' generator (``arng``) holding keys of up to ``key_width`` words."""
    return np.zeros(A_KEY + max(key_width, 1), dtype=np.uint32)


@njit(cache=True, _nrt=False)
def arm(arng: np.ndarray, keys: np.ndarray, length: int) -> None:
    """Give ``arng`` the key ``keys[:length]`` (``length`` 0: none), unseeded."""
    arng[A_SEEDED] = 0
    arng[A_KEYLEN] = length
    for j in range(length):
        arng[A_KEY + j] = keys[j]


@njit(cache=True, _nrt=False)
def seeded_like(arng: np.ndarray, dice: np.ndarray) -> None:
    """``arng`` becomes a copy of the generator ``dice`` (two generators seeded alike)."""
    for j in range(mt.STATE_SIZE):
        arng[j] = dice[j]
    arng[A_SEEDED] = 1


@njit(cache=True, _nrt=False)
def agent_ready(arng: np.ndarray, g: np.ndarray, suspend: int) -> bool:
    """Whether the agents' generator can draw: seeded here at its first draw (seeding
    MT19937 costs more than a short battle). With no key, ``g[suspend]`` becomes
    :data:`SUSPEND_AGENT_KEY` and it cannot."""
    if arng[A_SEEDED] == 0:
        length = arng[A_KEYLEN]
        if length == 0:
            g[suspend] = SUSPEND_AGENT_KEY
            return False
        mt.seed_key(arng, arng[A_KEY : A_KEY + length])
        arng[A_SEEDED] = 1
    return True


@njit(cache=True, _nrt=False)
def agent_draw(arng: np.ndarray, g: np.ndarray, suspend: int, n: int) -> int:
    """``rng.randrange(n)`` of the agents' generator (:func:`agent_ready`; 0 without
    its key)."""
    if not agent_ready(arng, g, suspend):
        return 0
    return mt.randbelow(arng, n)


@njit(cache=True, _nrt=False)
def agent_random(arng: np.ndarray, g: np.ndarray, suspend: int) -> float:
    """``rng.random()`` of the agents' generator (:func:`agent_ready`; 0.0 without its
    key)."""
    if not agent_ready(arng, g, suspend):
        return 0.0
    return mt.random_float(arng)


# -- the damage log ------------------------------------------------------------------------
class DAMAGE(Columns):
    """``log[k, DAMAGE.*]``: a kernel's ``k``-th damage since its log was last cleared,
    one row for each ``Damaged`` event the engine emits, in the engine's order."""

    TARGET = (0, "combatants", "the combatant that lost it")
    RESOURCE = (0, BOUND, "the resource it came off: its index in Ruleset.resources")
    AMOUNT = (-BOUND, BOUND, "how much it lost (Damaged.amount)")
    SOURCE = (-1, "combatants", "who dealt it (Damaged.source), -1 nobody")


#: Rows of a damage log. Only the batched env reads a log, once per learner decision,
#: and clears it; the battle and rollout loops never do, so theirs stop recording once
#: full (``G.DAMAGES`` still counts, so a reader can tell a log that overflowed).
DAMAGE_LOG_ROWS = 1024


def new_damage_log() -> np.ndarray:
    """An empty damage log (the last array of a kernel's dynamic bundle)."""
    return DAMAGE.new(DAMAGE_LOG_ROWS)


@njit(cache=True, _nrt=False)
def record_damage(
    log: np.ndarray, g: np.ndarray, count: int, target: int, resource: int, amount: int, source: int
) -> None:
    """Append a damage to ``log``, whose rows so far ``g[count]`` counts (the ruleset's
    ``G.DAMAGES``); past the log's rows only the count grows."""
    k = g[count]
    if k < log.shape[0]:
        log[k, DAMAGE.TARGET] = target
        log[k, DAMAGE.RESOURCE] = resource
        log[k, DAMAGE.AMOUNT] = amount
        log[k, DAMAGE.SOURCE] = source
    g[count] = k + 1


@njit(cache=True, _nrt=False, inline="always")
def copy_head(d: Any, d0: Any) -> None:
    """The state and globals of the dynamic bundle ``d`` become ``d0``'s: what every
    ruleset's ``reset`` copies before its own arrays (never the damage log, which holds
    none of ``d0``'s rows)."""
    copy_into(d[STATE], d0[STATE])
    copy_into(d[GLOBALS], d0[GLOBALS])


# -- the templates (plain Python; compile_loops compiles them per ruleset) ----------------
def decide(s: Any, d: Any, la: np.ndarray, n: int, agent: int, arng: np.ndarray) -> int:
    """The pending decision's row: ``RandomAgent.act`` for :data:`RANDOM_AGENT`, the first
    for :data:`FIRST_LEGAL` (``FirstLegalAgent``), else
    ``heuristic_choice`` — one legal action is no choice, the random temperament draws,
    any other is the ruleset's ``choose``."""
    g = d[1]
    if agent == RANDOM_AGENT:
        return agent_draw(arng, g, G.SUSPEND, n)
    if n == 1 or agent == FIRST_LEGAL:
        return 0
    mood = agent
    if agent < 0:
        mood = s[0][g[G.ACTOR], ST.TEMPERAMENT]
    if mood == T_RANDOM:
        return agent_draw(arng, g, G.SUSPEND, n)
    return choose(s, d, la, n, mood, arng)


def follow(s: Any, d: Any, root: int, walk: np.ndarray) -> None:
    """``agents.search._Walk.update`` for the combatant ``root`` after a decision:
    ``walk[WALK_FOLLOWING]`` while its fate is open, ``walk[WALK_LEFT]`` once the
    decision passed to someone else, ``walk[WALK_OUT]`` its verdict (out of the fight, or
    on the losing side of the end, before its next turn)."""
    cs = d[0]
    g = d[1]
    if g[G.OUTCOME] != RUNNING:
        active = cs[root, CS.STATUS] == 0
        w = g[G.OUTCOME]
        lost = w == 1 - s[0][root, ST.SIDE] or (w == 2 and not active)
        walk[WALK_OUT] = lost or not active
        walk[WALK_FOLLOWING] = 0
    elif cs[root, CS.STATUS] != 0:
        walk[WALK_OUT] = 1
        walk[WALK_FOLLOWING] = 0
    elif g[G.KIND] != KIND_NONE:
        if g[G.ACTOR] != root:
            walk[WALK_LEFT] = 1
        elif walk[WALK_LEFT] == 1 and g[G.KIND] == KIND_TURN:
            walk[WALK_FOLLOWING] = 0


def run(
    s: Any,
    d: Any,
    la: np.ndarray,
    act: np.ndarray,
    first: bool,
    learner: int,
    agents: np.ndarray,
    stop_round: int,
    max_decisions: int,
    root: int,
    walk: np.ndarray,
    dice: np.ndarray,
    arng: np.ndarray,
) -> int:
    """The one loop every entry point plays through: take the row ``act`` first when
    ``first``, then every decision that is not the caller's — ``agents[side]`` decides;
    the caller's are those of side ``learner`` (:data:`EVERY_SIDE`: all of them; -1:
    none) — until a decision of the caller's (returns its number of legal rows, in
    ``la``), the end, round ``stop_round``, ``max_decisions`` decisions taken in this
    call, or a suspension (returns 0). Each decision taken counts in ``g[G.DECISIONS]``;
    past :data:`MAX_DECISIONS` the battle suspends. ``root`` ≥ 0: :func:`follow` that
    combatant into ``walk`` while ``walk[WALK_FOLLOWING]``."""
    stat = s[0]
    g = d[1]
    taken = 0
    row = act
    take = first
    while True:
        # One call site of apply (its code is inlined here, and is the bulk of run's).
        if take:
            apply(s, d, row, dice)
            taken += 1
            g[G.DECISIONS] += 1
            if g[G.DECISIONS] > MAX_DECISIONS:
                g[G.SUSPEND] = SUSPEND_CAP
            if root >= 0 and walk[WALK_FOLLOWING] == 1 and g[G.SUSPEND] == 0:
                follow(s, d, root, walk)
        if (
            g[G.OUTCOME] != RUNNING
            or g[G.SUSPEND] != 0
            or g[G.ROUND] >= stop_round
            or taken >= max_decisions
        ):
            return 0
        n = legal(s, d, la)
        deciding = stat[g[G.ACTOR], ST.SIDE]
        if learner == EVERY_SIDE or deciding == learner:
            return n
        i = decide(s, d, la, n, agents[deciding], arng)
        if g[G.SUSPEND] != 0:
            return 0
        row = la[i]
        take = True


def play_battles(
    s: Any,
    d: Any,
    d0: Any,
    la: np.ndarray,
    agents: np.ndarray,
    todo: np.ndarray,
    dice_keys: np.ndarray,
    dice_len: np.ndarray,
    agent_keys: np.ndarray,
    agent_len: np.ndarray,
    lanes: np.ndarray,
    arng: np.ndarray,
    out_cs: np.ndarray,
    out_g: np.ndarray,
) -> None:
    """``agents.runner.play_battle`` for every battle ``b`` with ``todo[b]``, from the
    scenario's start ``d0``: ``agents[side]`` decides for each side; the final ``cs``
    and ``g`` into ``out_cs[b]``, ``out_g[b]`` (``G.SUSPEND`` says why one stopped
    early). ``d``, ``la``, ``lanes`` (``mt.LANES`` generators) and ``arng``: scratch."""
    for b in range(dice_keys.shape[0]):
        if b % mt.LANES == 0:
            # The dice generators of eight battles are seeded together (mt.seed_lanes).
            mt.seed_lanes(lanes, dice_keys, dice_len, b)
        if not todo[b]:
            continue
        dice = lanes[b % mt.LANES]
        arm(arng, agent_keys[b], agent_len[b])
        reset(s, d, d0)
        start(s, d, dice)
        # No row first, nobody followed (``la[0]`` stands in for the unread row and walk).
        run(s, d, la, la[0], False, -1, agents, FAR, FAR, -1, la[0], dice, arng)
        copy_into(out_cs[b], d[0])
        copy_into(out_g[b], d[1])


def strength(s: Any, d: Any, side: int) -> float:
    """``agents.search.side_strength``: the share of ``side`` still fighting — each of
    its combatants 0 when out, else ½ plus ½ × its health (the ruleset's first resource,
    ``CS.HEALTH`` of ``ST.MAX_HEALTH``), the same float operations in scenario order."""
    stat = s[0]
    cs = d[0]
    total = 0.0
    n = 0
    for c in range(cs.shape[0]):
        if stat[c, ST.SIDE] != side:
            continue
        n += 1
        if cs[c, CS.STATUS] != 0:
            continue
        top = stat[c, MAX_HEALTH]
        frac = cs[c, HEALTH] / top if top > 0 else 1.0
        total += 0.5 + 0.5 * min(max(frac, 0.0), 1.0)
    return total / n if n else 0.0


def rollouts(
    s: Any,
    d: Any,
    d0: Any,
    la: np.ndarray,
    first: np.ndarray,
    seed_keys: np.ndarray,
    seed_len: np.ndarray,
    stop_round: int,
    own: int,
    max_decisions: int,
    dice: np.ndarray,
    arng: np.ndarray,
    act: np.ndarray,
    agents: np.ndarray,
    walk: np.ndarray,
    winner: np.ndarray,
    finished: np.ndarray,
    own_strength: np.ndarray,
    foe_strength: np.ndarray,
    actor_out: np.ndarray,
    suspended: np.ndarray,
) -> None:
    """``MCTS._descend`` below an empty tree for every (first action ``first[a]``, seed
    ``k``), from the state ``d0``: the action on the dice of ``random.Random(k)``, then
    heuristic play — the searching side (the pending decision's) by ``own`` (an agent
    code), its foes in character — with tie-breaks from a second ``random.Random(k)``,
    until the end, round ``stop_round`` or ``max_decisions``; the root actor's
    ``_Walk`` gives ``actor_out``. Outputs of shape ``(actions, seeds)``; a rollout
    that suspended has ``suspended`` set and nothing else. ``d``, ``la``, ``dice``,
    ``arng``, ``act``, ``agents`` (two codes) and ``walk`` (:data:`WALK_SIZE`): scratch."""
    g = d[1]
    root = d0[1][G.ACTOR]
    side = s[0][root, ST.SIDE]
    agents[side] = own
    agents[1 - side] = SCENARIO
    for a in range(first.shape[0]):
        for k in range(seed_keys.shape[0]):
            reset(s, d, d0)
            mt.seed_key(dice, seed_keys[k, : seed_len[k]])
            seeded_like(arng, dice)
            copy_into(act, first[a])
            walk[WALK_FOLLOWING] = 1
            walk[WALK_LEFT] = 0
            walk[WALK_OUT] = 0
            run(s, d, la, act, True, -1, agents, stop_round, max_decisions, root, walk, dice, arng)
            suspended[a, k] = g[G.SUSPEND] != 0
            w = g[G.OUTCOME]
            winner[a, k] = 1 if w == side else (-1 if w == 1 - side else 0)
            finished[a, k] = w != RUNNING
            own_strength[a, k] = strength(s, d, side)
            foe_strength[a, k] = strength(s, d, 1 - side)
            actor_out[a, k] = walk[WALK_OUT] != 0


def advance(
    s: Any, d: Any, la: np.ndarray, learner: int, agents: np.ndarray, dice: Any, arng: Any
) -> int:
    """Play the decisions not of side ``learner`` (``agents[side]`` decides) until the
    next decision of ``learner``, the end of the battle or a suspension: the number of
    the learner's legal actions, in ``la`` (0 when it has none to take)."""
    return run(s, d, la, la[0], False, learner, agents, FAR, FAR, -1, la[0], dice, arng)


def check_required(owner: str, layouts: dict[str, type[Columns]]) -> None:
    """Each of ``layouts`` (by array name) starts with the dialect's head for it
    (``rules.core.dialect.HEAD``: those columns, in that order, with those ranges and
    meanings), else a TypeError naming the ruleset's module ``owner``."""
    for array, layout in layouts.items():
        head = list(HEAD[array].items())
        got = [(c.name, c._spec[:3]) for c in list(layout)[: len(head)]]
        if got != head:
            names = ", ".join(HEAD[array])
            raise TypeError(f"{owner}: layout {array} does not start with {names}")


class Loops:
    """A ruleset's compiled loops (:func:`compile_loops`)."""

    def __init__(
        self,
        play_battles: Any,
        rollouts: Any,
        advance: Any,
        run: Any,
        rules: dict[str, Any] | None = None,
    ) -> None:
        self.play_battles = play_battles
        self.rollouts = rollouts
        self.advance = advance
        self.run = run
        #: What the loops were compiled from (``reset``, ``start``, ``legal``, ``apply``,
        #: ``choose``, ``strength``, the layouts, ``decide``, ``run``): other templates
        #: over the same rules (the batched env's step) bind these.
        self.rules: dict[str, Any] = dict(rules or {})


def compile_loops(
    owner: str,
    *,
    reset: Callable[..., Any],
    start: Callable[..., Any],
    legal: Callable[..., Any],
    apply: Callable[..., Any],
    choose: Callable[..., Any],
    health: tuple[int, int],
    ST: type[Columns],
    CS: type[Columns],
    G: type[Columns],
) -> Loops:
    """The loop family compiled for one ruleset (module ``owner``, whose numba cache
    files they get), from its compiled functions and layouts (see the module's
    docstring); ``health`` is the ``CS`` column of the ruleset's first resource and the
    ``ST`` column of its maximum (:func:`strength`). The layouts must start with the
    dialect's head (:func:`check_required`)."""
    layouts = {"ST": ST, "CS": CS, "G": G}
    check_required(owner, layouts)
    rules = {
        "reset": reset,
        "start": start,
        "legal": legal,
        "apply": apply,
        "choose": choose,
        "HEALTH": health[0],
        "MAX_HEALTH": health[1],
        **layouts,
    }
    # The ruleset's rules and temperaments are compiled into one function, run: legal,
    # decide (choose) and apply are inlined there and nowhere else, so the entry points
    # share one machine-code copy of them instead of compiling it once each.
    bound = {
        **rules,
        "decide": instantiate(decide, owner, rules, cache=True, _nrt=False, inline="always"),
        "follow": instantiate(follow, owner, rules, cache=True, _nrt=False, inline="always"),
        "strength": instantiate(strength, owner, rules, cache=True, _nrt=False),
    }
    bound["run"] = instantiate(run, owner, bound, cache=True, nogil=True, _nrt=False)
    return Loops(
        play_battles=instantiate(play_battles, owner, bound, cache=True, _nrt=False),
        # nogil: the planner splits a batch over threads, each with its own scratch.
        rollouts=instantiate(rollouts, owner, bound, cache=True, nogil=True, _nrt=False),
        advance=instantiate(advance, owner, bound, cache=True, _nrt=False),
        run=bound["run"],
        rules=bound,
    )


# Names the templates read from the ruleset (bound by compile_loops); here so that the
# plain templates resolve for tools (mypy, ruff) and fail clearly if called uncompiled.
def _unbound(*_: Any) -> Any:
    raise TypeError("a loop template runs only as compiled by compile_loops")


reset = start = legal = apply = choose = _unbound
HEALTH = MAX_HEALTH = 0
ST: Any = None
CS: Any = None
G: Any = None
