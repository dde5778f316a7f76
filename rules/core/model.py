"""Combatants, actions and decisions: the small values a battle is made of."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any, Generic, TypeVar

#: ``object.__new__``, bound once: :meth:`Combatant.clone` builds instances without ``__init__``.
_new_object = object.__new__


K = TypeVar("K")
V = TypeVar("V")


class Side(StrEnum):
    HEROES = "heroes"
    ENEMIES = "enemies"

    @property
    def other(self) -> Side:
        return Side.ENEMIES if self is Side.HEROES else Side.HEROES


class Status(StrEnum):
    """Where a combatant stands in the fight.

    ``down`` is out of the fight but can come back (Destiny Dice fuera de
    combate, Donjon unconscious NPC); ``defeated`` is out for good without
    being dead (a Destiny Dice enemy at 0 PV surrenders or flees hurt);
    ``dead`` and ``fled`` are what they say.
    """

    ACTIVE = "active"
    DOWN = "down"
    DEFEATED = "defeated"
    DEAD = "dead"
    FLED = "fled"


class DecisionKind(IntEnum):
    """What sort of choice is pending; the env encodes it one-hot."""

    TURN = 0
    REACTION = 1
    CHOICE = 2


#: Between the combatant ids of a ``Condition.source`` tied to several (an id has no comma).
SOURCE_SEP = ","


@dataclass(frozen=True, slots=True)
class Condition:
    """A state on a combatant (Derribado, Envenenado 2, aturdido…).

    ``value`` carries the X of "Envenenado (X)"-like states as a number of
    damage or penalty; ``source`` names the combatant the state is tied to, or
    several joined by :data:`SOURCE_SEP` (:meth:`sources`: the foes an Asustado
    fears); ``persistent`` distinguishes Destiny Dice's persistent states;
    ``until`` is a ruleset-defined expiry tag.
    """

    name: str
    value: int = 0
    source: str | None = None
    persistent: bool = False
    until: str | None = None
    dice: str | None = None

    def sources(self) -> tuple[str, ...]:
        """The combatant ids ``source`` names, none without one."""
        return () if self.source is None else tuple(self.source.split(SOURCE_SEP))

    def text(self) -> str:
        """How the GM terminal and the web page show it: ``aturdido -2 [hasta_sanar]``."""
        out = self.name + (f" {self.value}" if self.value else "")
        out += f" ({self.dice})" if self.dice else ""
        return out + (f" [{self.until}]" if self.until else "")


@dataclass(slots=True)
class Combatant:
    """One fighter. Mutable, but cloned field by field (never deep-copied).

    ``stats`` is the ruleset's validated stat block and is shared by every
    clone: rulesets must never mutate it. ``resources``, ``conditions`` and
    ``data`` are copied on clone; ``data`` values must be immutable (ints,
    strings, tuples) so the shallow copy is a true copy.
    """

    id: str
    name: str
    side: Side
    zone: str
    index: int
    stats: Any
    resources: dict[str, int]
    maxima: dict[str, int]
    items: tuple[str, ...] = ()
    conditions: dict[str, Condition] = field(default_factory=dict)
    status: Status = Status.ACTIVE
    temperament: str = "tactician"
    pc: bool = True
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.status is Status.ACTIVE

    def has(self, condition: str) -> bool:
        return condition in self.conditions

    def clone(self) -> Combatant:
        # Every field is set below, so the generated ``__init__`` (which would only assign
        # the same values through fourteen arguments) is skipped: the planner clones every
        # combatant of a state for each rollout, and this is ~40 % cheaper per combatant.
        new = _new_object(Combatant)
        new.id = self.id
        new.name = self.name
        new.side = self.side
        new.zone = self.zone
        new.index = self.index
        new.stats = self.stats
        new.resources = self.resources.copy()
        new.maxima = self.maxima
        new.items = self.items
        new.conditions = self.conditions.copy()
        new.status = self.status
        new.temperament = self.temperament
        new.pc = self.pc
        new.data = self.data.copy()
        return new


@dataclass(frozen=True, slots=True)
class Action:
    """A small frozen value: who does what, to whom, where, with what."""

    verb: str
    actor: str
    target: str | None = None
    zone: str | None = None
    item: str | None = None
    option: str | None = None

    def __str__(self) -> str:
        parts = [f"{self.actor}: {self.verb}"]
        if self.target is not None:
            parts.append(f"a {self.target}")
        if self.item is not None:
            parts.append(f"con {self.item}")
        if self.zone is not None:
            parts.append(f"hacia {self.zone}")
        if self.option is not None:
            parts.append(f"({self.option})")
        return " ".join(parts)

    def to_dict(self) -> dict[str, str]:
        return {k: v for k in Action.__slots__ if (v := getattr(self, k)) is not None}


#: Interned frozen values: ``(class, *arguments)`` → ``class(*arguments)``. A frozen value
#: compared by its fields (an Action, a Decision, a ruleset's pending attack…) can be shared:
#: one instance per distinct key is the same as a fresh equal one, and a dict lookup costs a
#: fraction of a frozen dataclass's ``__init__`` — rulesets list a dozen actions for every
#: decision of every battle (playtests, envs, the planner's rollouts). Only for classes whose
#: instances are immutable and built from hashable arguments. Never for events: the planner
#: tells a log that only moved forward by the identity of its last event. Nothing here can
#: go stale; the table is emptied if it ever grows past ``_MAX_INTERNED`` entries, which
#: keeps a process that loads many scenarios bounded.
_INTERNED: dict[tuple[Any, ...], Any] = {}
_MAX_INTERNED = 1 << 16


def interned(cls: Any, *args: Any) -> Any:
    """``cls(*args)``, shared with every equal value interned before (see above)."""
    key = (cls, *args)
    found = _INTERNED.get(key)
    if found is None:
        if len(_INTERNED) >= _MAX_INTERNED:
            _INTERNED.clear()
        found = _INTERNED[key] = cls(*args)
    return found


class IdentityMemo(Generic[K, V]):
    """``build(obj)``, computed once per object and looked up by the object's identity.

    For values derived from an immutable object that cannot be hashed cheaply (a frozen
    pydantic stat block, which rulesets share between combatants and never mutate). Each
    entry keeps its object alive, so its ``id`` cannot be reused by another object while
    the entry lives, and the lookup checks identity anyway; the table is emptied if it
    grows past ``limit`` entries (a process that loads many scenarios stays bounded).
    """

    __slots__ = ("build", "limit", "_table")

    def __init__(self, build: Callable[[K], V], limit: int = 4096) -> None:
        self.build = build
        self.limit = limit
        self._table: dict[int, tuple[K, V]] = {}

    def __call__(self, obj: K) -> V:
        entry = self._table.get(id(obj))
        if entry is not None and entry[0] is obj:
            return entry[1]
        if len(self._table) >= self.limit:
            self._table.clear()
        value = self.build(obj)
        self._table[id(obj)] = (obj, value)
        return value


def interned_action(
    verb: str,
    actor: str,
    target: str | None = None,
    zone: str | None = None,
    item: str | None = None,
    option: str | None = None,
) -> Action:
    """``Action(verb, actor, …)``, shared with every equal action built this way."""
    return interned(Action, verb, actor, target, zone, item, option)  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must decide now, and what kind of choice it is."""

    kind: DecisionKind
    actor: str
    side: Side
    name: str = "turn"
    prompt: str = ""


@dataclass(frozen=True, slots=True)
class VerbSpec:
    """One verb of a ruleset and the parameters it takes (the env's action layout)."""

    name: str
    target: bool = False
    zone: bool = False
    item: bool = False
    options: tuple[str, ...] = ()
    description: str = ""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a battle ended. ``winner`` None is a draw (timeout, both withdrew)."""

    winner: Side | None
    reason: str
    rounds: int
