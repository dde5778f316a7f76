"""The fixed-size ``Box(float32)`` observation, from one side's point of view.

Sizes come from the ruleset's static description (``resources``,
``conditions``, ``band_names``, ``decision_names``, ``n_features``) and the
env's static limits, never from the scenario, so one learner can play every
scenario of a ruleset. Ruleset-specific numbers (characteristic dice, armour,
ammo…) come from ``ruleset.features`` — the one hook; the env never asks which
ruleset it is.

Layout (``max_combatants`` slots of ``per_slot`` numbers, then the globals):

per slot, in ``Combatant.index`` order (scenario order):
  present, ally, enemy, acting,
  one flag per :class:`Status` (active, down, defeated, dead, fled),
  per resource of ``ruleset.resources``: value / maximum, value / scale,
  one flag per condition of ``ruleset.conditions``,
  hop distance from the acting combatant / (max_zones - 1),
  band from the acting combatant / (number of bands - 1),
  zone one-hot over ``max_zones`` (position in ``battlefield.zone_ids``),
  ``ruleset.n_features`` ruleset features;
globals:
  round / round_limit, learner is heroes,
  one-hot of the pending :class:`DecisionKind` (turn, reaction, choice),
  one-hot of the pending decision's name over ``ruleset.decision_names``.

Empty slots, the distances when nobody is acting (battle over) and a decision
name not in ``decision_names`` are all zeros. Resources and features are
clipped to ``[-OBS_BOUND, OBS_BOUND]`` so a value outside its typical range
never leaves the space.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from operator import itemgetter
from typing import Any

import numpy as np

from escaramuza.rules.core.model import DecisionKind, Side, Status
from escaramuza.rules.core.ruleset import Ruleset
from escaramuza.rules.core.state import BattleState

#: Bound of the observation box; values are clipped into [-OBS_BOUND, OBS_BOUND].
OBS_BOUND = 10.0

_STATUSES: tuple[Status, ...] = tuple(Status)
_STATUS_INDEX: dict[Status, int] = {s: i for i, s in enumerate(_STATUSES)}
_KINDS: tuple[DecisionKind, ...] = tuple(DecisionKind)
_SIDES: tuple[Side, ...] = tuple(Side)


class _Plan:
    """Flat positions of every number of one scenario's combatants, computed once.

    The combatants of a battle are clones of the scenario's, in the same order
    with the same ``index``, ``items`` and ``maxima`` (never copied on clone, so
    fixed), so every position can be laid out in advance. The hot path then
    gathers the values in one Python list (per combatant: hops, band, the
    resources twice — for value / maximum and value / scale — then the
    features), scales them with one multiplication and writes them with one
    fancy-index assignment; one-hot flags go in with a second one. Few numpy
    calls matter more than few Python operations at this size.
    """

    __slots__ = (
        "scenario",
        "n",
        "templates",
        "acting_at",
        "status_at",
        "zone_at",
        "cond_base",
        "distances",
        "res_pairs",
        "res_getters",
        "values_at",
        "scale",
        "n_values",
        "packer",
        "low",
        "high",
    )

    def __init__(self, encoder: ObservationEncoder, scenario: Any) -> None:
        self.scenario = scenario
        combatants = scenario.combatants
        field = scenario.battlefield
        # The battlefield's hop table, read once per step as one dict row.
        self.distances: dict[str, dict[str, int]] = {
            a: {b: field.distance(a, b) for b in field.zone_ids} for a in field.zone_ids
        }
        self.n = len(combatants)
        per_slot = encoder.per_slot
        bases = [c.index * per_slot for c in combatants]
        self.templates: dict[Side, np.ndarray] = {}
        for side in _SIDES:
            template = np.zeros(encoder.size, dtype=np.float32)
            for c, base in zip(combatants, bases, strict=True):
                template[base] = 1.0  # present
                template[base + (1 if c.side is side else 2)] = 1.0  # ally / enemy
            template[encoder.max_combatants * per_slot + 1] = 1.0 if side is Side.HEROES else 0.0
            self.templates[side] = template
        self.acting_at = {c.id: base + 3 for c, base in zip(combatants, bases, strict=True)}
        self.status_at = [base + 4 for base in bases]
        self.zone_at = [base + encoder.zone_offset for base in bases]
        self.cond_base = bases
        res0 = 4 + len(_STATUSES)
        n_features = encoder.ruleset.n_features
        pairs: list[tuple[int, str]] = []
        values_at: list[int] = []
        scale: list[float] = []
        self.res_getters: list[Callable[[dict[str, int]], tuple[int, ...]]] = []
        for i, (c, base) in enumerate(zip(combatants, bases, strict=True)):
            values_at += [base + encoder.hop_offset, base + encoder.hop_offset + 1]
            scale += [1.0, 1.0]
            present = [
                (j, key, sc) for j, (key, sc) in enumerate(encoder.resource_pairs)
                if key in c.resources
            ]
            pairs += [(i, key) for _, key, _ in present]
            for j, key, _ in present:
                values_at.append(base + res0 + 2 * j)
                top = c.maxima.get(key) or 0
                scale.append(1.0 / top if top > 0 else 0.0)
            for j, _, sc in present:
                values_at.append(base + res0 + 2 * j + 1)
                scale.append(1.0 / sc)
            values_at += [base + encoder.feature_offset + k for k in range(n_features)]
            scale += [1.0] * n_features
            # A C-level itemgetter per combatant, returning a tuple even for one key.
            keys = [key for _, key, _ in present]
            if len(keys) == 1:
                self.res_getters.append(lambda r, k=keys[0]: (r[k],))
            elif keys:
                self.res_getters.append(itemgetter(*keys))
            else:
                self.res_getters.append(lambda r: ())
        self.res_pairs = pairs
        self.values_at = np.array(values_at, dtype=np.intp)
        self.scale = np.array(scale, dtype=np.float64)
        self.n_values = len(values_at)
        self.packer = struct.Struct(f"<{self.n_values}d")
        self.low = np.full(self.n_values, -OBS_BOUND)
        self.high = np.full(self.n_values, OBS_BOUND)


class ObservationEncoder:
    """Builds the observation vector of a battle state for one side."""

    __slots__ = (
        "ruleset",
        "max_combatants",
        "max_zones",
        "resource_keys",
        "resource_scales",
        "resource_pairs",
        "conditions",
        "n_bands",
        "per_slot",
        "n_globals",
        "size",
        "cond_offset",
        "hop_offset",
        "zone_offset",
        "feature_offset",
        "_decision_index",
        "_hop_scale",
        "_band_scale",
        "_hop_table",
        "_plan",
    )

    def __init__(self, ruleset: Ruleset, max_combatants: int, max_zones: int) -> None:
        self.ruleset = ruleset
        self.max_combatants = max_combatants
        self.max_zones = max_zones
        self.resource_keys: tuple[str, ...] = tuple(ruleset.resources)
        self.resource_scales: tuple[float, ...] = tuple(
            float(ruleset.resources[k]) or 1.0 for k in self.resource_keys
        )
        self.resource_pairs: tuple[tuple[str, float], ...] = tuple(
            zip(self.resource_keys, self.resource_scales, strict=True)
        )
        self.conditions: tuple[str, ...] = tuple(ruleset.conditions)
        self.n_bands = len(ruleset.band_names)
        prefix = 4 + len(_STATUSES) + 2 * len(self.resource_keys)
        self.cond_offset: dict[str, int] = {
            name: prefix + i for i, name in enumerate(self.conditions)
        }
        self.hop_offset = prefix + len(self.conditions)
        self.zone_offset = self.hop_offset + 2
        self.feature_offset = self.zone_offset + max_zones
        self.per_slot = self.feature_offset + ruleset.n_features
        self.n_globals = 2 + len(_KINDS) + len(ruleset.decision_names)
        self.size = max_combatants * self.per_slot + self.n_globals
        self._decision_index: dict[str, int] = {
            n: i for i, n in enumerate(ruleset.decision_names)
        }
        self._hop_scale = 1.0 / max(1, max_zones - 1)
        self._band_scale = 1.0 / max(1, self.n_bands - 1)
        # band() maps hops to a band and nothing else, so (hops, band) is tabulated once.
        self._hop_table: list[tuple[float, float]] = [
            (min(h * self._hop_scale, 1.0), min(ruleset.band(h) * self._band_scale, 1.0))
            for h in range(max_zones + 1)
        ]
        self._plan: _Plan | None = None

    def __reduce__(self) -> tuple[type[ObservationEncoder], tuple[Ruleset, int, int]]:
        # The plan holds itemgetters and lambdas, which do not pickle; it is rebuilt lazily.
        return (ObservationEncoder, (self.ruleset, self.max_combatants, self.max_zones))

    def plan(self, scenario: Any) -> _Plan:
        plan = self._plan
        if plan is None or plan.scenario is not scenario:
            plan = self._plan = _Plan(self, scenario)
        return plan

    def encode(self, state: BattleState, side: Side) -> np.ndarray:
        """The observation of ``state`` for the learner playing ``side``."""
        plan = self.plan(state.scenario)
        combatants = state.combatants
        out = plan.templates[side].copy()
        pending = state.pending
        zone_index = state.battlefield.index
        status_at = plan.status_at
        zone_at = plan.zone_at
        ones = [status_at[i] + _STATUS_INDEX[c.status] for i, c in enumerate(combatants)]
        ones += [zone_at[i] + zone_index[c.zone] for i, c in enumerate(combatants)]
        if pending is not None:
            here = state.by_id[pending.actor].zone
            ones.append(plan.acting_at[pending.actor])
        else:
            here = None
        hop_table = self._hop_table
        n_hops = len(hop_table)
        row = plan.distances[here] if here is not None else None
        features = self.ruleset.features if self.ruleset.n_features else None
        values: list[float] = []
        for i, c in enumerate(combatants):
            if row is None:
                values += (0.0, 0.0)
            else:
                hops = row[c.zone]
                values += hop_table[hops] if hops < n_hops else self._far(hops)
            try:
                resources = plan.res_getters[i](c.resources)
            except KeyError:
                # A resource the scenario's combatant had is gone: read it as 0.
                resources = tuple(c.resources.get(k, 0) for j, k in plan.res_pairs if j == i)
            values += resources
            values += resources
            if features is not None:
                values += features(state, c)
            if c.conditions:
                base = plan.cond_base[i]
                for name in c.conditions:
                    at = self.cond_offset.get(name)
                    if at is not None:
                        ones.append(base + at)
        if len(values) != plan.n_values:
            raise ValueError(self._length_error(state))
        # struct.pack + frombuffer converts the list faster than np.array; bounds are
        # arrays because ufuncs with scalar operands pay a conversion on every call.
        scaled = np.frombuffer(plan.packer.pack(*values), dtype=np.float64) * plan.scale
        np.maximum(scaled, plan.low, out=scaled)
        np.minimum(scaled, plan.high, out=scaled)
        out[plan.values_at] = scaled
        out[ones] = 1.0
        g = self.max_combatants * self.per_slot
        limit = state.scenario.round_limit
        out[g] = min(state.round / limit, 1.0) if limit else 0.0
        if pending is not None:
            out[g + 2 + int(pending.kind)] = 1.0
            name = self._decision_index.get(pending.name)
            if name is not None:
                out[g + 2 + len(_KINDS) + name] = 1.0
        return out

    def _far(self, hops: int) -> tuple[float, float]:
        return (1.0, min(self.ruleset.band(hops) * self._band_scale, 1.0))

    def _length_error(self, state: BattleState) -> str:
        n = self.ruleset.n_features
        for c in state.combatants:
            got = len(self.ruleset.features(state, c))
            if got != n:
                return (
                    f"{self.ruleset.id}: features() returned {got} values for {c.id!r}; "
                    f"n_features is {n}"
                )
        return f"{self.ruleset.id}: a combatant's resources changed keys during the battle"

    def slot_layout(self) -> list[str]:
        """Names of the numbers of one combatant slot, in order (docs and tests)."""
        names = ["present", "ally", "enemy", "acting"]
        names += [f"status.{s.value}" for s in _STATUSES]
        for key in self.resource_keys:
            names += [f"{key}/max", f"{key}/scale"]
        names += [f"condition.{c}" for c in self.conditions]
        names += ["hops", "band"]
        names += [f"zone[{i}]" for i in range(self.max_zones)]
        names += [f"feature[{i}]" for i in range(self.ruleset.n_features)]
        return names

    def global_layout(self) -> list[str]:
        names = ["round/round_limit", "learner_is_heroes"]
        names += [f"kind.{k.name.lower()}" for k in _KINDS]
        names += [f"decision.{n}" for n in self.ruleset.decision_names]
        return names
