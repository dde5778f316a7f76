"""A battle state as a state file's JSON document, and the file written atomically."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from escaramuza.rules.core.files import check_file_writable, write_file
from escaramuza.rules.core.i18n import _
from escaramuza.rules.core.model import Condition
from escaramuza.rules.core.scenario import Scenario, shipped_scenarios
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file.errors import StateFileError
from escaramuza.state_file.values import _encode_data, _reference_battle

FORMAT = "escaramuza-state"
VERSION = 1


def scenario_reference(scenario: Scenario) -> str:
    """How a state file names its scenario: the shipped name, else the file's absolute path."""
    if scenario.name in shipped_scenarios():
        return scenario.name
    return str(Path(scenario.source).resolve())


def state_to_dict(
    state: BattleState, meta: dict[str, Any] | None = None, source: str = "<state>"
) -> dict[str, Any]:
    """The JSON document of a battle state (docs/gm.md, "State file")."""
    scenario = state.scenario
    fresh = _reference_battle(scenario)
    combatants = []
    for c in state.combatants:
        base = scenario.combatant(c.id)
        combatants.append(
            {
                "id": c.id,
                "name": c.name,
                "side": c.side.value,
                "zone": c.zone,
                "status": c.status.value,
                "resources": dict(c.resources),
                "conditions": [_condition_dict(cond) for cond in c.conditions.values()],
                "data": _encode_data(c.data, base.data, f"combatants.{c.id}.data", source),
            }
        )
    pending = state.pending
    outcome = state.outcome
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "scenario": scenario_reference(scenario),
        "ruleset": state.ruleset.id,
        "round": state.round,
        "turn": state.turn,
        "order": list(state.order),
        "pending": None
        if pending is None
        else {
            "kind": pending.kind.name.lower(),
            "actor": pending.actor,
            "side": pending.side.value,
            "name": pending.name,
            "prompt": pending.prompt,
        },
        "outcome": None
        if outcome is None
        else {
            "winner": outcome.winner.value if outcome.winner else None,
            "reason": outcome.reason,
            "rounds": outcome.rounds,
        },
        "combatants": combatants,
        "data": _encode_data(state.data, fresh.data, "data", source),
    }
    if meta:
        doc["meta"] = meta
    return doc


def _condition_dict(cond: Condition) -> dict[str, Any]:
    out: dict[str, Any] = {"name": cond.name}
    for f in dataclasses.fields(cond):
        value = getattr(cond, f.name)
        if f.name != "name" and value != f.default:
            out[f.name] = value
    return out


def save_state(state: BattleState, path: str | Path, meta: dict[str, Any] | None = None) -> None:
    """Write ``state`` to ``path`` atomically (temporary file + ``os.replace``; a symbolic
    link's target is written, a FIFO or device refused: :func:`write_file`). Only a state
    file (or an empty file) is replaced: never the battle's own scenario file, which the
    state names and needs, nor any other file the user has."""
    path = Path(path)
    check_replaceable(state.scenario, path)
    doc = state_to_dict(state, meta, str(path))
    text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    write_file(path, text, StateFileError)


def check_save_target(scenario: Scenario, path: str | Path) -> None:
    """Refuse now what :func:`save_state` of a battle of ``scenario`` to ``path`` would
    refuse at the end (:func:`check_replaceable`, a folder, pipe or device, a folder that
    is missing or takes no file): ``play --save-state`` checks it before the battle, which
    an agent with a time budget cannot play again the same way."""
    path = Path(path)
    check_replaceable(scenario, path)
    check_file_writable(path, StateFileError)


#: How much of an existing file is read to tell a state file from another file.
_HEAD_BYTES = 256


def check_replaceable(scenario: Scenario, path: Path) -> None:
    """A StateFileError unless writing a state to ``path`` loses nothing: ``path`` is not
    ``scenario``'s own file and holds nothing but a state file (or nothing at all)."""
    # os.path's answer is False for a name no file can have (too long for the system);
    # pathlib's is_file() and exists() raise OSError on it.
    if scenario.name not in shipped_scenarios() and os.path.exists(path):
        if path.resolve() == Path(scenario.source).resolve():
            raise StateFileError(
                str(path),
                "",
                _(
                    "this is the battle's scenario file, which the state names and needs: "
                    "not replaced (save the state to another file)"
                ),
            )
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        with path.open("rb") as f:
            head = f.read(_HEAD_BYTES)
        if f'"{FORMAT}"'.encode() not in head:
            raise StateFileError(
                str(path),
                "",
                _(
                    "the file exists and is not a state file: not replaced (save the state "
                    "to another file, or remove it first)"
                ),
            )
