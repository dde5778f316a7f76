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
  one flag per condition of ``ruleset.conditions`` (also set by the condition's
  ``ruleset.condition_aliases``),
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
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from escaramuza.rules.core.model import DecisionKind, Side, Status
from escaramuza.rules.core.ruleset import Ruleset
from escaramuza.rules.core.state import BattleState

if TYPE_CHECKING:
    # numpy's arrays have the buffer protocol; its stubs declare it from Python 3.12 only
    from typing_extensions import Buffer

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
    fixed), and ``state.battlefield`` is the scenario's (``BattleState`` takes it
    from the scenario and clones share it), so every position can be laid out in
    advance. The hot path then gathers the numbers to scale in one Python list, in
    the order of their positions (per combatant: each resource twice — value /
    maximum and value / scale, interleaved as in the slot — then hops and band,
    then the features), and packs them with ONE ``struct.pack`` into the bytes of
    a whole float64 vector; the format's pad bytes are the other positions, zeros.
    Whole-vector numpy calls then scale, clip and cast to float32: the constant
    flags (present, ally, enemy, learner is heroes) ride in the clip's lower
    bound, which is 1.0 at their positions. The flags that change (acting,
    status, conditions, zone, globals) are written one by one through a
    memoryview, which costs less than a fancy-index assignment at this size.
    Few numpy calls matter more than few Python operations here.
    """

    __slots__ = (
        "scenario",
        "n",
        "acting_at",
        "status_at",
        "zone_at",
        "cond_at",
        "hop_rows",
        "no_hops",
        "res_pairs",
        "res_getters",
        "n_values",
        "reorder",
        "packer",
        "scale",
        "low",
        "high",
    )

    def __init__(self, encoder: ObservationEncoder, scenario: Any) -> None:
        self.scenario = scenario
        combatants = scenario.combatants
        field = scenario.battlefield
        # (hops, band) of every zone seen from every zone, and the zeros used when
        # nobody is acting, so the hot path reads one 2-tuple per combatant.
        hop_table = encoder._hop_table
        self.hop_rows: dict[str, dict[str, tuple[float, float]]] = {}
        for a in field.zone_ids:
            row: dict[str, tuple[float, float]] = {}
            for b in field.zone_ids:
                hops = field.distance(a, b)
                row[b] = hop_table[hops] if hops < len(hop_table) else encoder._far(hops)
            self.hop_rows[a] = row
        self.no_hops: dict[str, tuple[float, float]] = {z: (0.0, 0.0) for z in field.zone_ids}
        self.n = len(combatants)
        per_slot = encoder.per_slot
        bases = [c.index * per_slot for c in combatants]
        self.acting_at = {c.id: base + 3 for c, base in zip(combatants, bases, strict=True)}
        self.status_at: list[dict[Status, int]] = [
            {s: base + 4 + i for i, s in enumerate(_STATUSES)} for base in bases
        ]
        self.zone_at: list[dict[str, int]] = [
            {z: base + encoder.zone_offset + i for z, i in field.index.items()} for base in bases
        ]
        self.cond_at: list[dict[str, int]] = [
            {name: base + at for name, at in encoder.cond_offset.items()} for base in bases
        ]
        res0 = 4 + len(_STATUSES)
        n_features = encoder.ruleset.n_features
        pairs: list[tuple[int, str]] = []
        positions: list[int] = []
        scale_at: dict[int, float] = {}
        self.res_getters: list[Callable[[dict[str, int]], tuple[int, ...]]] = []
        for i, (c, base) in enumerate(zip(combatants, bases, strict=True)):
            present = [
                (j, key, sc)
                for j, (key, sc) in enumerate(encoder.resource_pairs)
                if key in c.resources
            ]
            pairs += [(i, key) for _, key, _ in present]
            keys: list[str] = []
            for j, key, sc in present:
                top = c.maxima.get(key) or 0
                scale_at[base + res0 + 2 * j] = 1.0 / top if top > 0 else 0.0
                scale_at[base + res0 + 2 * j + 1] = 1.0 / sc
                positions += [base + res0 + 2 * j, base + res0 + 2 * j + 1]
                keys += [key, key]
            positions += [base + encoder.hop_offset, base + encoder.hop_offset + 1]
            positions += [base + encoder.feature_offset + k for k in range(n_features)]
            # A C-level itemgetter per combatant naming each key twice (value / maximum,
            # value / scale), so it returns the interleaved tuple; () when no resources.
            if keys:
                self.res_getters.append(itemgetter(*keys))
            else:
                self.res_getters.append(lambda r: ())
        self.res_pairs = pairs
        # struct writes its values in increasing positions. Inside a slot the layout
        # already puts resources, hops and features in that order, and the loader gives
        # each combatant its list position as index, so the order the hot path gathers
        # them in is the packer's; a scenario built with other indices gets one C-level
        # reordering per call instead.
        order = sorted(range(len(positions)), key=positions.__getitem__)
        self.reorder: Callable[[list[float]], tuple[float, ...]] | None = None
        if order != list(range(len(positions))):
            self.reorder = itemgetter(*order)
            positions = [positions[k] for k in order]
        if len(set(positions)) != len(positions):
            raise ValueError(
                f"scenario {getattr(scenario, 'name', scenario)!r}: two combatants share "
                "one observation slot (the same Combatant.index)"
            )
        self.n_values = len(positions)
        fmt = ["<"]
        at = 0
        for pos in positions:
            if pos > at:
                fmt.append(f"{8 * (pos - at)}x")
            fmt.append("d")
            at = pos + 1
        size = encoder.size
        # Pad to the whole vector, so the packed bytes are the full float64 vector.
        if size > at:
            fmt.append(f"{8 * (size - at)}x")
        self.packer = struct.Struct("".join(fmt))
        scale = np.ones(size, dtype=np.float64)
        for pos, value in scale_at.items():
            scale[pos] = value
        self.scale = scale
        # Everything but the values is 0 or a flag in [0, 1], which the bounds leave
        # alone; the always-on flags get 1.0 as their lower bound (see the docstring).
        self.low: dict[Side, np.ndarray] = {}
        for side in _SIDES:
            low = np.full(size, -OBS_BOUND)
            for c, base in zip(combatants, bases, strict=True):
                low[base] = 1.0  # present
                low[base + (1 if c.side is side else 2)] = 1.0  # ally / enemy
            low[encoder.max_combatants * per_slot + 1] = 1.0 if side is Side.HEROES else 0.0
            self.low[side] = low
        self.high = np.full(size, OBS_BOUND)


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
        # An alias sets its condition's flag: the layout does not grow.
        for alias, name in ruleset.condition_aliases.items():
            self.cond_offset[alias] = self.cond_offset[name]
        self.hop_offset = prefix + len(self.conditions)
        self.zone_offset = self.hop_offset + 2
        self.feature_offset = self.zone_offset + max_zones
        self.per_slot = self.feature_offset + ruleset.n_features
        self.n_globals = 2 + len(_KINDS) + len(ruleset.decision_names)
        self.size = max_combatants * self.per_slot + self.n_globals
        self._decision_index: dict[str, int] = {n: i for i, n in enumerate(ruleset.decision_names)}
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

    def encode(self, state: BattleState, side: Side, actor: str | None = None) -> np.ndarray:
        """The observation of ``state`` for the learner playing ``side``.

        The acting combatant (its flag, the distances) is the pending decision's actor,
        or ``actor`` when given: one of a group deciding together
        (``Ruleset.simultaneous``), seen as if its own decision were the pending one.
        """
        plan = self.plan(state.scenario)
        pending = state.pending
        if pending is not None:
            acting = pending.actor if actor is None else actor
            hops = plan.hop_rows[state.by_id[acting].zone]
            ones = [plan.acting_at[acting]]
        else:
            hops = plan.no_hops
            ones = []
        features = self.ruleset.features if self.ruleset.n_features else None
        res_getters = plan.res_getters
        status_at = plan.status_at
        zone_at = plan.zone_at
        values: list[float] = []
        for i, c in enumerate(state.combatants):
            zone = c.zone
            try:
                values += res_getters[i](c.resources)
            except KeyError:
                # A resource the scenario's combatant had is gone: read it as 0.
                for j, k in plan.res_pairs:
                    if j == i:
                        value = c.resources.get(k, 0)
                        values += (value, value)
            values += hops[zone]
            if features is not None:
                values += features(state, c)
            ones.append(status_at[i][c.status])
            ones.append(zone_at[i][zone])
            if c.conditions:
                cond_at = plan.cond_at[i]
                ones += [cond_at[name] for name in c.conditions if name in cond_at]
        if len(values) != plan.n_values:
            raise ValueError(self._length_error(state))
        packed = values if plan.reorder is None else plan.reorder(values)
        # Scale in float64, clip, then cast to float32: the same numbers, in the same
        # order of operations, as scaling each value and storing it in a float32 array.
        # Every call works in fresh arrays (nothing shared between calls or threads).
        work = np.frombuffer(plan.packer.pack(*packed), dtype=np.float64) * plan.scale
        np.maximum(work, plan.low[side], out=work)
        np.minimum(work, plan.high, out=work)
        out = work.astype(np.float32)
        cells: memoryview[float] = memoryview(cast("Buffer", out))
        for at in ones:
            cells[at] = 1.0
        g = self.max_combatants * self.per_slot
        limit = state.scenario.round_limit
        cells[g] = min(state.round / limit, 1.0) if limit else 0.0
        if pending is not None:
            cells[g + 2 + int(pending.kind)] = 1.0
            name = self._decision_index.get(pending.name)
            if name is not None:
                cells[g + 2 + len(_KINDS) + name] = 1.0
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
