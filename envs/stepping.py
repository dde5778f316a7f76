"""The batched env's compiled step: many battles, one learner action each, per call.

Templates compiled per ruleset (``rules.core.jit.instantiate``) over the kernel's own
loops (``rules.core.loops``: ``reset``, ``start`` and ``run``, the one loop every entry
point plays through) and its view (``rules/<ruleset>/kernel_view.py``: ``view_combatant``,
``view_pending``, ``action_slots``). They do, lane by lane, what
:class:`~escaramuza.envs.single.EscaramuzaEnv` does in ``reset`` and ``step``: start a
battle on the lane's dice and play the opponent's decisions up to the learner's first
one; take the learner's action, play the opponent up to the learner's next decision;
then write the observation (:class:`~escaramuza.envs.observation.ObservationEncoder`'s
layout, the same float64 operations and one cast to float32), the mask and the legal
rows of the flat action layout (:class:`~escaramuza.envs.codec.ActionCodec`), the
reward and the end.

A lane's battle state is played in a scratch copy (``load``/``store``) and its
generators in place, backed up first where the kernel can suspend: a battle that
suspends for Python (a table entry to compute, ``rules.core.compiled``) leaves its lane
as it was, and is stepped again once Python has resolved it.

The encoder's tables (``enc``, built by ``escaramuza.envs.vector``):

* ``lay`` (int64): :data:`LAY` fields;
* ``slot[c]``: the combatant's observation slot (``Combatant.index``);
* ``has_res[c, j]``, ``inv_max[c, j]``: whether it has resource ``j`` and 1 / its
  maximum (0 without one); ``inv_scale[j]``: 1 / the resource's scale;
* ``hops[a, b, 0:2]``: (hops, band) of zone ``b`` seen from zone ``a``, scaled;
* ``status_at[code]``: the position of a ``CS.STATUS`` code among ``Status``;
* ``blocks[verb, 0:4]``: the codec's offset and target, item, zone strides;
* ``features[c]``: ``Ruleset.features`` at the battle's start, the engine's; the view
  writes over those a battle changes;
* ``top[c, j]``: what a damage to resource ``j`` of ``c`` is divided by, and
  ``size[side]`` how many combatants the side has (``EscaramuzaEnv._shaping``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import literal_unroll

from escaramuza.envs.observation import OBS_BOUND
from escaramuza.envs.single import SHAPING_WEIGHT
from escaramuza.rules.core.dialect import EVERY_SIDE, LOG, RUNNING
from escaramuza.rules.core.jit import copy_into, instantiate, njit
from escaramuza.rules.core.loops import A_SEEDED, DAMAGE, FAR, arm
from escaramuza.rules.core.mt import N, seed_lanes

#: ``lay`` fields: the observation's per-slot layout and globals, the learner's side
#: (:data:`BOTH_SIDES`: every decision is the caller's, each seen by its side), the
#: round limit, the timeout's reason code (-1 if the ruleset has none), the flat action
#: space's size, whether the kernel can suspend a battle (1: the lane's generators
#: are backed up before each step), whether the reward is shaped, and whether the
#: learner's side is played by the kernel's ``agents[side]`` too (1: a new battle is
#: played to its end at once, a baseline on the learner's own battles).
LAY = (
    "PER_SLOT",
    "RES0",
    "COND0",
    "HOP",
    "ZONE",
    "FEAT",
    "N_RES",
    "N_FEAT",
    "N_COND",
    "GLOBALS",
    "N_KINDS",
    "ROUND_LIMIT",
    "SIDE",
    "TIMEOUT",
    "N_ACTIONS",
    "ROLLBACK",
    "SHAPING",
    "AUTO",
)
(
    PER_SLOT,
    RES0,
    COND0,
    HOP,
    ZONE,
    FEAT,
    N_RES,
    N_FEAT,
    N_COND,
    GLOBALS,
    N_KINDS,
    ROUND_LIMIT,
    SIDE,
    TIMEOUT,
    N_ACTIONS,
    ROLLBACK,
    SHAPING,
    AUTO,
) = range(len(LAY))

#: The batch arrays of a step (``lanes``), a row per lane, in this order: the dice and
#: agents' generators, the learner's legal rows, its mask and each slot's row in them,
#: how many rows are legal, the step's reward, ends and status, the final state and
#: globals of a battle that ended, the legal slots in row order, the shaping's running
#: sum, the side observed when both sides are the caller's, and the globals of a battle
#: that suspended (what the driver resolves: never the final globals, which stay the last
#: ended battle's while its lane's next battle suspends).
LANE = (
    "DICE",
    "ARNG",
    "LA",
    "MASK",
    "ROWS",
    "N_LEGAL",
    "REWARD",
    "TERMINATED",
    "TRUNCATED",
    "STATUS",
    "FINAL_CS",
    "FINAL_G",
    "SLOTS",
    "SHAPING",
    "ACTING",
    "SUSPENDED_G",
)
(
    L_DICE,
    L_ARNG,
    L_LA,
    L_MASK,
    L_ROWS,
    L_N_LEGAL,
    L_REWARD,
    L_TERMINATED,
    L_TRUNCATED,
    L_STATUS,
    L_FINAL_CS,
    L_FINAL_G,
    L_SLOTS,
    L_SHAPING,
    L_ACTING,
    L_SUSPENDED_G,
) = range(len(LANE))

#: ``status[b]`` after a call: the lane's step was taken; it suspended (its arrays are
#: as before the call); its damage log overflowed (the step cannot be shaped).
TAKEN = 0
SUSPENDED = 1
OVERFLOW = 2
#: ``lay[SIDE]`` when both sides are the caller's (the batched AEC env).
BOTH_SIDES = EVERY_SIDE
#: ``EscaramuzaEnv``'s shaping weight.
WEIGHT = SHAPING_WEIGHT

BOUND = OBS_BOUND


@njit(cache=True, _nrt=False)
def load(pairs: Any, b: int) -> None:
    """Each ``(batch, scratch)`` pair: the scratch becomes lane ``b``'s array."""
    for p in literal_unroll(pairs):
        copy_into(p[1], p[0][b])


@njit(cache=True, _nrt=False)
def store(pairs: Any, b: int) -> None:
    """Each ``(batch, scratch)`` pair: lane ``b``'s array becomes the scratch."""
    for p in literal_unroll(pairs):
        copy_into(p[0][b], p[1])


@njit(cache=True, _nrt=False)
def keep_rows(la_b: np.ndarray, b: int, la: np.ndarray, n: int) -> None:
    """Lane ``b`` keeps the learner's ``n`` legal rows (only those its slots name)."""
    for i in range(n):
        for j in range(la.shape[1]):
            la_b[b, i, j] = la[i, j]


@njit(cache=True, _nrt=False)
def illegal_lanes(
    actions: np.ndarray, deciding: np.ndarray, n_b: np.ndarray, mask_b: np.ndarray, out: np.ndarray
) -> int:
    """``out[b]``: lane ``b`` is ``deciding``, has a decision pending (``n_b[b] > 0``) and
    ``actions[b]`` is not one of its legal slots; how many are."""
    count = 0
    for b in range(actions.shape[0]):
        a = actions[b]
        legal = 0 <= a < mask_b.shape[1] and mask_b[b, a]
        out[b] = deciding[b] and n_b[b] > 0 and not legal
        count += out[b]
    return count


@njit(cache=True, nogil=True, _nrt=False)
def _seed_group(states_b: np.ndarray, count: int, group: Any, seeded: int) -> None:
    """The ``count`` generators gathered in ``group`` (:func:`seed_beginning`) seeded side
    by side (``mt.seed_lanes``) and written to their lanes' rows of ``states_b``; with
    ``seeded`` >= 0, the rows' word ``seeded`` is set to 1 (an agents' generator)."""
    states, keys, lens, rows = group[0], group[1], group[2], group[3]
    # A group of fewer is filled up with copies of its last key: eight side by side take
    # less time than fewer (mt.seed_lanes), and the extra rows are never read.
    for k in range(count, keys.shape[0]):
        for j in range(keys.shape[1]):
            keys[k, j] = keys[count - 1, j]
        lens[k] = lens[count - 1]
    seed_lanes(states, keys, lens, 0)
    for k in range(count):
        for w in range(states.shape[1]):
            states_b[rows[k], w] = states[k, w]
        if seeded >= 0:
            states_b[rows[k], seeded] = 1


@njit(cache=True, nogil=True, _nrt=False)
def seed_beginning(
    dice_b: np.ndarray,
    arng_b: np.ndarray,
    words: Any,
    todo: np.ndarray,
    begin: np.ndarray,
    lo: int,
    hi: int,
    group: Any,
) -> None:
    """The generators of lanes ``lo`` to ``hi`` that begin a battle (``todo`` and
    ``begin``), with their key words ``words`` (``(dice keys, lengths, agents' keys,
    lengths)``, a row a lane): every dice generator seeded (``mt.seed_key``), eight side
    by side (``mt.seed_lanes``: half the time of one by one); every agents' generator
    armed with its key (``loops.arm``), and seeded now, eight side by side, where the
    lane's last battle drew from it (a guess: seeding costs less side by side, and
    nothing if the battle never draws) — else at its first draw, if any
    (``agent_ready``). Either way it is the same generator. ``group``: ``(states, keys,
    lengths, rows)`` of :data:`~escaramuza.rules.core.mt.LANES` rows, the thread's."""
    group_keys, group_lens, rows = group[1], group[2], group[3]
    for agents in range(2):
        keys = words[2] if agents else words[0]
        lens = words[3] if agents else words[1]
        count = 0
        for b in range(lo, hi):
            if not (todo[b] and begin[b]):
                continue
            if agents:
                # Its last battle drew: it was seeded and its next word is no longer the
                # first (a seeded generator's index is N until its first draw).
                drew = arng_b[b, A_SEEDED] != 0 and arng_b[b, N] != N
                arm(arng_b[b], keys[b], lens[b])
                if not drew:
                    continue
            rows[count] = b
            for j in range(keys.shape[1]):
                group_keys[count, j] = keys[b, j]
            group_lens[count] = lens[b]
            count += 1
            if count == group_keys.shape[0]:
                _seed_group(arng_b if agents else dice_b, count, group, A_SEEDED if agents else -1)
                count = 0
        if count > 0:
            _seed_group(arng_b if agents else dice_b, count, group, A_SEEDED if agents else -1)


@njit(cache=True, nogil=True, _nrt=False)
def copy_mask(out: Any, mask_b: np.ndarray, b: int) -> None:
    """Lane ``b``'s mask into the array the step returns (``out[1]``), as soon as the
    lane is done: its row is still in the cache of the thread that wrote it."""
    mask = out[1]
    for j in range(mask_b.shape[1]):
        mask[b, j] = mask_b[b, j]


@njit(cache=True, _nrt=False)
def clip(x: float) -> float:
    """``x`` inside the observation box (``np.maximum`` then ``np.minimum``)."""
    return min(max(x, -BOUND), BOUND)


# -- the templates (plain Python; compile_stepping compiles them per ruleset) ----------------
def encode(s: Any, d: Any, enc: Any, side: int, values: np.ndarray, out: np.ndarray) -> None:
    """``ObservationEncoder.encode`` of the state ``d`` for ``side`` (0 heroes)."""
    lay, slot, has_res, inv_max, inv_scale, hops, status_at, features = (
        enc[0],
        enc[1],
        enc[2],
        enc[3],
        enc[4],
        enc[5],
        enc[6],
        enc[8],
    )
    stat = s[0]
    cs = d[0]
    g = d[1]
    for i in range(out.shape[0]):
        out[i] = 0.0
    per_slot = lay[PER_SLOT]
    n_res = lay[N_RES]
    acting = g[G.ACTOR] if g[G.OUTCOME] == RUNNING else -1
    for c in range(cs.shape[0]):
        base = slot[c] * per_slot
        out[base] = 1.0
        out[base + (1 if stat[c, ST.SIDE] == side else 2)] = 1.0
        if c == acting:
            out[base + 3] = 1.0
        out[base + 4 + status_at[cs[c, CS.STATUS]]] = 1.0
        for k in range(lay[N_FEAT]):
            values[n_res + k] = features[c, k]
        bits = view_combatant(s, d, c, values)
        at = base + lay[RES0]
        for j in range(n_res):
            if has_res[c, j]:
                out[at + 2 * j] = clip(values[j] * inv_max[c, j])
                out[at + 2 * j + 1] = clip(values[j] * inv_scale[j])
        for k in range(lay[N_COND]):
            if (bits >> k) & 1:
                out[base + lay[COND0] + k] = 1.0
        zone = cs[c, CS.ZONE]
        if acting >= 0:
            from_zone = cs[acting, CS.ZONE]
            out[base + lay[HOP]] = clip(hops[from_zone, zone, 0])
            out[base + lay[HOP] + 1] = clip(hops[from_zone, zone, 1])
        out[base + lay[ZONE] + zone] = 1.0
        for k in range(lay[N_FEAT]):
            out[base + lay[FEAT] + k] = clip(values[n_res + k])
    at = lay[GLOBALS]
    limit = lay[ROUND_LIMIT]
    out[at] = min(g[G.ROUND] / limit, 1.0) if limit else 0.0
    out[at + 1] = 1.0 if side == 0 else 0.0
    if acting >= 0:
        kind, name = view_pending(s, d)
        out[at + 2 + kind] = 1.0
        if name >= 0:
            out[at + 2 + lay[N_KINDS] + name] = 1.0


def legal_slots(
    s: Any,
    d: Any,
    enc: Any,
    la: np.ndarray,
    n: int,
    before: int,
    mask: np.ndarray,
    rows: np.ndarray,
    slots: np.ndarray,
) -> None:
    """The mask and each legal slot's row in ``la`` (``rows``, -1 elsewhere) of the
    learner's ``n`` legal rows, and their slots in row order (``slots[:n]``); over
    (``n`` 0), only slot 0, which reports the end. ``before``: how many slots the lane's
    last mask had (``slots`` holds them; only those are cleared)."""
    blocks = enc[7]
    for k in range(max(before, 1)):
        i = slots[k]
        mask[i] = False
        rows[i] = -1
    if n == 0:
        mask[0] = True
        slots[0] = 0
        return
    for i in range(n):
        verb, target, item, zone, option = action_slots(s, d, la[i])
        index = (
            blocks[verb, 0]
            + target * blocks[verb, 1]
            + item * blocks[verb, 2]
            + zone * blocks[verb, 3]
            + option
        )
        mask[index] = True
        rows[index] = i
        slots[i] = index


def damages(s: Any, d: Any, enc: Any, x: float, read: bool) -> tuple[float, bool]:
    """``EscaramuzaEnv._shaping``'s running sum ``x`` after the damages of the kernel's
    damage log (``rules.core.loops.DAMAGE``, the engine's ``Damaged`` events in order;
    ``read`` False: none counted) — a share of the learner's own damage taken, of the
    damage its side dealt the other — and whether the log overflowed; the log is
    cleared."""
    stat = s[0]
    g = d[1]
    log = d[LOG]
    top, size, side = enc[9], enc[10], enc[0][SIDE]
    n = g[G.DAMAGES]
    g[G.DAMAGES] = 0
    if n > log.shape[0]:
        return x, True
    if not read:
        return x, False
    for k in range(n):
        amount = log[k, DAMAGE.AMOUNT]
        if amount <= 0:
            continue
        target = log[k, DAMAGE.TARGET]
        share = amount / top[target, log[k, DAMAGE.RESOURCE]] / size[stat[target, ST.SIDE]]
        if stat[target, ST.SIDE] == side:
            x -= share
        else:
            source = log[k, DAMAGE.SOURCE]
            if source >= 0 and stat[source, ST.SIDE] == side:
                x += share
    return x, False


@njit(cache=True, _nrt=False)
def outcome_reward(winner: int, side: int, draw_reward: float) -> float:
    """The end's reward to ``side`` (``EscaramuzaEnv``: +1 won, −1 lost, ``draw_reward``
    when nobody won); both sides the caller's, the heroes' (the enemies' is its
    opposite but for a draw)."""
    mine = 0 if side == BOTH_SIDES else side
    if winner == mine:
        return 1.0
    if winner == 1 - mine:
        return -1.0
    return draw_reward


def step_lanes(
    s: Any,
    d0: Any,
    pairs: Any,
    d: Any,
    enc: Any,
    lanes: Any,
    todo: np.ndarray,
    begin: np.ndarray,
    actions: np.ndarray,
    dice_keys: np.ndarray,
    dice_len: np.ndarray,
    agent_keys: np.ndarray,
    agent_len: np.ndarray,
    agents: np.ndarray,
    draw_reward: float,
    illegal_penalty: float,
    scratch: Any,
    out: Any,
    lo: int,
    hi: int,
) -> int:
    """Every lane ``b`` from ``lo`` to ``hi`` (the calling thread's) with ``todo[b]``: a
    new battle when ``begin[b]`` (the lane's keys
    row ``b``), else the learner's flat action ``actions[b]``; then the opponent up to
    the learner's next decision, and the lane's outputs.

    ``pairs``: the dynamic bundle's ``(batch, scratch)`` arrays (``d`` is the scratch
    tuple; the lane's generators are its own rows, backed up in ``scratch`` first when
    ``lay[ROLLBACK]``); ``agents[side]``: the agent code of each side's decisions (the
    learner's is never read: ``run`` stops there); ``lanes``: the batch arrays
    (:data:`LANE`); ``scratch``: ``(saved dice, saved arng, values, la, group)`` (the
    legal rows are listed in ``la``, kept in the lane's only with its state: a suspended
    lane's rows stay those its learner's action names; ``group``:
    :func:`seed_beginning`'s); ``out``: the ``(obs, mask)`` arrays the step
    returns. A lane that takes its step (or no-ops an illegal action) has its
    observation encoded straight into its row of ``out[0]`` — a lane keeps no copy of
    its own (:func:`encode_lanes` makes one again from its state) — and its mask copied
    into ``out[1]``; the rows of the other lanes are the caller's. Returns how many lanes
    did not take their step (``status`` SUSPENDED or OVERFLOW)."""
    lay = enc[0]
    dice_b, arng_b, la_b, mask_b = lanes[L_DICE], lanes[L_ARNG], lanes[L_LA], lanes[L_MASK]
    rows_b, n_b, reward_b = lanes[L_ROWS], lanes[L_N_LEGAL], lanes[L_REWARD]
    term_b, trunc_b, status_b = lanes[L_TERMINATED], lanes[L_TRUNCATED], lanes[L_STATUS]
    final_cs, final_g, slots_b = lanes[L_FINAL_CS], lanes[L_FINAL_G], lanes[L_SLOTS]
    shaping_b = lanes[L_SHAPING]
    acting_b, suspended_g = lanes[L_ACTING], lanes[L_SUSPENDED_G]
    stat = s[0]
    saved_dice, saved_arng, values, la = scratch[0], scratch[1], scratch[2], scratch[3]
    cs = d[0]
    g = d[1]
    side = lay[SIDE]
    waiting = 0
    seed_beginning(
        dice_b,
        arng_b,
        (dice_keys, dice_len, agent_keys, agent_len),
        todo,
        begin,
        lo,
        hi,
        scratch[4],
    )
    for b in range(lo, hi):
        if not todo[b]:
            continue
        reward = 0.0
        dice = dice_b[b]
        arng = arng_b[b]
        if lay[ROLLBACK]:
            copy_into(saved_dice, dice)
            copy_into(saved_arng, arng)
        first = False
        i = 0
        if begin[b]:
            # The generators are seeded and armed already (seed_beginning).
            reset(s, d, d0)
            start(s, d, dice)
        else:
            load(pairs, b)
            if g[G.OUTCOME] == RUNNING:
                a = actions[b]
                i = rows_b[b, a] if 0 <= a < lay[N_ACTIONS] else -1
                if i < 0:
                    # A no-op (the caller raised before the call if illegal actions
                    # raise): nothing changes but the penalty.
                    status_b[b] = TAKEN
                    reward_b[b] = -illegal_penalty
                    term_b[b] = False
                    trunc_b[b] = False
                    learner = acting_b[b] if side == BOTH_SIDES else side
                    encode(s, d, enc, learner, values, out[0][b])
                    copy_mask(out, mask_b, b)
                    continue
                first = True
        # The learner's action, then the opponent up to the caller's next decision (every
        # decision when both sides are the caller's; none when AUTO plays the learner).
        caller = -1 if lay[AUTO] == 1 else (EVERY_SIDE if side == BOTH_SIDES else side)
        n = run(s, d, la, la_b[b, i], first, caller, agents, FAR, FAR, -1, la[0], dice, arng)
        learner = side
        if side == BOTH_SIDES:
            learner = stat[g[G.ACTOR], ST.SIDE] if g[G.OUTCOME] == RUNNING else acting_b[b]
        if g[G.SUSPEND] != 0:
            status_b[b] = SUSPENDED
            waiting += 1
            copy_into(suspended_g[b], g)
            copy_into(dice, saved_dice)
            copy_into(arng, saved_arng)
            continue
        # The opponent's opening decisions (begin) are not the learner's: never shaped.
        before_x = 0.0 if begin[b] else shaping_b[b]
        x, overflow = damages(s, d, enc, before_x, lay[SHAPING] == 1 and not begin[b])
        if lay[SHAPING]:
            if overflow:
                status_b[b] = OVERFLOW
                waiting += 1
                continue
            if not begin[b]:
                reward = WEIGHT * (math.tanh(x) - math.tanh(before_x))
            shaping_b[b] = x
        terminated = False
        truncated = False
        if g[G.OUTCOME] != RUNNING and (not begin[b] or lay[AUTO] == 1):
            reward += outcome_reward(g[G.OUTCOME], side, draw_reward)
            truncated = g[G.REASON] == lay[TIMEOUT]
            terminated = not truncated
            copy_into(final_cs[b], cs)
            copy_into(final_g[b], g)
        status_b[b] = TAKEN
        reward_b[b] = reward
        term_b[b] = terminated
        trunc_b[b] = truncated
        before = n_b[b]
        n_b[b] = n
        if side == BOTH_SIDES:
            acting_b[b] = learner
        encode(s, d, enc, learner, values, out[0][b])
        legal_slots(s, d, enc, la, n, before, mask_b[b], rows_b[b], slots_b[b])
        store(pairs, b)
        keep_rows(la_b, b, la, n)
        copy_mask(out, mask_b, b)
    return waiting


def encode_lanes(
    s: Any,
    pairs: Any,
    d: Any,
    enc: Any,
    lanes: Any,
    which: np.ndarray,
    values: np.ndarray,
    out: np.ndarray,
) -> None:
    """Every lane ``b`` with ``which[b]``: the observation of its battle's state as the
    step last left it, into ``out[b]`` — what that step wrote into the array it returned
    (the same state, the same side: the lane's learner, or ``acting[b]`` when both sides
    are the caller's). A view reads only the lane's kept arrays (``pairs``)."""
    side = enc[0][SIDE]
    acting_b = lanes[L_ACTING]
    for b in range(which.shape[0]):
        if which[b]:
            load(pairs, b)
            encode(s, d, enc, acting_b[b] if side == BOTH_SIDES else side, values, out[b])


class Stepping:
    """A ruleset's compiled batched step (:func:`compile_stepping`)."""

    def __init__(self, step_lanes: Any, encode: Any, encode_lanes: Any) -> None:
        self.step_lanes = step_lanes
        self.encode = encode
        #: Compiled at its first call (``KernelVectorEnv.observations``), not with the step.
        self.encode_lanes = encode_lanes


def compile_stepping(owner: str, rules: dict[str, Any], view: Any) -> Stepping:
    """The batched step compiled for one ruleset (module ``owner``, whose numba cache
    files they get) from its loops' rules (``Loops.rules``, ``run`` among them) and its
    view module."""

    bound = {
        **rules,
        "view_combatant": view.view_combatant,
        "view_pending": view.view_pending,
        "action_slots": view.action_slots,
    }
    bound["damages"] = instantiate(damages, owner, bound, cache=True, _nrt=False)
    encoded = instantiate(encode, owner, bound, cache=True, _nrt=False)
    legal = instantiate(legal_slots, owner, bound, cache=True, _nrt=False)
    stepped = instantiate(
        step_lanes,
        owner,
        {**bound, "encode": encoded, "legal_slots": legal},
        cache=True,
        nogil=True,
        _nrt=False,
    )
    reencoded = instantiate(
        encode_lanes, owner, {**bound, "encode": encoded}, cache=True, nogil=True, _nrt=False
    )
    return Stepping(stepped, encoded, reencoded)


# Names the templates read from the ruleset (bound by compile_stepping); here so that the
# plain templates resolve for tools and fail clearly if called uncompiled.
def _unbound(*_: Any) -> Any:
    raise TypeError("a stepping template runs only as compiled by compile_stepping")


reset = start = run = view_combatant = view_pending = action_slots = _unbound

ST: Any = None
CS: Any = None
G: Any = None
