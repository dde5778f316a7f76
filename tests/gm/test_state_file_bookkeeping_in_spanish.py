"""A state file's bookkeeping refused in the user's language: each ruleset's own checks
(``rules/<ruleset>/bookkeeping.py``) and the shared ones (``rules/core/bookkeeping.py``)
give their reason in Spanish under ``--lang es``, with the field named as the file spells
it and the file's values (ids, numbers, names) quoted as they are.

Each case spoils one value of a state a real battle reached (random agents, a fixed seed)
and expects the reason written by hand from the catalog.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from escaramuza.agents import RandomAgent
from escaramuza.cli import main
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.i18n import language
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.state_file import StateFileError, state_from_dict, state_to_dict

Doc = dict[str, Any]


def at(scenario: str, decision: str, seed: int = 3) -> Doc:
    """The state document of the first decision named ``decision`` in a random battle."""
    state = new_battle(load_scenario(scenario), RandomRoller(seed))
    rng, roller, agent = random.Random(seed), RandomRoller(seed + 1), RandomAgent()
    while state.pending is not None and state.pending.name != decision:
        apply_action(state, agent.act(state, rng), roller)
    assert state.pending is not None, f"{scenario} reached no {decision} decision"
    return state_to_dict(state)


def combatant(doc: Doc, cid: str) -> Doc:
    found: Doc = next(c for c in doc["combatants"] if c["id"] == cid)
    return found


def fields(doc: Doc, key: str) -> Doc:
    """The fields of the dataclass value ``doc["data"][key]`` (a pending attack, a roll…)."""
    value: Doc = doc["data"][key]["fields"]
    return value


def _queue_down(doc: Doc) -> None:
    doc["data"]["queue"] = ["bryn", "mara"]
    combatant(doc, "mara")["status"] = "down"


def _active_defence_without_attack(doc: Doc) -> None:
    doc["data"]["attack"] = None


def _turn_of_the_other(doc: Doc) -> None:
    doc["pending"].update(actor="gonzalo", side="enemies")


CAIRN = "cairn/emboscada_goblin"  # the heroes declare first: bryn, then mara
DESTINY = "destiny_dice/emboscada"  # ilse's turn first; nara carries 2 pociones
DONJON = "donjon/duelo"  # a d20; gorm acts on 20, then aldara resists his approach
SISTEMA = "sistema_2d10/duelo"  # diego attacks gonzalo with his ropera

#: (scenario, decision, the edit, field, the Spanish reason). The reasons are written by
#: hand from escaramuza/locale/es/LC_MESSAGES/escaramuza.po.
CASES: list[tuple[str, str, Callable[[Doc], None], str, str]] = [
    # -- the shared checks ------------------------------------------------------------
    (CAIRN, "declarar", _queue_down, "data.queue[1]", "mara está caído, no activo"),
    (
        SISTEMA,
        "turn",
        lambda d: d["pending"].update(kind="reaction"),
        "pending.kind",
        "una decisión 'turn' es de clase turn",
    ),
    (
        SISTEMA,
        "expres_before",
        lambda d: fields(d, "attack").update(weapon="escoba"),
        "data.attack.weapon",
        "diego no lleva ningún arma 'escoba'",
    ),
    # -- Cairn ------------------------------------------------------------------------
    (
        CAIRN,
        "declarar",
        lambda d: combatant(d, "ilse")["data"].update(sobra=1),
        "combatants[1].data.sobra",
        "campo desconocido",
    ),
    (
        CAIRN,
        "declarar",
        lambda d: d["data"].update(queue=["bryn", "goblin1"]),
        "data.queue[1]",
        "goblin1 no está en el bando de los héroes, que tienen el turno de bando",
    ),
    (
        CAIRN,
        "declarar",
        lambda d: d["data"].update(queue=["bryn", "bryn"]),
        "data.queue[1]",
        "el combatiente 'bryn' aparece dos veces",
    ),
    (
        CAIRN,
        "declarar",
        lambda d: d["data"].update(queue=["mara", "bryn"]),
        "pending.actor",
        "bryn, pero el siguiente en declarar es mara (data.queue)",
    ),
    (
        CAIRN,
        "declarar",
        lambda d: d["data"].update(queue=[]),
        "pending.actor",
        "bryn, pero no queda nadie por declarar (data.queue)",
    ),
    # -- Destiny Dice -----------------------------------------------------------------
    (
        DESTINY,
        "turn",
        lambda d: d["data"].update(turn_actor="brann"),
        "data.turn_actor",
        "brann no está en la posición 0 del orden (allí está ilse)",
    ),
    (
        DESTINY,
        "turn",
        lambda d: combatant(d, "ilse")["data"].update({"jam:arco largo": 1}),
        "combatants[1].data.jam:arco largo",
        "se esperaba true o false, no 1",
    ),
    (
        DESTINY,
        "turn",
        lambda d: combatant(d, "nara")["data"].update({"uses:poción": 9}),
        "combatants[2].data.uses:poción",
        "se esperaban los usos restantes, un número entero 0–2, no 9",
    ),
    (
        DESTINY,
        "turn",
        lambda d: combatant(d, "brann")["data"].update(suerte=1),
        "combatants[0].data.suerte",
        "campo desconocido (conocidos para brann: ayuda)",
    ),
    (
        DESTINY,
        "turn",
        lambda d: combatant(d, "brann")["conditions"].append(
            {"name": "envenenado", "value": 0, "dice": "2d6kh3"}
        ),
        "combatants[0].conditions.envenenado.dice",
        "'2d6kh3': se pueden conservar de 1 a 2 dados",
    ),
    # -- Donjon -----------------------------------------------------------------------
    (
        DONJON,
        "turn",
        lambda d: d["data"].update(count=21),
        "data.count",
        "21 supera el tamaño del dado (20)",
    ),
    (
        DONJON,
        "turn",
        lambda d: combatant(d, "aldara")["data"].update(init=[25, 18]),
        "combatants[0].data.init[0]",
        "25 no es una cara del d20 (options.die_size)",
    ),
    (
        DONJON,
        "turn",
        lambda d: combatant(d, "aldara")["data"].update(init=[5, 19]),
        "combatants[0].data.init",
        "los números se guardan de mayor a menor",
    ),
    (
        DONJON,
        "turn",
        lambda d: combatant(d, "aldara")["data"].update(acted=[99, 0]),
        "combatants[0].data.acted",
        "se esperaba [número 0–20, veces 0–1000], no [99, 0]",
    ),
    (
        DONJON,
        "turn",
        lambda d: d["data"].update(count=7),
        "data.count",
        "gorm no tiene el 7 (data.init: [20, 19, 16, 12])",
    ),
    (
        DONJON,
        "resistir",
        lambda d: d["data"].pop("move"),
        "data.move",
        "obligatorio mientras haya una resistencia pendiente",
    ),
    (
        DONJON,
        "resistir",
        lambda d: fields(d, "move").update(verb="volar"),
        "data.move.verb",
        "movimiento desconocido 'volar' (conocidos: acercarse, alejarse, huir)",
    ),
    (
        DONJON,
        "resistir",
        lambda d: fields(d, "move").update(resister="gorm"),
        "pending.actor",
        "aldara, pero quien resiste el movimiento es gorm",
    ),
    # -- Sistema 2d10 -----------------------------------------------------------------
    (
        SISTEMA,
        "turn",
        lambda d: d["data"].update(tables=[]),
        "data.tables",
        'deben ser las tablas del escenario (escribe {"$scenario": true})',
    ),
    (
        SISTEMA,
        "turn",
        lambda d: combatant(d, "diego")["data"].update(profile=1),
        "combatants[0].data.profile",
        'debe ser el del escenario (escribe {"$scenario": true})',
    ),
    (
        SISTEMA,
        "turn",
        _turn_of_the_other,
        "pending.actor",
        "gonzalo, pero el turno es de diego (order[0])",
    ),
    (
        SISTEMA,
        "active_defence",
        _active_defence_without_attack,
        "data.attack",
        "hace falta un ataque contra gonzalo mientras se defiende",
    ),
    (
        SISTEMA,
        "expres_before",
        lambda d: fields(d, "roll").update(roller="gonzalo"),
        "data.roll",
        "una decisión de Dado Exprés necesita una tirada de diego",
    ),
    (
        SISTEMA,
        "expres_before",
        lambda d: fields(d, "roll").update(faces=[3, 4]),
        "data.roll.faces",
        "hacen falta dados tirados después de la tirada, y ninguno antes",
    ),
    (
        SISTEMA,
        "expres_after",
        lambda d: fields(d, "roll").update(faces=[11, 3]),
        "data.roll.faces",
        "se esperaba ningún dado, o dos o tres caras de d10 (1–10)",
    ),
    (
        SISTEMA,
        "expres_before",
        lambda d: fields(d, "attack").update(total=5000),
        "data.attack.total",
        "5000 está fuera de ±1000",
    ),
    (
        SISTEMA,
        "expres_before",
        lambda d: fields(d, "roll").update(purpose="magia"),
        "data.roll.purpose",
        "tirada desconocida 'magia' (conocidas: ataque, defensa, aguante)",
    ),
    (
        SISTEMA,
        "expres_before",
        lambda d: d["data"].update(attack=None),
        "data.attack",
        "obligatorio para una tirada de ataque",
    ),
]


@pytest.mark.parametrize(
    ("scenario", "decision", "edit", "field", "reason"),
    CASES,
    ids=[f"{c[0]}-{c[3]}-{c[4][:24]}" for c in CASES],
)
def test_a_bookkeeping_check_refuses_in_spanish(
    scenario: str, decision: str, edit: Callable[[Doc], None], field: str, reason: str
) -> None:
    doc = at(scenario, decision)
    state_from_dict(json.loads(json.dumps(doc)), "bien.json")  # unedited, it loads
    edit(doc)
    with language("es"), pytest.raises(StateFileError) as info:
        state_from_dict(doc, "malo.json")
    assert (info.value.field, info.value.reason) == (field, reason)


def test_a_registered_values_missing_field_is_named_in_spanish() -> None:
    """A dataclass value without one of its fields: the field is named and the reason is
    the loader's own, not Python's English ``__init__() missing 1 required…``."""
    doc = at(SISTEMA, "expres_before")
    del fields(doc, "attack")["weapon"]
    with language("es"), pytest.raises(StateFileError) as info:
        state_from_dict(doc, "malo.json")
    assert (info.value.field, info.value.reason) == (
        "data.attack.weapon",
        "falta este campo obligatorio",
    )


def test_validate_and_gm_refuse_a_spoiled_state_file_in_spanish(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The command line shows the ruleset's Spanish reason with the file and the field."""
    doc = at(DONJON, "turn")
    doc["data"]["count"] = 21
    path = tmp_path / "partida.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["validate", str(path), "--lang", "es"]) == 2
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"{path}:1: data.count: 21 supera el tamaño del dado (20)"
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["gm", str(path), "--lang", "es"]) == 2
    err = capsys.readouterr().err
    assert err == f"escaramuza: error: {path}: data.count: 21 supera el tamaño del dado (20)\n"


def test_the_web_page_loads_a_state_file_in_spanish() -> None:
    """An upload refused by a ruleset's check shows its Spanish reason; one that loads
    says so in Spanish."""
    from fastapi.testclient import TestClient

    from escaramuza.web.app import create_app

    good = at(DONJON, "turn")
    bad = json.loads(json.dumps(good))
    bad["data"]["count"] = 21
    with TestClient(create_app()) as c:
        c.post("/ui/lang", data={"lang": "es"})
        refused = c.post("/ui/load", files={"file": ("malo.json", json.dumps(bad).encode())})
        loaded = c.post("/ui/load", files={"file": ("bien.json", json.dumps(good).encode())})
    assert refused.status_code == 400
    assert "malo.json: data.count: 21 supera el tamaño del dado (20)" in refused.text
    assert loaded.status_code == 200
    assert '<p id="message" class="message">cargado bien.json: asalto 1</p>' in loaded.text
