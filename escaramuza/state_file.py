"""Battle state files: a documented JSON format for a battle in progress.

A state file names its scenario (a shipped name or a path) and records what
changes during a battle: round, turn order, the pending decision, every
combatant's zone, status, resources, conditions and bookkeeping, and the
ruleset's own bookkeeping. The full schema is in ``docs/gm.md``.

A state file is untrusted input: it is read only if it is a regular
file of at most :data:`MAX_STATE_BYTES`, parsed with the bounded JSON parser
(nesting, integer length), its typed values are decoded only into the classes
of an explicit registry (:func:`state_types`: the core's and each ruleset's
``bookkeeping.STATE_TYPES``; nothing is ever imported by a name the file
gives), and each ruleset checks its own bookkeeping and the invariants its
engine relies on (``rules/<ruleset>/bookkeeping.py``) before the battle is
handed to anyone.

Bookkeeping values (``data``) are immutable by the engine contract (ints,
strings, tuples, frozen dataclasses, None). They are written generically:
tuples as JSON lists (read back as tuples), the registered frozen dataclasses
as ``{"$type": "module:Class", "fields": {...}}``,
enums as ``{"$enum": "module:Class", "value": …}``, frozensets as
``{"$frozenset": [...]}``. A dataclass value equal to the one a fresh battle
of the scenario holds (a Sistema 2d10 combatant's derived ``profile``, the
damage tables) is written as ``{"$scenario": true}`` and taken from the
scenario on load, which keeps files small and readable.

Loading validates everything and raises :class:`StateFileError` naming the
file, the field and the reason; nothing half-loaded is returned. Writing goes
to a temporary file in the same folder and is moved into place with
``os.replace``, so a crash never leaves a truncated state file.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any

from escaramuza.rules import BOOKKEEPING, get_bookkeeping
from escaramuza.rules.core.bookkeeping import CORE_STATE_TYPES, MAX_COUNTER, BookkeepingError
from escaramuza.rules.core.bookkeeping import short as _short
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError, Problem, clip
from escaramuza.rules.core.files import (
    atomic_write,
    check_tree,
    parse_json,
    read_text_file,
    remove_stale_temporaries,
)
from escaramuza.rules.core.model import (
    Combatant,
    Condition,
    Decision,
    DecisionKind,
    Outcome,
    Side,
    Status,
)
from escaramuza.rules.core.ruleset import new_battle
from escaramuza.rules.core.scenario import Scenario, load_scenario, shipped_scenarios
from escaramuza.rules.core.state import BattleState

FORMAT = "escaramuza-state"
VERSION = 1
_SCENARIO_MARK = "$scenario"

#: Largest state file read. A state of a shipped scenario is about
#: 10 KiB; one saved by the web page carries its scenario's YAML (at most 256 KiB).
MAX_STATE_BYTES = 1 << 20


class StateFileError(EscaramuzaError):
    """A state file that cannot be read or used: names the file, the field and the reason."""

    def __init__(
        self, source: str, field: str, reason: str, problems: Sequence[Problem] = ()
    ) -> None:
        self.source = source
        self.field = field = clip(field, 120)
        self.reason = reason = clip(reason)
        #: Every problem found (``escaramuza validate`` lists them); the message is the first.
        self.problems: tuple[Problem, ...] = tuple(problems) or (Problem(field, reason),)
        more = len(self.problems) - 1
        tail = ""
        if more:
            tail = f" (and {more} more problem(s); `escaramuza validate` lists them all)"
        text = f"{source}: {field}: {reason}" if field else f"{source}: {reason}"
        super().__init__(text + tail)

    @classmethod
    def of(cls, source: str, problems: Sequence[Problem]) -> StateFileError:
        """One error for several problems: the first one's field and reason, all kept."""
        return cls(source, problems[0].field, problems[0].reason, problems)


class _Unencodable(Exception):
    pass


# -- values ---------------------------------------------------------------------------


def encode_value(value: Any) -> Any:
    """A bookkeeping value as JSON (see the module docstring); raises on anything mutable."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Enum):
        cls = type(value)
        return {"$enum": f"{cls.__module__}:{cls.__qualname__}", "value": value.value}
    if isinstance(value, tuple):
        return [encode_value(v) for v in value]
    if isinstance(value, frozenset):
        items = [encode_value(v) for v in value]
        return {"$frozenset": sorted(items, key=lambda v: json.dumps(v, sort_keys=True))}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        return {
            "$type": f"{cls.__module__}:{cls.__qualname__}",
            "fields": {
                f.name: encode_value(getattr(value, f.name)) for f in dataclasses.fields(value)
            },
        }
    raise _Unencodable(type(value).__name__)


def _type_ref(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


@cache
def state_types() -> dict[str, type]:
    """Every class a state file may name (``$type``/``$enum``), by its ``module:Class``.

    The core's values and each ruleset's ``bookkeeping.STATE_TYPES`` — an explicit list,
    so a file can never make the loader import a module.
    """
    classes: list[type] = list(CORE_STATE_TYPES)
    for ruleset_id in BOOKKEEPING:
        classes.extend(get_bookkeeping(ruleset_id).STATE_TYPES)
    return {_type_ref(cls): cls for cls in classes}


def _registered_class(ref: Any, field: str, source: str) -> type:
    cls = state_types().get(ref) if isinstance(ref, str) else None
    if cls is None:
        shown = ref if isinstance(ref, str) and len(ref) <= 80 else f"{str(ref)[:80]}…"
        raise StateFileError(
            source,
            field,
            f"unknown type {shown!r} (a state holds only the rulesets' own "
            "bookkeeping types; see docs/gm.md)",
        )
    return cls


def decode_value(raw: Any, field: str, source: str, reference: Any = None) -> Any:
    """The inverse of :func:`encode_value`; ``reference`` supplies ``{"$scenario": true}``."""
    if raw is None or isinstance(raw, bool | int | float | str):
        return raw
    if isinstance(raw, list):
        return tuple(decode_value(v, f"{field}[{i}]", source) for i, v in enumerate(raw))
    if not isinstance(raw, dict):
        raise StateFileError(source, field, f"unsupported value {_short(raw)}")
    if raw.get(_SCENARIO_MARK) is True:
        if reference is None:
            raise StateFileError(source, field, "the scenario has no value to take here")
        return reference
    if "$frozenset" in raw:
        items = raw["$frozenset"]
        if not isinstance(items, list):
            raise StateFileError(source, field, "$frozenset must be a list")
        return frozenset(decode_value(v, f"{field}[{i}]", source) for i, v in enumerate(items))
    if "$enum" in raw:
        cls = _registered_class(raw["$enum"], field, source)
        if not issubclass(cls, Enum):
            raise StateFileError(source, field, f"{_short(raw['$enum'])} is not an enum")
        try:
            return cls(raw.get("value"))
        except (ValueError, TypeError):
            bad = f"bad {cls.__name__} {_short(raw.get('value'))}"
            raise StateFileError(source, field, bad) from None
    if "$type" in raw:
        cls = _registered_class(raw["$type"], field, source)
        fields = raw.get("fields")
        if not dataclasses.is_dataclass(cls) or not isinstance(fields, dict):
            raise StateFileError(
                source, field, f"{_short(raw['$type'])} needs a dataclass and fields"
            )
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(fields) - names)
        if unknown:
            raise StateFileError(source, f"{field}.{unknown[0]}", "unknown field")
        values = {k: decode_value(v, f"{field}.{k}", source) for k, v in fields.items()}
        try:
            return cls(**values)
        except TypeError as exc:
            raise StateFileError(source, field, str(exc)) from None
    raise StateFileError(source, field, "unsupported JSON object (no $type, $enum, $frozenset)")


def _encode_data(
    data: dict[str, Any], reference: dict[str, Any], field: str, source: str
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        ref = reference.get(key, _MISSING)
        if dataclasses.is_dataclass(value) and (ref is value or ref == value):
            out[key] = {_SCENARIO_MARK: True}
            continue
        try:
            out[key] = encode_value(value)
        except _Unencodable as exc:
            if ref is value or ref == value:
                out[key] = {_SCENARIO_MARK: True}
            else:
                raise StateFileError(
                    source, f"{field}.{key}", f"a {exc} cannot be saved (not an immutable value)"
                ) from None
    return out


_MISSING = object()


# -- save -----------------------------------------------------------------------------


def scenario_reference(scenario: Scenario) -> str:
    """How a state file names its scenario: the shipped name, else the file's absolute path."""
    if scenario.name in shipped_scenarios():
        return scenario.name
    return str(Path(scenario.source).resolve())


def _reference_battle(scenario: Scenario) -> BattleState:
    # The fresh battle supplies the values written as {"$scenario": true}; its dice do
    # not matter because only scenario-derived values are ever taken from it.
    return new_battle(scenario, RandomRoller(0))


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
    """Write ``state`` to ``path`` atomically (temporary file + ``os.replace``)."""
    path = Path(path)
    doc = state_to_dict(state, meta, str(path))
    text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    try:
        atomic_write(path, text)
    except OSError as exc:
        raise StateFileError(str(path), "", f"cannot be written ({exc.strerror})") from None


# -- load -----------------------------------------------------------------------------


def load_state(path: str | Path) -> tuple[BattleState, dict[str, Any]]:
    """Read and validate a state file; return the state and its ``meta`` block."""
    path = Path(path)
    source = str(path)
    # What a killed autosave of this file left behind goes first.
    remove_stale_temporaries(path)
    text = read_text_file(path, StateFileError, "a state file", MAX_STATE_BYTES)
    doc = parse_json(text, source, StateFileError)
    return state_from_dict(doc, source, base_dir=path.parent)


def is_state_file(path: str | Path) -> bool:
    """True if ``path`` names a state file (``.json``) rather than a scenario (YAML or name)."""
    return str(path).lower().endswith(".json")


def _need(
    doc: dict[str, Any], key: str, kind: type | tuple[type, ...], field: str, source: str
) -> Any:
    if key not in doc:
        raise StateFileError(source, field, "required field is missing")
    value = doc[key]
    bad_bool = isinstance(value, bool) and kind in (int, (int, float))
    if bad_bool or not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise StateFileError(source, field, f"expected {_json_name(names)}, got {_short(value)}")
    return value


def _json_name(names: str) -> str:
    return (
        names.replace("dict", "an object")
        .replace("list", "a list")
        .replace("str", "a string")
        .replace("int", "an integer")
    )


def _resolve_scenario(ref: str, base_dir: Path | None, source: str) -> Scenario:
    candidates = [ref]
    if base_dir is not None and not Path(ref).is_absolute() and ref not in shipped_scenarios():
        candidates.insert(0, str(base_dir / ref))
    last: EscaramuzaError | None = None
    for name in candidates:
        try:
            return load_scenario(name)
        except EscaramuzaError as exc:
            last = exc
    raise StateFileError(source, "scenario", f"cannot load scenario {_short(ref)}: {last}")


def state_from_dict(
    doc: Any,
    source: str = "<state>",
    base_dir: Path | None = None,
    scenario: Scenario | None = None,
) -> tuple[BattleState, dict[str, Any]]:
    """Validate a state document and build the :class:`BattleState` it describes.

    ``scenario`` given means the caller already has the battle's scenario (the web
    page parses the YAML an uploaded state file carries): the document's
    ``scenario`` field must still be a string, but is not looked up.
    """
    if not isinstance(doc, dict):
        raise StateFileError(source, "", "a state file must be a JSON object")
    # A document built in memory (the web page's upload) gets the same bounds as a file.
    check_tree(doc, source, StateFileError)
    if doc.get("format") != FORMAT:
        raise StateFileError(
            source, "format", f"expected {FORMAT!r}, got {_short(doc.get('format'))}"
        )
    version = _need(doc, "version", int, "version", source)
    if version != VERSION:
        raise StateFileError(
            source, "version", f"unsupported version {version} (this escaramuza reads {VERSION})"
        )
    ref = _need(doc, "scenario", str, "scenario", source)
    if scenario is None:
        scenario = _resolve_scenario(ref, base_dir, source)
    ruleset = _need(doc, "ruleset", str, "ruleset", source)
    if ruleset != scenario.ruleset.id:
        raise StateFileError(
            source, "ruleset", f"{_short(ruleset)} but the scenario is {scenario.ruleset.id!r}"
        )
    state = BattleState(scenario, [c.clone() for c in scenario.combatants])
    state.round = _need(doc, "round", int, "round", source)
    if not 0 <= state.round <= scenario.round_limit:
        raise StateFileError(
            source, "round", f"{state.round} is outside 0–{scenario.round_limit} (round_limit)"
        )
    state.turn = _need(doc, "turn", int, "turn", source)
    order = _need(doc, "order", list, "order", source)
    for i, cid in enumerate(order):
        if not isinstance(cid, str) or cid not in state.by_id:
            raise StateFileError(source, f"order[{i}]", _unknown(cid, state))
        if cid in order[:i]:
            raise StateFileError(source, f"order[{i}]", f"combatant {cid!r} appears twice")
    state.order = tuple(order)
    found: list[Problem] = []  # values out of range: every one is reported together
    _load_combatants(doc, state, source, found)
    state.outcome = _load_outcome(doc.get("outcome"), source)
    state.pending = _load_pending(doc.get("pending"), state, source)
    data = _need(doc, "data", dict, "data", source)
    fresh: dict[str, Any] | None = None
    for key, raw in data.items():
        ref = None
        if isinstance(raw, dict) and raw.get(_SCENARIO_MARK) is True:
            fresh = fresh if fresh is not None else _reference_battle(scenario).data
            ref = fresh.get(key)
        state.data[key] = decode_value(raw, f"data.{key}", source, ref)
    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        raise StateFileError(source, "meta", "expected an object")
    found.extend(_counter_problems(state))
    if found:
        raise StateFileError.of(source, found)
    try:
        # The ruleset's own schema of its bookkeeping and the invariants its engine
        # relies on: what passes here can be played.
        get_bookkeeping(state.ruleset.id).check_state(state)
    except BookkeepingError as exc:
        raise StateFileError(source, exc.field, exc.reason) from None
    _check_playable(state, source)
    return state, meta


def _unknown(cid: Any, state: BattleState) -> str:
    return f"unknown combatant {_short(cid)} (combatants: {', '.join(state.by_id)})"


def _load_combatants(
    doc: dict[str, Any], state: BattleState, source: str, found: list[Problem]
) -> None:
    raw_list = _need(doc, "combatants", list, "combatants", source)
    seen: set[str] = set()
    zones = state.battlefield.zones
    for i, raw in enumerate(raw_list):
        where = f"combatants[{i}]"
        if not isinstance(raw, dict):
            raise StateFileError(source, where, "expected an object")
        cid = _need(raw, "id", str, f"{where}.id", source)
        if cid not in state.by_id:
            raise StateFileError(source, f"{where}.id", _unknown(cid, state))
        if cid in seen:
            raise StateFileError(source, f"{where}.id", f"combatant {cid!r} appears twice")
        seen.add(cid)
        c = state.by_id[cid]
        zone = _need(raw, "zone", str, f"{where}.zone", source)
        if zone not in zones:
            raise StateFileError(
                source,
                f"{where}.zone",
                f"unknown zone {_short(zone)} (zones: {', '.join(state.battlefield.zone_ids)})",
            )
        c.zone = zone
        status = _need(raw, "status", str, f"{where}.status", source)
        try:
            c.status = Status(status)
        except ValueError:
            known = ", ".join(s.value for s in Status)
            raise StateFileError(
                source, f"{where}.status", f"unknown status {_short(status)} (known: {known})"
            ) from None
        _load_resources(raw, c, f"{where}.resources", source, found)
        c.conditions = _load_conditions(raw, state, f"{where}.conditions", source)
        data = _need(raw, "data", dict, f"{where}.data", source)
        base = state.scenario.combatant(cid).data
        c.data = {
            k: decode_value(v, f"{where}.data.{k}", source, base.get(k)) for k, v in data.items()
        }
    missing = [cid for cid in state.by_id if cid not in seen]
    if missing:
        raise StateFileError(source, "combatants", f"combatant(s) missing: {', '.join(missing)}")


def _load_resources(
    raw: dict[str, Any], c: Combatant, where: str, source: str, found: list[Problem]
) -> None:
    """``c``'s resources from the file; a value out of its range is added to ``found``
    (every one is reported), a value of the wrong kind stops the load."""
    res = _need(raw, "resources", dict, where, source)
    for key, value in res.items():
        if key not in c.resources:
            raise StateFileError(
                source,
                f"{where}.{key}",
                f"unknown resource for {c.id} (resources: {', '.join(c.resources)})",
            )
        if isinstance(value, bool) or not isinstance(value, int):
            raise StateFileError(
                source, f"{where}.{key}", f"expected an integer, got {_short(value)}"
            )
        # Every ruleset keeps its resources between 0 and the maximum the stat block gives
        # (damage stops at 0, healing and recovery at the maximum).
        top = c.maxima.get(key)
        if value < 0:
            found.append(
                Problem(f"{where}.{key}", f"{value} is below 0 ({c.id}'s {key} cannot be negative)")
            )
        elif top is not None and value > top:
            found.append(Problem(f"{where}.{key}", f"{value} is above {c.id}'s maximum of {top}"))
        else:
            c.resources[key] = value
    missing = [k for k in c.resources if k not in res]
    if missing:
        raise StateFileError(source, f"{where}.{missing[0]}", "required field is missing")


_CONDITION_FIELDS = {f.name: f for f in dataclasses.fields(Condition)}


def _load_conditions(
    raw: dict[str, Any], state: BattleState, where: str, source: str
) -> dict[str, Condition]:
    items = _need(raw, "conditions", list, where, source)
    out: dict[str, Condition] = {}
    types = {
        "name": str,
        "value": int,
        "source": str,
        "persistent": bool,
        "until": str,
        "dice": str,
    }
    for j, item in enumerate(items):
        at = f"{where}[{j}]"
        if not isinstance(item, dict):
            raise StateFileError(source, at, "expected an object")
        for key, value in item.items():
            if key not in _CONDITION_FIELDS:
                raise StateFileError(source, f"{at}.{key}", "unknown field")
            kind = types[key]
            ok = value is None and key not in ("name", "value", "persistent")
            ok = ok or (isinstance(value, kind) and (kind is bool or not isinstance(value, bool)))
            if not ok:
                raise StateFileError(
                    source,
                    f"{at}.{key}",
                    f"expected {_json_name(kind.__name__)}, got {_short(value)}",
                )
        name = _need(item, "name", str, f"{at}.name", source)
        if item.get("source") is not None and item["source"] not in state.by_id:
            raise StateFileError(source, f"{at}.source", _unknown(item["source"], state))
        out[name] = Condition(**item)
    return out


def _load_outcome(raw: Any, source: str) -> Outcome | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise StateFileError(source, "outcome", "expected an object or null")
    winner = raw.get("winner")
    if winner is not None and winner not in (s.value for s in Side):
        raise StateFileError(source, "outcome.winner", f"unknown side {_short(winner)}")
    reason = _need(raw, "reason", str, "outcome.reason", source)
    rounds = _need(raw, "rounds", int, "outcome.rounds", source)
    if rounds < 0:
        raise StateFileError(source, "outcome.rounds", f"{rounds} is negative")
    return Outcome(Side(winner) if winner else None, reason, rounds)


def _load_pending(raw: Any, state: BattleState, source: str) -> Decision | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise StateFileError(source, "pending", "expected an object or null")
    kind = _need(raw, "kind", str, "pending.kind", source)
    kinds = {k.name.lower(): k for k in DecisionKind}
    if kind not in kinds:
        raise StateFileError(
            source, "pending.kind", f"unknown kind {_short(kind)} (known: {', '.join(kinds)})"
        )
    actor = _need(raw, "actor", str, "pending.actor", source)
    if actor not in state.by_id:
        raise StateFileError(source, "pending.actor", _unknown(actor, state))
    side = state.by_id[actor].side
    if raw.get("side", side.value) != side.value:
        raise StateFileError(
            source, "pending.side", f"{_short(raw.get('side'))} but {actor} is on the {side.value}"
        )
    name = _need(raw, "name", str, "pending.name", source)
    names = state.ruleset.decision_names
    if name not in names:
        raise StateFileError(
            source, "pending.name", f"unknown decision {_short(name)} (known: {', '.join(names)})"
        )
    prompt = raw.get("prompt", "")
    if not isinstance(prompt, str):
        raise StateFileError(source, "pending.prompt", f"expected a string, got {_short(prompt)}")
    return Decision(kinds[kind], actor, side, name, prompt)


def _counter_problems(state: BattleState) -> list[Problem]:
    """What every ruleset's battle keeps true of its round, turn, order, outcome and
    pending decision (the ruleset's own bookkeeping checks say the rest)."""
    out: list[Problem] = []
    if not 0 <= state.turn <= MAX_COUNTER:
        out.append(Problem("turn", f"{state.turn} is outside 0–{MAX_COUNTER}"))
    outcome = state.outcome
    if outcome is not None:
        if outcome.rounds != state.round:
            out.append(
                Problem(
                    "outcome.rounds",
                    f"{outcome.rounds} but the battle ended in round {state.round} (round)",
                )
            )
        return out
    if state.round < 1:
        out.append(
            Problem("round", f"{state.round} while the battle is not over (rounds count from 1)")
        )
    if state.ruleset.keeps_order:  # every combatant able to act has a place in it
        missing = [c.id for c in state.combatants if c.active and c.id not in state.order]
        if missing:
            out.append(Problem("order", f"{', '.join(missing)} can act but is not in the order"))
    pending = state.pending
    if pending is not None:
        actor = state.by_id[pending.actor]
        if not actor.active:
            out.append(
                Problem(
                    "pending.actor",
                    f"{actor.id} is {actor.status.value}: only an active combatant decides",
                )
            )
    return out


def _check_playable(state: BattleState, source: str) -> None:
    if state.outcome is not None:
        if state.pending is not None:
            raise StateFileError(source, "pending", "must be null once the battle is over")
        return
    if state.pending is None:
        raise StateFileError(source, "pending", "required while the battle is not over")
    try:
        actions = state.ruleset.legal_actions(state)
    except Exception as exc:  # any ruleset failure means an inconsistent file
        raise StateFileError(
            source,
            "pending",
            f"the {state.ruleset.id} ruleset cannot continue from this state "
            f"({type(exc).__name__}: {exc}); a bookkeeping field in data is probably missing",
        ) from None
    if not actions:
        raise StateFileError(source, "pending", "the pending decision has no legal action")
