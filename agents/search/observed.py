"""The planner's kernel rollouts with the observation of each rollout's end.

A network-guided planner (:mod:`escaramuza.agents.search.guided`) scores a rollout cut at
its horizon by the network's value of the cut state, which it sees as the env sees a
state: the observation of the batched env's compiled encoder (``envs.stepping.encode``).
:func:`observed_rollouts` is a template compiled per ruleset over the kernel's own
rollout loop (``rules.core.loops.rollouts``, one (action, seed) at a time: after it, the
loop's scratch state is that rollout's end) and that encoder, with the batched env's
tables of the scenario (``envs.vector.KernelVectorEnv``). The rules layer never sees an
observation; this module is the planner's, above it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from escaramuza.rules.core.jit import copy_into, instantiate

if TYPE_CHECKING:
    from escaramuza.envs.common import EnvLimits


def observed_rollouts(
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
    outs: Any,
    one: Any,
    enc: Any,
    side: int,
    values: np.ndarray,
    obs: np.ndarray,
) -> None:
    """``rollouts`` of every (``first[a]``, seed ``k``) not yet played (``outs[5][a, k]``
    set: on the first pass all of them), each followed by the observation of its end
    for ``side`` into ``obs[a, k]``. ``outs``: the loop's outputs of shape (actions,
    seeds) — winner, finished, own, foe, actor_out, suspended; ``one``: the same six
    arrays of shape (1, 1), the first action's row (1, width), one seed's key (1, W) and
    length (1,), and the loop's scratch: the two sides' agent codes and the root actor's
    walk. A rollout that suspends ends the call there."""
    todo = outs[5]
    for a in range(first.shape[0]):
        for k in range(seed_keys.shape[0]):
            if not todo[a, k]:
                continue
            copy_into(one[6][0], first[a])
            copy_into(one[7][0], seed_keys[k])
            one[8][0] = seed_len[k]
            rollouts(
                s,
                d,
                d0,
                la,
                one[6],
                one[7],
                one[8],
                stop_round,
                own,
                max_decisions,
                dice,
                arng,
                act,
                one[9],
                one[10],
                one[0],
                one[1],
                one[2],
                one[3],
                one[4],
                one[5],
            )
            outs[0][a, k] = one[0][0, 0]
            outs[1][a, k] = one[1][0, 0]
            outs[2][a, k] = one[2][0, 0]
            outs[3][a, k] = one[3][0, 0]
            outs[4][a, k] = one[4][0, 0]
            todo[a, k] = one[5][0, 0]
            if one[5][0, 0]:
                return  # ``d`` is the suspended rollout's state, for the driver to resolve
            encode(s, d, enc, side, values, obs[a, k])


_COMPILED: dict[str, Any] = {}


def compiled(kernel: Any) -> Any:
    """:func:`observed_rollouts` for ``kernel``'s ruleset (compiled once a process;
    numba caches it with the ruleset's module)."""
    done = _COMPILED.get(kernel.ruleset_id)
    if done is None:
        from escaramuza.envs.vector import stepping

        bound = {"rollouts": kernel.loops.rollouts, "encode": stepping(kernel).encode}
        done = _COMPILED[kernel.ruleset_id] = instantiate(
            observed_rollouts, kernel.owner, bound, cache=True, nogil=True, _nrt=False
        )
    return done


class ObservedBatch:
    """A :class:`~escaramuza.rules.core.kernel.RolloutBatch`'s arrays and ``obs``, the
    observation of each rollout's end for the searching side, ``(actions, seeds, size)``."""

    def __init__(self, outs: tuple[np.ndarray, ...], obs: np.ndarray) -> None:
        self.winner, self.finished, self.own, self.foe, self.actor_out = outs[:5]
        self.obs = obs


_TABLES: dict[tuple[int, int, EnvLimits], tuple[Any, ...]] = {}


def _tables(scenario: Any, side: int, limits: EnvLimits) -> tuple[Any, ...]:
    """The batched env's encoder tables of ``scenario`` for ``side`` (0 heroes) under
    ``limits``, and the size of its observation, built once each."""
    key = (id(scenario), side, limits)
    done = _TABLES.get(key)
    if done is None or done[0] is not scenario:
        from escaramuza.envs.vector import KernelVectorEnv

        env = KernelVectorEnv(
            scenario.ruleset.id,
            1,
            scenario=scenario,
            side="heroes" if side == 0 else "enemies",
            **limits._asdict(),
        )
        done = _TABLES[key] = (scenario, env._enc, env.encoder.size, env.ruleset)
        env.close()
    return done[1:]


def rollouts_with_observations(
    kernel: Any,
    state: Any,
    actions: Any,
    seeds: Any,
    horizon: int | None,
    own_temperament: str | None,
    max_decisions: int,
    limits: EnvLimits | None = None,
) -> ObservedBatch:
    """``kernel.rollouts(state, actions, seeds, …)`` (the same rollouts, value for
    value) and the observation of each one's end for the pending decision's side, as the
    env under ``limits`` encodes it (a guide's network's own; None: the standard ones)."""
    from escaramuza.rules.core import mt
    from escaramuza.rules.core.loops import FAR, WALK_SIZE, new_agent_rng
    from escaramuza.rules.core.model import Side

    d0, first, own = kernel.rollout_start(state, actions, own_temperament)
    pending = state.pending
    side = 0 if pending.side is Side.HEROES else 1
    if limits is None:
        from escaramuza.envs.common import STANDARD_LIMITS

        limits = STANDARD_LIMITS
    enc, size, ruleset = _tables(state.scenario, side, limits)
    keys, lengths = mt.seed_keys(seeds)
    shape = (len(actions), len(seeds))
    outs = (
        np.zeros(shape, dtype=np.int64),
        np.zeros(shape, dtype=np.bool_),
        np.zeros(shape, dtype=np.float64),
        np.zeros(shape, dtype=np.float64),
        np.zeros(shape, dtype=np.bool_),
        np.ones(shape, dtype=np.bool_),
    )
    obs = np.zeros((*shape, size), dtype=np.float32)
    if not (len(actions) and len(seeds)):
        return ObservedBatch(outs, obs)
    one = (
        np.zeros((1, 1), dtype=np.int64),
        np.zeros((1, 1), dtype=np.bool_),
        np.zeros((1, 1), dtype=np.float64),
        np.zeros((1, 1), dtype=np.float64),
        np.zeros((1, 1), dtype=np.bool_),
        np.zeros((1, 1), dtype=np.bool_),
        np.zeros((1, kernel.ACTION_WIDTH), dtype=np.int64),
        np.zeros((1, keys.shape[1]), dtype=keys.dtype),
        np.zeros(1, dtype=lengths.dtype),
        np.zeros(2, dtype=np.int64),
        np.zeros(WALK_SIZE, dtype=np.int64),
    )
    stop = min(state.round + horizon, FAR) if horizon is not None else FAR
    values = np.zeros(len(ruleset.resources) + ruleset.n_features + 1)
    run = compiled(kernel)

    def play(exported: Any, d: Any, la: np.ndarray, act: np.ndarray) -> np.ndarray:
        run(
            exported.static,
            d,
            d0,
            la,
            first,
            keys,
            lengths,
            stop,
            own,
            min(max_decisions, FAR),
            mt.new_state(),
            new_agent_rng(1),
            act,
            outs,
            one,
            enc,
            side,
            values,
            obs,
        )
        suspended: np.ndarray = outs[5]
        return suspended

    kernel.rollout_passes(state, d0, play)
    return ObservedBatch(outs, obs)


# Names the template reads (bound by :func:`compiled`); here so that the plain template
# resolves for tools and fails clearly if called uncompiled.
def _unbound(*_: Any) -> Any:
    raise TypeError("observed_rollouts runs only as compiled by observed.compiled")


rollouts = encode = _unbound
