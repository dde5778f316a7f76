"""Events: frozen records, one readable line each, stable JSON."""

from __future__ import annotations

import dataclasses
import inspect
import json

import pytest

from escaramuza.rules.core import events as events_module
from escaramuza.rules.core.events import (
    BattleEnded,
    Damaged,
    Event,
    InitiativeOrder,
    Rolled,
)

EVENT_TYPES = sorted(
    (
        cls
        for _, cls in inspect.getmembers(events_module, inspect.isclass)
        if issubclass(cls, Event) and cls.__module__ == events_module.__name__
    ),
    key=lambda cls: cls.__name__,
)


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda cls: cls.__name__)
def test_every_event_type_is_frozen_slotted_and_serialises(cls: type[Event]) -> None:
    event = cls("una línea")
    assert event.line() == "una línea"
    assert hasattr(cls, "__slots__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.text = "other"  # type: ignore[misc]
    data = json.loads(event.to_json())
    assert data["type"] == cls.__name__ and data["text"] == "una línea"
    assert list(data) == ["type", *(f.name for f in dataclasses.fields(cls))]


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (
            Rolled("Brann rolls Cuerpo d8: 7", "brann", "ataque", (7,), 7),
            {
                "type": "Rolled",
                "text": "Brann rolls Cuerpo d8: 7",
                "actor": "brann",
                "what": "ataque",
                "faces": [7],
                "total": 7,
            },
        ),
        (
            Damaged("El Saqueador pierde 7 PV", "saqueador", 7, "pv", "brann", 3),
            {
                "type": "Damaged",
                "text": "El Saqueador pierde 7 PV",
                "target": "saqueador",
                "amount": 7,
                "resource": "pv",
                "source": "brann",
                "remaining": 3,
            },
        ),
        (
            InitiativeOrder("Orden: Nara → Rival 1 → Rival 2", ("nara", "rival1", "rival2")),
            {
                "type": "InitiativeOrder",
                "text": "Orden: Nara → Rival 1 → Rival 2",
                "order": ["nara", "rival1", "rival2"],
            },
        ),
        (
            BattleEnded("over", None, "timeout", 20),
            {
                "type": "BattleEnded",
                "text": "over",
                "winner": None,
                "reason": "timeout",
                "rounds": 20,
            },
        ),
    ],
)
def test_event_json(event: Event, expected: dict[str, object]) -> None:
    assert event.to_dict() == expected
    line = event.to_json()
    assert json.loads(line) == expected
    assert "\n" not in line
    # Non-ASCII game terms stay readable in the JSON lines.
    assert ("→" in line) == ("→" in event.text)


def test_event_json_is_byte_identical_for_equal_events() -> None:
    a = Rolled("d20 del Destino: 20", "zara", "destino", (20,), 20)
    b = Rolled("d20 del Destino: 20", "zara", "destino", (20,), 20)
    assert a == b and a.to_json() == b.to_json()


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda cls: cls.__name__)
def test_every_event_type_stores_each_field_by_position_keyword_and_default(
    cls: type[Event],
) -> None:
    # Events get a faster __init__ than the dataclass's; it must keep its signature.
    names = [f.name for f in dataclasses.fields(cls)]
    values = [f"value of {name}" for name in names]
    for event in (cls(*values), cls(**dict(zip(names, values, strict=True)))):
        assert [getattr(event, name) for name in names] == values
    bare = cls("text only")
    assert [getattr(bare, f.name) for f in dataclasses.fields(cls)[1:]] == [
        f.default for f in dataclasses.fields(cls)[1:]
    ]
    assert cls(*values) == cls(*values) and hash(cls(*values)) == hash(cls(*values))
    with pytest.raises(TypeError):
        cls(*values, "one too many")
