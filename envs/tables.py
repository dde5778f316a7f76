"""The batched env's tables of the Python encoder: what ``envs/stepping.py``'s compiled
``encode``, ``legal_slots`` and reward shaping read, built from the same objects the
Python env uses (its ``ObservationEncoder`` plan, ``ActionCodec`` blocks, the engine's
features at the start of a battle), so that every number is the same float."""

from __future__ import annotations

import numpy as np

from escaramuza.envs.codec import ActionCodec
from escaramuza.envs.observation import _KINDS, _STATUSES, ObservationEncoder
from escaramuza.envs.stepping import LAY
from escaramuza.rules.core.compiled import CompiledKernel
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.model import Side, Status
from escaramuza.rules.core.ruleset import new_battle
from escaramuza.rules.core.scenario import Scenario


def start_features(scenario: Scenario) -> np.ndarray:
    """``Ruleset.features`` of every combatant at the start of a battle of ``scenario``,
    ``(combatants, n_features)``, computed by the engine: the kernel views write over the
    features a battle changes and keep these (the rest are never re-typed)."""
    ruleset = scenario.ruleset
    state = new_battle(scenario, RandomRoller(0))
    table = np.zeros((len(state.combatants), max(ruleset.n_features, 1)), dtype=np.float64)
    for c, combatant in enumerate(state.combatants):
        table[c, : ruleset.n_features] = [float(x) for x in ruleset.features(state, combatant)]
    return table


def encoder_tables(
    encoder: ObservationEncoder,
    codec: ActionCodec,
    scenario: Scenario,
    kernel: CompiledKernel,
    side: int,
    shaping: bool,
) -> tuple[np.ndarray, ...]:
    """The encoder's tables (``escaramuza.envs.stepping``'s ``enc``) for a batched env of
    ``scenario`` whose learner is ``side`` (0, 1, or ``BOTH_SIDES``), from the Python
    encoder's own plan of the scenario."""
    ruleset = scenario.ruleset
    plan = encoder.plan(scenario)
    combatants = scenario.combatants
    n_res = len(encoder.resource_keys)
    res0 = 4 + len(_STATUSES)
    prefix = res0 + 2 * n_res
    timeout = kernel.REASONS.index("timeout") if "timeout" in kernel.REASONS else -1
    values = {
        "PER_SLOT": encoder.per_slot,
        "RES0": res0,
        "COND0": prefix,
        "HOP": encoder.hop_offset,
        "ZONE": encoder.zone_offset,
        "FEAT": encoder.feature_offset,
        "N_RES": n_res,
        "N_FEAT": ruleset.n_features,
        "N_COND": len(encoder.conditions),
        "GLOBALS": encoder.max_combatants * encoder.per_slot,
        "N_KINDS": len(_KINDS),
        "ROUND_LIMIT": scenario.round_limit or 0,
        "SIDE": side,
        "TIMEOUT": timeout,
        "N_ACTIONS": codec.n,
        "ROLLBACK": int(type(kernel).resolve is not CompiledKernel.resolve),
        "SHAPING": int(shaping),
        "AUTO": 0,
    }
    lay = np.array([values[name] for name in LAY], dtype=np.int64)
    nc = len(combatants)
    slot = np.array([c.index for c in combatants], dtype=np.int64)
    has_res = np.zeros((nc, max(n_res, 1)), dtype=np.bool_)
    inv_max = np.zeros((nc, max(n_res, 1)), dtype=np.float64)
    inv_scale = np.zeros(max(n_res, 1), dtype=np.float64)
    for c, combatant in enumerate(combatants):
        base = combatant.index * encoder.per_slot + res0
        for j, key in enumerate(encoder.resource_keys):
            if key in combatant.resources:
                has_res[c, j] = True
                inv_max[c, j] = plan.scale[base + 2 * j]
                inv_scale[j] = plan.scale[base + 2 * j + 1]
    zone_ids = scenario.battlefield.zone_ids
    hops = np.zeros((len(zone_ids), len(zone_ids), 2), dtype=np.float64)
    for a, za in enumerate(zone_ids):
        for b, zb in enumerate(zone_ids):
            hops[a, b] = plan.hop_rows[za][zb]
    status_at = np.array(
        [_STATUSES.index(Status(name)) for name in kernel.STATUSES], dtype=np.int64
    )
    blocks = np.array(
        [[b.offset, b.target_stride, b.item_stride, b.zone_stride] for b in codec.blocks],
        dtype=np.int64,
    )
    features = start_features(scenario)
    # EscaramuzaEnv._shaping's divisors: the target's maximum of the resource, else
    # the ruleset's scale of it, else 1; and each side's size.
    top = np.ones((nc, max(n_res, 1)), dtype=np.float64)
    for c, combatant in enumerate(combatants):
        for j, key in enumerate(encoder.resource_keys):
            top[c, j] = float(combatant.maxima.get(key) or ruleset.resources.get(key, 1.0) or 1.0)
    size = np.array(
        [float(sum(1 for c in combatants if c.side is s)) for s in (Side.HEROES, Side.ENEMIES)]
    )
    return (
        lay,
        slot,
        has_res,
        inv_max,
        inv_scale,
        hops,
        status_at,
        blocks,
        features,
        top,
        size,
    )
