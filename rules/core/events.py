"""Typed, frozen records of what happened in a battle, each with a readable line.

Every event carries structured fields (for statistics and JSON) and ``text``,
the narrated line the ruleset composed. Same scenario + seed + actions ⇒ the
same events, so ``to_json`` output is byte-for-byte reproducible.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, dataclass, fields
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    text: str

    def line(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": type(self).__name__}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=False)


@dataclass(frozen=True, slots=True)
class Note(Event):
    """Narration with no structured payload (a rule explained, a choice announced)."""


@dataclass(frozen=True, slots=True)
class BattleStarted(Event):
    scenario: str = ""
    ruleset: str = ""


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    round: int = 0


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    actor: str = ""
    round: int = 0


@dataclass(frozen=True, slots=True)
class ActionTaken(Event):
    """The action a combatant chose, as decided (before its dice)."""

    actor: str = ""
    action: str = ""


@dataclass(frozen=True, slots=True)
class Rolled(Event):
    """Dice rolled for a named purpose; ``faces`` in the order rolled."""

    actor: str = ""
    what: str = ""
    faces: tuple[int, ...] = ()
    total: int = 0


@dataclass(frozen=True, slots=True)
class InitiativeRolled(Rolled):
    pass


@dataclass(frozen=True, slots=True)
class InitiativeOrder(Event):
    order: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AttackResolved(Event):
    actor: str = ""
    target: str = ""
    item: str = ""
    hit: bool = False


@dataclass(frozen=True, slots=True)
class Damaged(Event):
    target: str = ""
    amount: int = 0
    resource: str = ""
    source: str = ""
    remaining: int = 0


@dataclass(frozen=True, slots=True)
class Healed(Event):
    target: str = ""
    amount: int = 0
    resource: str = ""
    source: str = ""
    remaining: int = 0


@dataclass(frozen=True, slots=True)
class ResourceChanged(Event):
    target: str = ""
    resource: str = ""
    delta: int = 0
    value: int = 0


@dataclass(frozen=True, slots=True)
class ConditionApplied(Event):
    target: str = ""
    condition: str = ""
    value: int = 0


@dataclass(frozen=True, slots=True)
class ConditionEnded(Event):
    target: str = ""
    condition: str = ""


@dataclass(frozen=True, slots=True)
class StatusChanged(Event):
    """A combatant went down, was defeated, died, fled, or came back (``active``)."""

    target: str = ""
    status: str = ""
    source: str = ""


@dataclass(frozen=True, slots=True)
class Moved(Event):
    actor: str = ""
    from_zone: str = ""
    to_zone: str = ""


@dataclass(frozen=True, slots=True)
class BattleEnded(Event):
    winner: str | None = None
    reason: str = ""
    rounds: int = 0


def _init_through_slots(cls: type[Event]) -> None:
    """Give a frozen event class a faster ``__init__``: same signature, same result.

    The ``__init__`` dataclasses generates for a frozen class stores each field with
    ``object.__setattr__`` (the class's own ``__setattr__`` refuses: that is what makes it
    frozen). Calling each field's slot descriptor directly stores the same value in about
    half the time, and rulesets build several events for every decision of every battle.
    Instances stay frozen (assigning a field still raises ``FrozenInstanceError``), and
    equality, hashing, pickling and :meth:`Event.to_dict` are the dataclass's own.
    """
    params: list[str] = []
    body: list[str] = []
    namespace: dict[str, Any] = {}
    for f in fields(cls):
        if f.default_factory is not MISSING:
            return  # not used by events (all defaults are immutable); keep the generated one
        if f.default is MISSING:
            params.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        namespace[f"_set_{f.name}"] = getattr(cls, f.name).__set__
        body.append(f"    _set_{f.name}(self, {f.name})")
    exec(f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body), namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init  # type: ignore[method-assign]


for _cls in [v for v in tuple(globals().values()) if isinstance(v, type) and issubclass(v, Event)]:
    _init_through_slots(_cls)
