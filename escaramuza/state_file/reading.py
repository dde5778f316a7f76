"""A state file read and validated into the battle state it describes; every problem is a
:class:`~escaramuza.state_file.errors.StateFileError` naming the file, the field and the
reason."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from escaramuza.rules import get_bookkeeping
from escaramuza.rules.core.bookkeeping import MAX_COUNTER, BookkeepingError
from escaramuza.rules.core.bookkeeping import short as _short
from escaramuza.rules.core.errors import EscaramuzaError, Problem
from escaramuza.rules.core.files import read_text_file, remove_stale_temporaries
from escaramuza.rules.core.i18n import N_, _, _f, either, ngettext, word
from escaramuza.rules.core.model import (
    Combatant,
    Condition,
    Decision,
    DecisionKind,
    Outcome,
    Side,
    Status,
)
from escaramuza.rules.core.parsers import check_tree, parse_json
from escaramuza.rules.core.scenario import Scenario, load_scenario, shipped_scenarios
from escaramuza.rules.core.seeds import MAX_SEED, MAX_STEPS, seed_problem
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file.errors import StateFileError
from escaramuza.state_file.values import _SCENARIO_MARK, _reference_battle, decode_value
from escaramuza.state_file.writing import FORMAT, VERSION

#: Largest state file read. A state of a shipped scenario is about
#: 10 KiB; one saved by the web page carries its scenario's YAML (at most 256 KiB).
MAX_STATE_BYTES = 1 << 20

#: Who rolls the dice of a GM session (``meta.roll``, ``escaramuza gm --roll``): the tool
#: or the table.
ROLL_MODES = ("auto", "manual")


def load_state(path: str | Path) -> tuple[BattleState, dict[str, Any]]:
    """Read and validate a state file; return the state and its ``meta`` block."""
    path = Path(path)
    source = str(path)
    # What a killed autosave of this file left behind goes first.
    remove_stale_temporaries(path)
    text = read_text_file(path, StateFileError, _("a state file"), MAX_STATE_BYTES)
    doc = parse_json(text, source, StateFileError)
    return state_from_dict(doc, source, base_dir=path.parent)


def is_state_file(path: str | Path) -> bool:
    """True if ``path`` names a state file (``.json``) rather than a scenario (YAML or name)."""
    return str(path).lower().endswith(".json")


def _need(
    doc: dict[str, Any], key: str, kind: type | tuple[type, ...], field: str, source: str
) -> Any:
    if key not in doc:
        raise StateFileError(source, field, _("required field is missing"))
    value = doc[key]
    bad_bool = isinstance(value, bool) and kind in (int, (int, float))
    if bad_bool or not isinstance(value, kind):
        raise StateFileError(source, field, _expected(kind, value))
    return value


#: The JSON names of the Python types a state file's values are checked against.
_JSON_NAMES: dict[type, str] = {
    dict: N_("an object"),
    list: N_("a list"),
    str: N_("a string"),
    int: N_("an integer"),
    float: N_("a number"),
    bool: N_("true or false"),
}


def _json_name(kind: type | tuple[type, ...]) -> str:
    """``kind`` as JSON names it, in the current language ("an integer or a number")."""
    kinds = (kind,) if isinstance(kind, type) else kind
    return either([_(_JSON_NAMES[k]) if k in _JSON_NAMES else k.__name__ for k in kinds])


def _expected(kind: type | tuple[type, ...], value: Any) -> str:
    return _f("expected {expected}, got {value}", _json_name(kind), _short(value))


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
    raise StateFileError(
        source, "scenario", _f("cannot load scenario {name}: {error}", _short(ref), str(last))
    )


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
        raise StateFileError(source, "", _("a state file must be a JSON object"))
    # A document built in memory (the web page's upload) gets the same bounds as a file.
    check_tree(doc, source, StateFileError)
    if doc.get("format") != FORMAT:
        raise StateFileError(
            source,
            "format",
            _f("expected {expected}, got {value}", repr(FORMAT), _short(doc.get("format"))),
        )
    version = _need(doc, "version", int, "version", source)
    if version != VERSION:
        raise StateFileError(
            source,
            "version",
            _f(
                "unsupported version {version} (this escaramuza reads {supported})",
                version,
                VERSION,
            ),
        )
    ref = _need(doc, "scenario", str, "scenario", source)
    if scenario is None:
        scenario = _resolve_scenario(ref, base_dir, source)
    ruleset = _need(doc, "ruleset", str, "ruleset", source)
    if ruleset != scenario.ruleset.id:
        raise StateFileError(
            source,
            "ruleset",
            _f(
                "{ruleset} but the scenario is {scenario}",
                _short(ruleset),
                repr(scenario.ruleset.id),
            ),
        )
    state = BattleState(scenario, [c.clone() for c in scenario.combatants])
    state.round = _need(doc, "round", int, "round", source)  # bounded by _counter_problems
    state.turn = _need(doc, "turn", int, "turn", source)
    order = _need(doc, "order", list, "order", source)
    for i, cid in enumerate(order):
        if not isinstance(cid, str) or cid not in state.by_id:
            raise StateFileError(source, f"order[{i}]", _unknown(cid, state))
        if cid in order[:i]:
            raise StateFileError(source, f"order[{i}]", _twice(cid))
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
        raise StateFileError(source, "meta", _("expected an object"))
    _check_meta(meta, source)
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


def _check_meta(meta: dict[str, Any], source: str) -> None:
    """The GM session's fields of ``meta`` (each optional): a seed the tool accepts, a
    step count up to ``MAX_STEPS`` (the session's dice are seeded with ``seed + steps``)
    and who rolls. ``meta.autopilot`` is checked where it is read
    (:func:`escaramuza.gm.autopilot.pilot_from_meta`)."""
    for key, top in (("seed", MAX_SEED), ("steps", MAX_STEPS)):
        if key in meta:
            reason = seed_problem(meta[key], top)
            if reason is not None:
                raise StateFileError(source, f"meta.{key}", reason)
    roll = meta.get("roll", ROLL_MODES[0])
    if roll not in ROLL_MODES:
        raise StateFileError(
            source,
            "meta.roll",
            _f("unknown roll mode {mode} (known: {known})", _short(roll), ", ".join(ROLL_MODES)),
        )


def _check_side(raw: dict[str, Any], c: Combatant, field: str, source: str) -> None:
    """The side a file gives ``c`` (optional): one of the sides, and ``c``'s own (a
    combatant's side is its scenario's; no rule changes it)."""
    side = raw.get("side", c.side.value)
    sides = [s.value for s in Side]
    if side not in sides:
        raise StateFileError(
            source,
            field,
            _f("unknown side {side} (known: {known})", _short(side), ", ".join(sides)),
        )
    if side != c.side.value:
        raise StateFileError(
            source,
            field,
            _f("{side} but {actor} is on the {actual}", _short(side), c.id, word(c.side.value)),
        )


def _unknown(cid: Any, state: BattleState) -> str:
    return _f("unknown combatant {id} (combatants: {known})", _short(cid), ", ".join(state.by_id))


def _twice(cid: str) -> str:
    return _f("combatant {id} appears twice", repr(cid))


def _load_combatants(
    doc: dict[str, Any], state: BattleState, source: str, found: list[Problem]
) -> None:
    raw_list = _need(doc, "combatants", list, "combatants", source)
    seen: set[str] = set()
    zones = state.battlefield.zones
    for i, raw in enumerate(raw_list):
        where = f"combatants[{i}]"
        if not isinstance(raw, dict):
            raise StateFileError(source, where, _("expected an object"))
        cid = _need(raw, "id", str, f"{where}.id", source)
        if cid not in state.by_id:
            raise StateFileError(source, f"{where}.id", _unknown(cid, state))
        if cid in seen:
            raise StateFileError(source, f"{where}.id", _twice(cid))
        seen.add(cid)
        c = state.by_id[cid]
        _check_side(raw, c, f"{where}.side", source)
        zone = _need(raw, "zone", str, f"{where}.zone", source)
        if zone not in zones:
            raise StateFileError(
                source,
                f"{where}.zone",
                _f(
                    "unknown zone {zone} (zones: {known})",
                    _short(zone),
                    ", ".join(state.battlefield.zone_ids),
                ),
            )
        c.zone = zone
        status = _need(raw, "status", str, f"{where}.status", source)
        try:
            c.status = Status(status)
        except ValueError:
            known = ", ".join(s.value for s in Status)
            raise StateFileError(
                source,
                f"{where}.status",
                _f("unknown status {status} (known: {known})", _short(status), known),
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
        reason = ngettext(
            "combatant missing: {ids}", "combatants missing: {ids}", len(missing)
        ).format(ids=", ".join(missing))
        raise StateFileError(source, "combatants", reason)


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
                _f("unknown resource for {id} (resources: {known})", c.id, ", ".join(c.resources)),
            )
        if isinstance(value, bool) or not isinstance(value, int):
            raise StateFileError(source, f"{where}.{key}", _expected(int, value))
        # Every ruleset keeps its resources between 0 and the maximum the stat block gives
        # (damage stops at 0, healing and recovery at the maximum).
        top = c.maxima.get(key)
        if value < 0:
            reason = _f("{value} is below 0 ({id}'s {key} cannot be negative)", value, c.id, key)
            found.append(Problem(f"{where}.{key}", reason))
        elif top is not None and value > top:
            reason = _f("{value} is above {id}'s maximum of {top}", value, c.id, top)
            found.append(Problem(f"{where}.{key}", reason))
        else:
            c.resources[key] = value
    missing = [k for k in c.resources if k not in res]
    if missing:
        raise StateFileError(source, f"{where}.{missing[0]}", _("required field is missing"))


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
            raise StateFileError(source, at, _("expected an object"))
        for key, value in item.items():
            if key not in _CONDITION_FIELDS:
                raise StateFileError(source, f"{at}.{key}", _("unknown field"))
            kind = types[key]
            ok = value is None and key not in ("name", "value", "persistent")
            ok = ok or (isinstance(value, kind) and (kind is bool or not isinstance(value, bool)))
            if not ok:
                raise StateFileError(source, f"{at}.{key}", _expected(kind, value))
        name = _need(item, "name", str, f"{at}.name", source)
        condition = Condition(**item)
        for cid in condition.sources():
            if cid not in state.by_id:
                raise StateFileError(source, f"{at}.source", _unknown(cid, state))
        out[name] = condition
    return out


def _load_outcome(raw: Any, source: str) -> Outcome | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise StateFileError(source, "outcome", _("expected an object or null"))
    winner = raw.get("winner")
    if winner is not None and winner not in (s.value for s in Side):
        raise StateFileError(source, "outcome.winner", _f("unknown side {side}", _short(winner)))
    reason = _need(raw, "reason", str, "outcome.reason", source)
    rounds = _need(raw, "rounds", int, "outcome.rounds", source)
    if rounds < 0:
        raise StateFileError(source, "outcome.rounds", _f("{rounds} is negative", rounds))
    return Outcome(Side(winner) if winner else None, reason, rounds)


def _load_pending(raw: Any, state: BattleState, source: str) -> Decision | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise StateFileError(source, "pending", _("expected an object or null"))
    kind = _need(raw, "kind", str, "pending.kind", source)
    kinds = {k.name.lower(): k for k in DecisionKind}
    if kind not in kinds:
        raise StateFileError(
            source,
            "pending.kind",
            _f("unknown kind {kind} (known: {known})", _short(kind), ", ".join(kinds)),
        )
    actor = _need(raw, "actor", str, "pending.actor", source)
    if actor not in state.by_id:
        raise StateFileError(source, "pending.actor", _unknown(actor, state))
    side = state.by_id[actor].side
    _check_side(raw, state.by_id[actor], "pending.side", source)
    name = _need(raw, "name", str, "pending.name", source)
    names = state.ruleset.decision_names
    if name not in names:
        raise StateFileError(
            source,
            "pending.name",
            _f("unknown decision {name} (known: {known})", _short(name), ", ".join(names)),
        )
    prompt = raw.get("prompt", "")
    if not isinstance(prompt, str):
        raise StateFileError(source, "pending.prompt", _expected(str, prompt))
    return Decision(kinds[kind], actor, side, name, prompt)


def _counter_problems(state: BattleState) -> list[Problem]:
    """What every ruleset's battle keeps true of its round, turn, order, outcome and
    pending decision (the ruleset's own bookkeeping checks say the rest)."""
    out: list[Problem] = []
    if not 0 <= state.turn <= MAX_COUNTER:
        out.append(Problem("turn", _f("{turn} is outside 0–{top}", state.turn, MAX_COUNTER)))
    outcome = state.outcome
    # One range and one message for the round, over or not: it counts from 1 while the
    # battle goes on (0 only in one over before its first round) to the round limit.
    first, limit = (1 if outcome is None else 0), state.scenario.round_limit
    if not first <= state.round <= limit:
        reason = _f(
            "{round} is outside {first}–{limit} (rounds count from 1 while the battle goes "
            "on, up to the scenario's round_limit)",
            state.round,
            first,
            limit,
        )
        out.append(Problem("round", reason))
    if outcome is not None:
        if outcome.rounds != state.round:
            reason = _f(
                "{rounds} but the battle ended in round {round} (round)",
                outcome.rounds,
                state.round,
            )
            out.append(Problem("outcome.rounds", reason))
        return out
    if state.ruleset.keeps_order:  # every combatant able to act has a place in it
        missing = [c.id for c in state.combatants if c.active and c.id not in state.order]
        if missing:
            reason = ngettext(
                "{ids} can act but is not in the order",
                "{ids} can act but are not in the order",
                len(missing),
            ).format(ids=", ".join(missing))
            out.append(Problem("order", reason))
    pending = state.pending
    if pending is not None:
        actor = state.by_id[pending.actor]
        if not actor.active:
            reason = _f(
                "{id} is {status}: only an active combatant decides",
                actor.id,
                word(actor.status.value),
            )
            out.append(Problem("pending.actor", reason))
    return out


def _check_playable(state: BattleState, source: str) -> None:
    if state.outcome is not None:
        if state.pending is not None:
            raise StateFileError(source, "pending", _("must be null once the battle is over"))
        return
    if state.pending is None:
        raise StateFileError(source, "pending", _("required while the battle is not over"))
    try:
        actions = state.ruleset.legal_actions(state)
    except Exception as exc:  # any ruleset failure means an inconsistent file
        raise StateFileError(
            source,
            "pending",
            _f(
                "the {ruleset} ruleset cannot continue from this state ({error}); a bookkeeping "
                "field in data is probably missing",
                state.ruleset.id,
                f"{type(exc).__name__}: {exc}",
            ),
        ) from None
    if not actions:
        raise StateFileError(source, "pending", _("the pending decision has no legal action"))
