"""The Python side every ruleset's kernel shares: export, refusal, chunks, read-back.

A ruleset's kernel (docs/fast-path.md, "One dialect") is a :class:`CompiledKernel`
over two modules: its compiled rules (``rules/<ruleset>/kernel.py``: the layouts, the
hooks, and how a scenario, an engine state and an engine action become its bundles and
rows) and its compiled temperaments (``agents/heuristics/<ruleset>_kernel.py``).
Everything else is here, once: the :class:`~escaramuza.rules.core.kernel.Kernel`
protocol (refusal, whole battles as :class:`KernelBattle` or :class:`BattleColumns`,
rollouts), the agents' codes, the generators' keys, the replay of suspended battles,
the scenario cache, and the export helpers every ruleset's export starts with
(:func:`kernel_resources`, :func:`stat_head`, :func:`zone_hops`, :func:`zone_steps`,
:func:`combatant_head`, :func:`put_resources`, :func:`resumable`, :class:`NamedExport`
with :func:`check_pending_side` and :func:`named_action_row`, :func:`flag_conditions`),
and what the four read-back views (``rules/<ruleset>/kernel_view.py``) build their
tables with (:func:`view_columns`, :func:`view_condition_bits`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar, TypedDict, TypeVar

import numpy as np

from escaramuza.rules.core import mt
from escaramuza.rules.core.dialect import ENEMIES, HEROES, NEVER, REASONS, STATUSES, TACTICIAN
from escaramuza.rules.core.kernel import (
    WINNERS,
    BattleColumns,
    KernelBattle,
    KernelRefusal,
    RolloutBatch,
    check_range,
    refusing,
)
from escaramuza.rules.core.layout import Columns
from escaramuza.rules.core.legal import ACTION_WIDTH, action_row
from escaramuza.rules.core.loops import (
    FAR,
    FIRST_LEGAL,
    RANDOM_AGENT,
    SCENARIO,
    SUSPEND_AGENT_KEY,
    SUSPEND_CAP,
    TEMPERAMENTS,
    WALK_SIZE,
    Loops,
    compile_loops,
    new_agent_rng,
)
from escaramuza.rules.core.model import Side, Status

if TYPE_CHECKING:
    from escaramuza.rules.core.battlefield import Battlefield
    from escaramuza.rules.core.model import Action, Combatant, Decision
    from escaramuza.rules.core.ruleset import Ruleset
    from escaramuza.rules.core.scenario import Scenario
    from escaramuza.rules.core.state import BattleState

#: Rounds of replaying the battles that suspended before a chunk is given up as a bug.
MAX_PASSES = 64


@dataclass(frozen=True, slots=True)
class Exported:
    """A scenario in a kernel's terms: the static bundle, the dynamic bundle at the
    scenario's start (before initiative), and the legal list's capacity in rows."""

    scenario: Scenario
    static: tuple[np.ndarray, ...]
    start: tuple[np.ndarray, ...]
    actions: int


@dataclass(frozen=True, slots=True)
class NamedExport(Exported):
    """An export with the names an engine state and action map through: combatant ids,
    zone ids and each combatant's weapon names, by their index in the kernel's arrays."""

    ids: dict[str, int]
    zones: dict[str, int]
    weapon_names: tuple[tuple[str, ...], ...]


#: A kernel's own export class.
E = TypeVar("E", bound=Exported)


def exported_as(exported: Exported, kind: type[E]) -> E:
    """``exported`` as the kernel whose export class is ``kind`` made it (with the names
    it indexes); a scenario another kernel exported is a refusal."""
    if not isinstance(exported, kind):
        raise KernelRefusal("a scenario exported by another kernel")
    return exported


def named_action_row(
    exported: NamedExport,
    action: Action,
    verbs: Sequence[str],
    option: int = -1,
    needs: Mapping[str, Collection[int]] | None = None,
) -> list[int]:
    """The legal-list row (``rules.core.legal.action_row``) of an engine action, with
    the option code ``option``: its verb is its place in the kernel's ``verbs``, its
    target, zone and item (a weapon of its actor) their indices in ``exported``'s names,
    -1 where it has none; a name that is not there is a refusal naming the action and the
    field."""
    verb = name_code(verbs, action.verb, action, "verb")
    actor = name_code(exported.ids, action.actor, action, "actor")
    target = name_code(exported.ids, action.target, action, "target")
    zone = name_code(exported.zones, action.zone, action, "zone")
    item = name_code(exported.weapon_names[actor], action.item, action, "item")
    return action_row(action, verb, target, zone, item, option, needs)


def name_code(
    names: Mapping[str, int] | Sequence[str], name: str | None, action: Action, field: str
) -> int:
    """The code of ``action``'s ``field``, its ``name``: its value in a mapping of
    ``names``, else its place among them; -1 for None (the action has none). A name
    that is not there (an empty one included) is a refusal: such an action is none of
    the legal ones the engine lists."""
    if name is None:
        return -1
    if name not in names:
        raise KernelRefusal(f"{action}: unknown {field} {name!r}")
    return names[name] if isinstance(names, Mapping) else names.index(name)


def flag_conditions(names: Sequence[str]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """A kernel's read-back of conditions kept as bits without values (a bit per entry
    of ``names``, in order): for every mask of those bits, the sorted ``(name, 0)``
    pairs ``conditions(row)`` gives."""
    return tuple(
        tuple(sorted((name, 0) for bit, name in enumerate(names) if mask >> bit & 1))
        for mask in range(1 << len(names))
    )


def kernel_resources(ruleset: type[Ruleset]) -> tuple[tuple[str, str], ...]:
    """A kernel's ``RESOURCES``: ``ruleset``'s resource names, sorted, each with the name
    of its ``CS`` column (the same in capitals), as :class:`CompiledKernel` reads them."""
    return tuple((r, r.upper()) for r in sorted(ruleset.resources))


class StatHead(TypedDict):
    """The head columns of a ``stat`` row (``rules.core.dialect.HEAD["ST"]``), by name."""

    side: int
    temperament: int


def stat_head(c: Combatant) -> StatHead:
    """The dialect's head of combatant ``c``'s ``stat`` row: its side's code and its
    temperament's (the tactician's for a name the temperaments do not know, as the
    engine's ``choose`` plays it)."""
    side = HEROES if c.side is Side.HEROES else ENEMIES
    known = c.temperament in TEMPERAMENTS
    return StatHead(
        side=side, temperament=TEMPERAMENTS.index(c.temperament) if known else TACTICIAN
    )


def zone_hops(bf: Battlefield) -> np.ndarray:
    """``dist[z, z']``, the static bundle's hops between every two zones of the
    battlefield ``bf``, in its ``zone_ids`` order."""
    zone_ids = bf.zone_ids
    return np.array([[bf.distance(a, b) for b in zone_ids] for a in zone_ids], dtype=np.int64)


def zone_steps(bf: Battlefield) -> np.ndarray:
    """``step[z, z']``, the zone one movement from ``z`` toward ``z'``
    (``Battlefield.step_towards``: on a shortest path, first in map order; ``z`` itself
    when ``z' = z``), as zone indices in ``bf``'s ``zone_ids`` order."""
    zone_ids, index = bf.zone_ids, bf.index
    return np.array(
        [[index[bf.step_towards(a, b)] for b in zone_ids] for a in zone_ids], dtype=np.int64
    )


class CombatantHead(TypedDict):
    """The head columns of a ``cs`` row (``rules.core.dialect.HEAD["CS"]``) an engine
    combatant gives, by name."""

    status: int
    zone: int
    ko_round: int
    died: int


def combatant_head(
    ids: dict[str, int], zones: dict[str, int], i: int, c: Combatant
) -> CombatantHead:
    """The dialect's head of combatant ``c``'s ``cs`` row that an engine state gives —
    its status and zone, and what ``record_from_events`` counts of one out of the fight
    from the start (knocked out in round 0, dead) — after checking it is the scenario's
    ``i``-th (a refusal)."""
    if ids.get(c.id) != i:
        raise KernelRefusal(f"combatant {c.id!r} is not the scenario's #{i}")
    if c.zone not in zones:
        raise KernelRefusal(f"{c.id}: zone {c.zone!r}")
    out = c.status in (Status.DOWN, Status.DEFEATED, Status.DEAD)
    return CombatantHead(
        status=STATUSES.index(c.status),
        zone=zones[c.zone],
        ko_round=0 if out else NEVER,
        died=int(c.status is Status.DEAD),
    )


def put_resources(
    row: np.ndarray,
    layout: type[Columns],
    c: Combatant,
    resources: Sequence[tuple[str, str]],
    maxima: Mapping[str, int],
) -> None:
    """Combatant ``c``'s resources into its ``cs`` row ``row``, each in the ``layout``
    column the kernel's ``RESOURCES`` (``resources``) names, after checking that it has
    exactly those resources, each within 0 and its maximum in ``maxima`` (a refusal
    naming it)."""
    r = c.resources
    if set(r) != {name for name, _ in resources}:
        raise KernelRefusal(f"{c.id}: resources {sorted(r)}")
    for name, column in resources:
        check_range(r[name], 0, maxima[name], f"{c.id}: {name}")
        row[layout[column]] = r[name]


def check_pending_side(exported: NamedExport, pending: Decision) -> None:
    """Refuse a ``pending`` decision whose side is not its actor's: the planner searches
    for the pending decision's side; the loops, for its actor's."""
    actor = exported.scenario.combatants[exported.ids[pending.actor]]
    if pending.side is not actor.side:
        raise KernelRefusal("the pending decision's side is not its actor's")


def resumable(exported: Exported, state: BattleState, round_limit: int) -> int:
    """What every kernel refuses of a state before reading it: a finished battle or none
    pending, other combatants than the scenario's, a round outside 1 … ``round_limit``.
    The number of combatants."""
    n = int(exported.start[0].shape[0])
    if state.outcome is not None or state.pending is None:
        raise KernelRefusal("rollouts need a pending decision in an unfinished battle")
    if len(state.combatants) != n:
        raise KernelRefusal("the state's combatants are not the scenario's")
    check_range(state.round, 1, round_limit, "round")
    return n


# -- the read-back views' tables (rules/<ruleset>/kernel_view.py) --------------------------
def view_columns(
    ruleset: type[Ruleset], resources: Sequence[tuple[str, str]], layout: type[Columns]
) -> np.ndarray:
    """The ``cs`` column (``layout``'s) of each of ``ruleset``'s resources, in
    ``ruleset.resources`` order (the engine's), through the kernel's ``RESOURCES``
    (``resources``): what a view's ``mechanics.view_resources`` reads."""
    column = dict(resources)
    return np.array([int(layout[column[name]]) for name in ruleset.resources], dtype=np.int64)


def view_condition_bits(ruleset: type[Ruleset], names: Sequence[str]) -> np.ndarray:
    """The bit over ``ruleset.conditions`` each of a kernel's conditions ``names`` sets
    (the bit of its condition if it is an alias; 0, none, if it is in neither)."""

    def bit(name: str) -> int:
        name = ruleset.condition_aliases.get(name, name)
        return 1 << ruleset.conditions.index(name) if name in ruleset.conditions else 0

    return np.array([bit(name) for name in names], dtype=np.int64)


def agent_code(spec: str) -> int:
    """The loops' code of an agent spec (``make_agent`` names): :data:`RANDOM_AGENT`,
    :data:`FIRST_LEGAL`, :data:`SCENARIO` (``heuristic``) or a temperament's index; else
    a refusal."""
    if spec == "random":
        return RANDOM_AGENT
    if spec == "first-legal":
        return FIRST_LEGAL
    if spec == "heuristic":
        return SCENARIO
    temperament = spec.split(":", 1)[1] if spec.startswith("heuristic:") else spec
    if temperament in TEMPERAMENTS:
        return TEMPERAMENTS.index(temperament)
    raise KernelRefusal(f"agent {spec!r} (kernels play random, first-legal and heuristic agents)")


class CompiledKernel:
    """The :class:`~escaramuza.rules.core.kernel.Kernel` of one ruleset: its compiled
    rules module ``rules`` (``rules/<ruleset>/kernel.py``) and temperaments module
    ``temperaments`` (``agents/heuristics/<ruleset>_kernel.py``) on the shared loops and
    this shared Python side (see the module's docstring).

    The rules module declares, in the dialect's words (``rules.core.dialect``):

    * ``TITLE``, the ruleset's name; its layouts ``ST``, ``CS``, ``G``, ``OPT`` (a
      legal-list row is ``rules.core.legal.LA``'s); ``KEPT``, the places of the dynamic
      arrays that are a battle's state (those ``reset`` copies; the others are scratch);
    * ``RESOURCES``, the engine's resource names, sorted, each with its ``CS`` column's
      name; ``HEALTH``, the ``CS`` and ``ST`` columns' names of the first resource and
      of its maximum; ``REASONS`` if it has reasons beyond the dialect's;
    * the hooks ``reset``, ``start``, ``legal``, ``apply``;
    * the Python functions ``export_scenario(scenario)``, ``export_state(exported,
      state)``, ``action_row(exported, state, action)`` and ``conditions(row)`` (a
      final ``cs`` row's conditions as sorted ``(name, value)``).

    The temperaments module has the hook ``choose``. A ruleset whose
    rules suspend battles for Python subclasses this and writes :meth:`resolve`."""

    #: How many scenarios' exports are kept (by identity).
    CACHE_SIZE: ClassVar[int] = 64
    #: Passes of replaying suspended battles (or rollouts) before they are given up as a
    #: bug: more for a ruleset whose battles suspend once per table entry they meet.
    MAX_PASSES: ClassVar[int] = MAX_PASSES
    #: Whether battles get their agents' keys from the first pass (a ruleset whose
    #: agents draw in nearly every battle), not only once they suspend for them.
    AGENT_KEYS_FIRST: ClassVar[bool] = False

    def __init__(self, ruleset_id: str, rules: ModuleType, temperaments: ModuleType) -> None:
        self.rules = rules
        self.temperaments = temperaments
        #: The ruleset's id, and what messages call this kernel ("the Cairn kernel").
        self.ruleset_id = ruleset_id
        self.title: str = f"the {rules.TITLE} kernel"
        #: The layouts of the sheet, the per-combatant state and the battle globals.
        self.ST: type[Columns] = rules.ST
        self.CS: type[Columns] = rules.CS
        self.G: type[Columns] = rules.G
        self.ACTION_WIDTH: int = ACTION_WIDTH
        #: The dynamic bundle's places that hold a battle's state (the rest is scratch).
        self.KEPT: tuple[int, ...] = tuple(rules.KEPT)
        #: ``g[G.REASON]`` codes → ``Outcome.reason``; ``cs[c, CS.STATUS]`` codes → Status
        #: values; the engine's resource names with their ``CS`` columns.
        self.REASONS: tuple[str, ...] = getattr(rules, "REASONS", REASONS)
        self.STATUSES: tuple[str, ...] = tuple(status.value for status in STATUSES)
        self.RESOURCES: tuple[tuple[str, str], ...] = rules.RESOURCES
        #: The module whose name the compiled loops' cache files carry.
        self.owner: str = temperaments.__name__
        self._cache: dict[int, Exported] = {}
        self._lock = threading.Lock()
        self._loops: Loops | None = None

    # -- the ruleset's parts -------------------------------------------------------------
    def compile(self) -> Loops:
        """The compiled loops over the ruleset's rules and temperaments."""
        r, t = self.rules, self.temperaments
        return compile_loops(
            self.owner,
            reset=r.reset,
            start=r.start,
            legal=r.legal,
            apply=r.apply,
            choose=t.choose,
            health=(int(r.CS[r.HEALTH[0]]), int(r.ST[r.HEALTH[1]])),
            ST=r.ST,
            CS=r.CS,
            G=r.G,
        )

    def export_scenario(self, scenario: Scenario) -> Exported:
        """The scenario's bundles, or :class:`KernelRefusal` naming what the kernel does
        not implement (a lookup or conversion error is made one)."""
        exported: Exported = self.rules.export_scenario(scenario)
        return exported

    def export_state(self, exported: Exported, state: BattleState) -> tuple[np.ndarray, ...]:
        """The dynamic bundle of an engine state mid-battle (or a refusal)."""
        d: tuple[np.ndarray, ...] = self.rules.export_state(exported, state)
        return d

    def action_row(self, exported: Exported, state: BattleState, action: Action) -> list[int]:
        """The legal-list row of an engine action (or a refusal)."""
        row: list[int] = self.rules.action_row(exported, state, action)
        return row

    def conditions(self, row: Sequence[int]) -> tuple[tuple[str, int], ...]:
        """A final ``cs`` row's conditions as sorted ``(name, value)``."""
        pairs: tuple[tuple[str, int], ...] = self.rules.conditions(row)
        return pairs

    def scratch(self, exported: Exported) -> tuple[np.ndarray, ...]:
        """A dynamic bundle to play in (default: a copy of the start's arrays)."""
        return tuple(a.copy() for a in exported.start)

    def resolve(self, exported: Exported, out_g: np.ndarray, todo: np.ndarray) -> None:
        """*ruleset*, where its rules suspend a battle for Python (a table entry to
        compute…): make the battles ``todo`` marks playable again."""
        raise KernelRefusal("a battle suspended for a reason this kernel does not resolve")

    # -- provided --------------------------------------------------------------------
    @property
    def loops(self) -> Loops:
        """The compiled loops, built on first use (numba compiles or loads them lazily)."""
        if self._loops is None:
            self._loops = self.compile()
        return self._loops

    def exported(self, scenario: Scenario) -> Exported:
        """:meth:`export_scenario`, kept for the scenario object while it lives."""
        hit = self._cache.get(id(scenario))
        if hit is not None and hit.scenario is scenario:
            return hit
        if getattr(scenario.ruleset, "id", None) != self.ruleset_id:
            raise KernelRefusal(f"ruleset {scenario.ruleset.id!r} is not {self.ruleset_id}")
        with refusing(scenario.name):
            exported = self.export_scenario(scenario)
        with self._lock:
            if len(self._cache) >= self.CACHE_SIZE:
                self._cache.clear()
            self._cache[id(scenario)] = exported
        return exported

    def refusal(self, scenario: Scenario, agents: Sequence[str]) -> str | None:
        try:
            self.exported(scenario)
            for spec in agents:
                agent_code(spec)
        except KernelRefusal as exc:
            return f"{self.title} does not implement {exc}"
        return None

    def play_battles(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> list[KernelBattle]:
        exported = self.exported(scenario)
        out_cs, out_g = self._play(exported, agents, seeds)
        return self._read_back(exported, seeds, out_cs, out_g)

    def play_columns(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> BattleColumns:
        exported = self.exported(scenario)
        out_cs, out_g = self._play(exported, agents, seeds)
        CS, G = self.CS, self.G
        return BattleColumns(
            winner=G.column(out_g, "outcome"),
            reason=G.column(out_g, "reason"),
            reasons=self.REASONS,
            rounds=G.column(out_g, "round"),
            wipe=G.column(out_g, "wipe") != 0,
            ko_round=CS.column(out_cs, "ko_round"),
            died=CS.column(out_cs, "died") != 0,
            dealt=CS.column(out_cs, "dealt"),
            dealt_to_foes=CS.column(out_cs, "dealt_to_foes"),
            taken=CS.column(out_cs, "taken"),
        )

    def _play(
        self, exported: Exported, agents: Sequence[str], seeds: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The final ``cs`` and ``g`` of one battle per seed, suspended battles resolved
        and replayed."""
        why = self.refusal(exported.scenario, agents)
        if why is not None:
            raise KernelRefusal(why)
        codes = np.array([agent_code(spec) for spec in agents], dtype=np.int64)
        n = len(seeds)
        nc = exported.start[0].shape[0]
        dice_keys, dice_len = mt.seed_keys(seeds)
        if self.AGENT_KEYS_FIRST:
            agent_keys, agent_len = mt.agent_keys([int(seed) for seed in seeds])
        else:
            # No agents' keys yet: a battle whose agents draw suspends for its key.
            agent_keys = np.zeros((n, 1), dtype=np.uint32)
            agent_len = np.zeros(n, dtype=np.int64)
        out_cs = self.CS.new(n, nc)
        out_g = self.G.new(n)
        d = self.scratch(exported)
        la = np.zeros((exported.actions, self.ACTION_WIDTH), dtype=np.int64)
        lanes = mt.new_state(mt.LANES)
        todo = np.ones(n, dtype=np.bool_)
        suspend_column = int(self.G["SUSPEND"])
        for _ in range(self.MAX_PASSES):
            # Each pass plays the export as resolve left it (a rule table grown…).
            exported = self.exported(exported.scenario)
            arng = new_agent_rng(agent_keys.shape[1])
            self.loops.play_battles(
                exported.static,
                d,
                exported.start,
                la,
                codes,
                todo,
                dice_keys,
                dice_len,
                agent_keys,
                agent_len,
                lanes,
                arng,
                out_cs,
                out_g,
            )
            suspend = out_g[:, suspend_column]
            todo = suspend != 0
            if not todo.any():
                return out_cs, out_g
            if (suspend == SUSPEND_CAP).any():
                raise KernelRefusal(f"{exported.scenario.name}: a battle did not end")
            keyless = suspend == SUSPEND_AGENT_KEY
            if keyless.any():
                agent_keys, agent_len = self._with_agent_keys(seeds, keyless, agent_keys, agent_len)
            if (todo & ~keyless).any():
                self.resolve(exported, out_g, todo & ~keyless)
        raise KernelRefusal(f"{exported.scenario.name}: battles kept suspending")

    @staticmethod
    def _with_agent_keys(
        seeds: Sequence[int], wanted: np.ndarray, keys: np.ndarray, lengths: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``keys``/``lengths`` with the agents' keys of the ``wanted`` seeds filled in."""
        rows = np.flatnonzero(wanted)
        new, new_len = mt.agent_keys([seeds[int(i)] for i in rows])
        width = max(keys.shape[1], new.shape[1])
        out = np.zeros((keys.shape[0], width), dtype=np.uint32)
        out[:, : keys.shape[1]] = keys
        out[rows, : new.shape[1]] = new
        out_len = lengths.copy()
        out_len[rows] = new_len
        return out, out_len

    def _read_back(
        self, exported: Exported, seeds: Sequence[int], out_cs: np.ndarray, out_g: np.ndarray
    ) -> list[KernelBattle]:
        CS, G = self.CS, self.G
        outcome, reason, rounds, wipe, decisions = (
            int(G[name]) for name in ("OUTCOME", "REASON", "ROUND", "WIPE", "DECISIONS")
        )
        status, zone, ko_round, dealt, to_foes, taken = (
            int(CS[name])
            for name in ("STATUS", "ZONE", "KO_ROUND", "DEALT", "DEALT_TO_FOES", "TAKEN")
        )
        zone_ids = exported.scenario.battlefield.zone_ids
        resource_columns = [int(CS[column.upper()]) for _, column in self.RESOURCES]
        names = [name for name, _ in self.RESOURCES]
        died = (CS.column(out_cs, "died") != 0).tolist()
        battles: list[KernelBattle] = []
        for b, seed in enumerate(seeds):
            g = out_g[b].tolist()
            rows = out_cs[b].tolist()
            battles.append(
                KernelBattle(
                    seed=seed,
                    winner=WINNERS[g[outcome]],
                    reason=self.REASONS[g[reason]],
                    rounds=g[rounds],
                    wipe=bool(g[wipe]),
                    decisions=g[decisions],
                    statuses=tuple(self.STATUSES[r[status]] for r in rows),
                    zones=tuple(zone_ids[r[zone]] for r in rows),
                    resources=tuple(
                        tuple(zip(names, (r[i] for i in resource_columns), strict=True))
                        for r in rows
                    ),
                    conditions=tuple(self.conditions(r) for r in rows),
                    ko_round=tuple(r[ko_round] for r in rows),
                    died=tuple(bool(x) for x in died[b]),
                    dealt=tuple(r[dealt] for r in rows),
                    dealt_to_foes=tuple(r[to_foes] for r in rows),
                    taken=tuple(r[taken] for r in rows),
                )
            )
        return battles

    def rollout_start(
        self,
        state: BattleState,
        actions: Sequence[Action],
        own_temperament: str | None,
    ) -> tuple[tuple[np.ndarray, ...], np.ndarray, int]:
        """What every rollout from ``state`` starts from: its dynamic bundle ``d0``, the
        rows of ``actions`` (each the pending decision's) and the searching side's agent
        code — or a refusal naming why."""
        try:
            exported = self.exported(state.scenario)
            with refusing():
                d0 = self.export_state(exported, state)
                pending = state.pending
                for action in actions:
                    if pending is None or action.actor != pending.actor:
                        raise KernelRefusal(f"{action} is not the pending decision's")
                first = np.array(
                    [self.action_row(exported, state, a) for a in actions], dtype=np.int64
                ).reshape(len(actions), self.ACTION_WIDTH)
            own = SCENARIO
            if own_temperament is not None:
                if own_temperament not in TEMPERAMENTS:
                    raise KernelRefusal(f"own temperament {own_temperament!r}")
                own = TEMPERAMENTS.index(own_temperament)
        except KernelRefusal as exc:
            raise KernelRefusal(f"{self.title} cannot resume this state: {exc}") from None
        return d0, first, own

    def rollouts(
        self,
        state: BattleState,
        actions: Sequence[Action],
        seeds: Sequence[int],
        horizon: int | None,
        own_temperament: str | None,
        max_decisions: int,
    ) -> RolloutBatch:
        d0, first, own = self.rollout_start(state, actions, own_temperament)
        keys, lengths = mt.seed_keys(seeds)
        shape = (len(actions), len(seeds))
        winner = np.zeros(shape, dtype=np.int64)
        finished = np.zeros(shape, dtype=np.bool_)
        own_s = np.zeros(shape, dtype=np.float64)
        foe_s = np.zeros(shape, dtype=np.float64)
        actor_out = np.zeros(shape, dtype=np.bool_)
        suspended = np.zeros(shape, dtype=np.bool_)
        stop = min(state.round + horizon, FAR) if horizon is not None else FAR
        cap = min(max_decisions, FAR)
        if not (len(actions) and len(seeds)):
            return RolloutBatch(winner, finished, own_s, foe_s, actor_out)

        def play(
            exported: Exported, d: tuple[np.ndarray, ...], la: np.ndarray, act: np.ndarray
        ) -> np.ndarray:
            self.loops.rollouts(
                exported.static,
                d,
                d0,
                la,
                first,
                keys,
                lengths,
                stop,
                own,
                cap,
                mt.new_state(),
                new_agent_rng(1),
                act,
                np.zeros(2, dtype=np.int64),
                np.zeros(WALK_SIZE, dtype=np.int64),
                winner,
                finished,
                own_s,
                foe_s,
                actor_out,
                suspended,
            )
            return suspended

        self.rollout_passes(state, d0, play)
        return RolloutBatch(winner, finished, own_s, foe_s, actor_out)

    def rollout_passes(
        self,
        state: BattleState,
        d0: tuple[np.ndarray, ...],
        play: Callable[[Exported, tuple[np.ndarray, ...], np.ndarray, np.ndarray], np.ndarray],
    ) -> None:
        """Play a batch of rollouts from ``d0`` until none suspends: each pass calls
        ``play(exported, d, la, act)`` on the current export (resolving a suspension
        may extend its tables) with the scratch bundle ``d`` and the legal-rows and
        action scratch, and gets back which rollouts suspended; those are resolved
        (:meth:`resolve_rollouts`) and the batch is played again."""
        exported = self.exported(state.scenario)
        d = tuple(a.copy() for a in d0)
        la = np.zeros((exported.actions, self.ACTION_WIDTH), dtype=np.int64)
        act = np.zeros(self.ACTION_WIDTH, dtype=np.int64)
        for _ in range(self.MAX_PASSES):
            exported = self.exported(state.scenario)
            suspended = play(exported, d, la, act)
            if not suspended.any():
                return
            self.resolve_rollouts(exported, d, suspended)
        raise KernelRefusal(f"{self.title}: rollouts kept suspending")

    def resolve_rollouts(
        self, exported: Exported, d: tuple[np.ndarray, ...], suspended: np.ndarray
    ) -> None:
        """*ruleset*, where its rules suspend a rollout for Python: make it playable
        again (``d`` holds the state of the last rollout that suspended)."""
        raise KernelRefusal("a rollout suspended for a reason this kernel does not resolve")
