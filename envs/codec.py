"""The flat ``Discrete(N)`` action layout: encode, decode and mask.

The layout is derived only from the ruleset's static ``verbs`` and the env's
static limits, so a learner's action ``k`` means the same thing in every
battle of every scenario the env can load. The mask is derived only from
``ruleset.legal_actions`` (architecture.md, "Environments": the single source
of truth for masks).

Layout: one block per :class:`VerbSpec`, in ``ruleset.verbs`` order. A block
has ``T × I × Z × O`` slots where ``T`` is ``max_combatants`` if the verb takes
a target (else 1), ``I`` is ``max_items`` if it takes an item (else 1), ``Z``
is ``max_zones`` if it takes a zone (else 1) and ``O`` is the number of its
options (or 1). Inside a block the index is
``((target * I + item) * Z + zone) * O + option`` where ``target`` is the
combatant slot (``Combatant.index``), ``item`` the position of the item in the
ACTOR's ``Combatant.items``, ``zone`` the position of the zone in
``state.battlefield.zone_ids`` and ``option`` the position in the verb's
``options``. The actor is never encoded: it is always the pending decision's
actor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from escaramuza.rules.core.model import Action, VerbSpec
from escaramuza.rules.core.ruleset import Ruleset
from escaramuza.rules.core.state import BattleState


class LayoutError(ValueError):
    """A legal action the layout cannot encode: a ruleset that breaks the engine contract."""


@dataclass(frozen=True, slots=True)
class VerbBlock:
    """Where one verb's slots sit in the flat action space and how they are strided."""

    spec: VerbSpec
    offset: int
    size: int
    target_stride: int
    item_stride: int
    zone_stride: int
    option_index: dict[str, int]


class ActionCodec:
    """Maps ``Action`` values to flat indices and back for one ruleset and size limits."""

    __slots__ = (
        "ruleset",
        "max_combatants",
        "max_zones",
        "max_items",
        "blocks",
        "by_verb",
        "n",
        "_memo",
    )

    def __init__(
        self, ruleset: Ruleset, max_combatants: int, max_zones: int, max_items: int
    ) -> None:
        self.ruleset = ruleset
        self.max_combatants = max_combatants
        self.max_zones = max_zones
        self.max_items = max_items
        blocks: list[VerbBlock] = []
        offset = 0
        for spec in ruleset.verbs:
            n_options = len(spec.options) or 1
            n_zones = max_zones if spec.zone else 1
            n_items = max_items if spec.item else 1
            n_targets = max_combatants if spec.target else 1
            zone_stride = n_options
            item_stride = n_zones * zone_stride
            target_stride = n_items * item_stride
            size = n_targets * target_stride
            blocks.append(
                VerbBlock(
                    spec,
                    offset,
                    size,
                    target_stride,
                    item_stride,
                    zone_stride,
                    {o: i for i, o in enumerate(spec.options)},
                )
            )
            offset += size
        self.blocks: tuple[VerbBlock, ...] = tuple(blocks)
        self.by_verb: dict[str, VerbBlock] = {b.spec.name: b for b in blocks}
        #: Size of the flat action space.
        self.n = offset
        # legal_map's memo of encoded actions, for one scenario at a time (see there):
        # (scenario, key → index), swapped as one tuple so a reader never pairs one
        # scenario with another's table.
        self._memo: tuple[object, dict[tuple[object, ...], int]] = (None, {})

    def __reduce__(self) -> tuple[type[ActionCodec], tuple[Ruleset, int, int, int]]:
        # The memo holds a scenario; a copy starts with an empty one.
        return (ActionCodec, (self.ruleset, self.max_combatants, self.max_zones, self.max_items))

    # -- encode ---------------------------------------------------------------
    def encode(self, state: BattleState, action: Action) -> int:
        """The flat index of a legal action of the pending decision."""
        block = self.by_verb.get(action.verb)
        if block is None:
            raise LayoutError(
                f"{self.ruleset.id}: action {action} uses verb {action.verb!r} "
                f"which is not in the ruleset's verbs"
            )
        spec = block.spec
        index = block.offset
        if (action.target is not None) is not spec.target:
            raise self._mismatch(action, "target")
        if action.target is not None:
            index += state.by_id[action.target].index * block.target_stride
        if (action.item is not None) is not spec.item:
            raise self._mismatch(action, "item")
        if action.item is not None:
            items = state.by_id[action.actor].items
            if action.item not in items:
                raise LayoutError(
                    f"{self.ruleset.id}: action {action} names item {action.item!r} "
                    f"which is not among the actor's items {items}"
                )
            index += items.index(action.item) * block.item_stride
        if (action.zone is not None) is not spec.zone:
            raise self._mismatch(action, "zone")
        if action.zone is not None:
            index += state.battlefield.index[action.zone] * block.zone_stride
        if action.option is not None or spec.options:
            option = block.option_index.get(action.option)  # type: ignore[arg-type]
            if option is None:
                raise LayoutError(
                    f"{self.ruleset.id}: action {action} has option {action.option!r}; "
                    f"verb {spec.name!r} takes one of {spec.options}"
                )
            index += option
        return index

    def _mismatch(self, action: Action, param: str) -> LayoutError:
        spec = self.by_verb[action.verb].spec
        declared = "takes" if getattr(spec, param) else "does not take"
        return LayoutError(
            f"{self.ruleset.id}: action {action} does not match its VerbSpec: verb "
            f"{spec.name!r} {declared} a {param}"
        )

    def legal_map(self, state: BattleState, actions: Sequence[Action]) -> dict[int, Action]:
        """Flat index → action for a list of legal actions (the env's per-decision table).

        Every decision re-encodes a handful of actions that earlier decisions of the
        same battle already encoded, so the indices are memoised per scenario, keyed by
        the action's verb, target, zone and option plus, for an item action, the item
        and the actor's ``items`` tuple (the actor is not encoded otherwise). That key
        fixes the index: :meth:`encode` reads nothing else but the static layout,
        the target's ``Combatant.index`` (set by the loader, copied on clone, never
        reassigned by the engine), the zone's position in ``state.battlefield.index``
        (``BattleState`` takes the scenario's battlefield and clones share it) and the
        item's position in the actor's ``items`` (in the key, so even a ruleset that
        replaced a combatant's items would get a fresh entry). Actions that fail to
        encode are never stored, so they raise every time.
        """
        memo = self._memo
        if memo[0] is not state.scenario:
            memo = self._memo = (state.scenario, {})
        known = memo[1]
        by_id = state.by_id
        table: dict[int, Action] = {}
        for action in actions:
            item = action.item
            if item is None:
                key: tuple[object, ...] = (action.verb, action.target, action.zone, action.option)
            else:
                actor = by_id.get(action.actor)
                items = None if actor is None else actor.items
                key = (action.verb, action.target, action.zone, action.option, item, items)
            index = known.get(key)
            if index is None:
                index = known[key] = self.encode(state, action)
            if index in table:
                raise LayoutError(
                    f"{self.ruleset.id}: legal actions {table[index]} and {action} "
                    f"encode to the same index {index}"
                )
            table[index] = action
        return table

    def mask(self, state: BattleState) -> np.ndarray:
        """Boolean mask of the legal actions of the pending decision (all False when over)."""
        mask = np.zeros(self.n, dtype=bool)
        if state.outcome is None:
            for index in self.legal_map(state, state.ruleset.legal_actions(state)):
                mask[index] = True
        return mask

    # -- decode ---------------------------------------------------------------
    def block_of(self, index: int) -> VerbBlock:
        if not 0 <= index < self.n:
            raise IndexError(f"action {index} is outside the action space [0, {self.n})")
        for block in self.blocks:
            if index < block.offset + block.size:
                return block
        raise AssertionError("unreachable: blocks cover the whole space")

    def decode(self, state: BattleState, index: int) -> Action | None:
        """The action a flat index means for the pending decision, or None when a slot it
        names is empty (no combatant in that slot, no such zone or item)."""
        if state.pending is None:
            return None
        block = self.block_of(index)
        spec = block.spec
        rest = index - block.offset
        target_slot, rest = divmod(rest, block.target_stride)
        item_slot, rest = divmod(rest, block.item_stride)
        zone_slot, option_slot = divmod(rest, block.zone_stride)
        actor = state.by_id[state.pending.actor]
        target = zone = item = option = None
        if spec.target:
            if target_slot >= len(state.combatants):
                return None
            target = state.combatants[target_slot].id
            if state.combatants[target_slot].index != target_slot:
                found = [c.id for c in state.combatants if c.index == target_slot]
                if not found:
                    return None
                target = found[0]
        if spec.item:
            if item_slot >= len(actor.items):
                return None
            item = actor.items[item_slot]
        if spec.zone:
            zone_ids = state.battlefield.zone_ids
            if zone_slot >= len(zone_ids):
                return None
            zone = zone_ids[zone_slot]
        if spec.options:
            option = spec.options[option_slot]
        return Action(spec.name, actor.id, target, zone, item, option)

    def describe_layout(self) -> list[str]:
        """One line per verb block: its index range and its parameters (docs, debugging)."""
        lines = []
        for b in self.blocks:
            params = [
                name
                for name, on in (
                    ("target", b.spec.target),
                    ("item", b.spec.item),
                    ("zone", b.spec.zone),
                )
                if on
            ]
            if b.spec.options:
                params.append("option " + "|".join(b.spec.options))
            lines.append(
                f"[{b.offset}, {b.offset + b.size}) {b.spec.name}: "
                + (" × ".join(params) if params else "no parameters")
            )
        return lines
