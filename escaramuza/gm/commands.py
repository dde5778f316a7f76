"""The commands that change the battle, and how the session reads them: edits of the table
state (``set``, ``status``, ``move``, ``cond``), dice (``roll``, ``initiative``), actions
(``apply``), advice (``suggest``) and ``load``.

Every command is checked before anything changes: an edit or an action is carried out on
a copy of the battle and only kept if it succeeds, so a mistyped command, an unknown
combatant or a wrong die leaves the battle as it was.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from escaramuza.agents.search import check_budget
from escaramuza.agents.suggest import Suggestions, suggest
from escaramuza.gm.autopilot import pilot_from_meta
from escaramuza.gm.render import SessionViews
from escaramuza.gm.state import GMError, SessionState, file_argument, open_battle
from escaramuza.rules.core.dice import RandomRoller, Roller, ScriptedDie, ScriptedRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.events import ActionTaken, Event
from escaramuza.rules.core.i18n import _, _f, word
from escaramuza.rules.core.model import Action, Combatant, Status
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file import (
    ROLL_MODES,
    StateFileError,
    is_state_file,
    state_from_dict,
    state_to_dict,
)


def start_from(
    scenario: Scenario,
    now: list[Combatant],
    last: tuple[list[Combatant], list[Combatant]] | None,
) -> list[Combatant]:
    """The combatants a new start of the battle begins from: those the last start began
    from (before any, the scenario's), with what the GM changed since that start left
    them (zone, status, each resource and condition: before any start, what differs from
    the scenario), and not the start's own changes — the first actor's actions, a failed
    first-round save's condition —, which the new start makes again as its dice fall."""
    began, left = last if last is not None else (scenario.combatants, scenario.combatants)
    out: list[Combatant] = []
    for base, start, c in zip(began, left, now, strict=True):
        new = base.clone()
        if c.zone != start.zone:
            new.zone = c.zone
        if c.status != start.status:
            new.status = c.status
        for name in start.resources.keys() | c.resources.keys():
            if c.resources.get(name) != start.resources.get(name):
                new.resources[name] = c.resources[name]
        for name in start.conditions.keys() | c.conditions.keys():
            if c.conditions.get(name) != start.conditions.get(name):
                if name in c.conditions:
                    new.conditions[name] = c.conditions[name]
                else:
                    new.conditions.pop(name, None)
        out.append(new)
    return out


class RollAborted(GMError):
    """The GM gave no die at a manual-roll prompt."""


class PromptRoller:
    """Asks the GM for each die (``roll manual``): the dice actually rolled at the table."""

    def __init__(self, session: SessionState) -> None:
        self.session = session

    def roll(self, sides: int, why: str = "") -> int:
        for _attempt in range(3):
            # The rules name their dice with untranslated msgids (the hot loop pays
            # nothing for them); a name composed of translated parts is left as it is.
            what = _(why) if why else _("a roll")
            line = self.session.read_line(_f("  d{sides} for {what}? ", sides, what))
            if line is None or not line.strip():
                raise RollAborted(
                    _f("no d{sides} given for {what}: nothing was applied", sides, what)
                )
            text = line.strip()
            if text.isdecimal() and 1 <= int(text) <= sides:
                return int(text)
            self.session.say(
                _f("  {text} is not a d{sides} result (1–{sides}); try again.", repr(text), sides)
            )
        raise RollAborted(
            _f("no valid d{sides} given for {what}: nothing was applied", sides, what)
        )


def _milliseconds(text: str, usage: str) -> float:
    """Milliseconds (``300`` or ``300ms``) of a ``gm`` command, within the planner's bounds
    (:func:`check_budget`: finite, 10–60000), so that a search always ends."""
    try:
        value = float(text.removesuffix("ms"))
    except ValueError:
        raise GMError(_f("{usage} ({value} is not a number)", usage, repr(text))) from None
    try:
        check_budget(value, None, _("the budget"))
    except EscaramuzaError as exc:
        raise GMError(f"{exc}; {usage}") from None
    return value


class SessionCommands(SessionViews):
    """The commands that change the battle, checked before anything changes."""

    def onecmd(self, line: str) -> bool:
        try:
            return bool(super().onecmd(line))
        except EscaramuzaError as exc:
            self.say(_f("error: {message}", exc))
            return False

    def default(self, line: str) -> None:
        word = line.split()[0] if line.split() else line
        names = [n[3:] for n in self.get_names() if n.startswith("do_")]
        close = difflib.get_close_matches(word, names, n=2)
        hint = _f(" (did you mean {names}?)", _(" or ").join(close)) if close else ""
        self.say(
            _f(
                "unknown command {word}{hint}; type help for the commands. Nothing changed.",
                repr(word),
                hint,
            )
        )

    def _combatant(self, state: BattleState, cid: str) -> Any:
        return state.get(cid)  # UnknownNameError lists the known ids

    def _args(self, arg: str, count: int, usage: str) -> list[str]:
        parts = arg.split()
        if len(parts) != count:
            raise GMError(_f("usage: {usage}", usage))
        return parts

    def _edit(self, what: str, change: Callable[[BattleState], None]) -> None:
        if self.state.outcome is not None:
            self.say(_("note: the battle is over; the edit is kept but no decision is pending."))
        new = self.state.clone()
        change(new)
        if new.outcome is None and new.pending is not None:
            new.ruleset.check_end(new)
        try:
            # The edited battle as a state file would hold it, read back: an edit the
            # loader would refuse (the deciding combatant put out of the fight, an
            # active one missing from the order…) would leave a session nothing can
            # save, load or continue.
            state_from_dict(state_to_dict(new), "<edit>", scenario=new.scenario)
        except StateFileError as exc:
            raise GMError(
                _f("not done: it would leave {field}: {reason}", exc.field, exc.reason)
            ) from None
        self._commit(new, what)
        self.say(_f("ok: {what}.", what))

    # -- editing --------------------------------------------------------------------
    def do_set(self, arg: str) -> None:
        """The ``set`` command: see :data:`~escaramuza.gm.help.HELP`."""
        cid, key, raw = self._args(arg, 3, "set ID RESOURCE VALUE")
        c = self._combatant(self.state, cid)
        if key not in c.resources:
            raise GMError(
                _f(
                    "{id} has no resource {key} (resources: {known})",
                    cid,
                    repr(key),
                    ", ".join(c.resources),
                )
            )
        try:
            number = int(raw)
        except ValueError:
            raise GMError(_f("{value} is not a whole number", repr(raw))) from None
        value = c.resources[key] + number if raw[0] in "+-" else number
        top = c.maxima.get(key)
        if value < 0 or (top is not None and value > top):
            most = top if top is not None else "…"
            raise GMError(_f("{key} of {id} must be 0–{most}, not {value}", key, cid, most, value))

        def change(st: BattleState) -> None:
            st.by_id[cid].resources[key] = value

        self._edit(f"{cid} {key} {c.resources[key]} → {value}", change)

    def do_status(self, arg: str) -> None:
        """The ``status`` command: see :data:`~escaramuza.gm.help.HELP`."""
        cid, raw = self._args(arg, 2, "status ID active|down|defeated|dead|fled")
        c = self._combatant(self.state, cid)
        try:
            status = Status(raw)
        except ValueError:
            raise GMError(
                _f(
                    "unknown status {status} (known: {known})",
                    repr(raw),
                    ", ".join(s.value for s in Status),
                )
            ) from None

        def change(st: BattleState) -> None:
            st.by_id[cid].status = status

        self._edit(
            _f("{id} is {status} (was {before})", cid, word(status.value), word(c.status.value)),
            change,
        )

    def do_move(self, arg: str) -> None:
        """The ``move`` command: see :data:`~escaramuza.gm.help.HELP`."""
        cid, zone = self._args(arg, 2, "move ID ZONE")
        c = self._combatant(self.state, cid)
        self.state.battlefield.require(zone)

        def change(st: BattleState) -> None:
            st.by_id[cid].zone = zone

        self._edit(_f("{id} moved {before} → {zone}", cid, c.zone, zone), change)

    def do_cond(self, arg: str) -> None:
        """The ``cond`` command: see :data:`~escaramuza.gm.help.HELP`."""
        parts = arg.split()
        if len(parts) < 3 or parts[0] not in ("add", "remove"):
            raise GMError(_f("usage: {usage}", "cond add ID NAME [VALUE] | cond remove ID NAME"))
        op, cid, name = parts[:3]
        c = self._combatant(self.state, cid)
        if op == "remove":
            if len(parts) != 3:
                raise GMError(_f("usage: {usage}", "cond remove ID NAME"))
            if name not in c.conditions:
                have = ", ".join(c.conditions) or _("none")
                raise GMError(
                    _f("{id} has no condition {name} (has: {have})", cid, repr(name), have)
                )

            def drop(st: BattleState) -> None:
                del st.by_id[cid].conditions[name]

            self._edit(_f("{condition} removed from {id}", name, cid), drop)
            return
        rs = self.state.ruleset
        known = (*rs.conditions, *rs.condition_aliases)
        if name not in known:
            raise GMError(
                _f("unknown condition {name} (known: {known})", repr(name), ", ".join(known))
            )
        if len(parts) > 4:
            raise GMError(_f("usage: {usage}", "cond add ID NAME [VALUE]"))
        try:
            condition = rs.condition_from_gm(name, parts[3] if len(parts) == 4 else None)
        except ValueError as exc:
            raise GMError(str(exc)) from None

        def add(st: BattleState) -> None:
            st.by_id[cid].conditions[name] = condition

        self._edit(_f("{condition} added to {id}", condition.text(), cid), add)

    # -- dice and actions -------------------------------------------------------------
    def do_roll(self, arg: str) -> None:
        """The ``roll`` command: see :data:`~escaramuza.gm.help.HELP`."""
        mode = arg.strip()
        if not mode:
            self.say(_f("Dice: {mode}", self.roll_mode))
            return
        if mode not in ROLL_MODES:
            raise GMError(_f("usage: {usage}", "roll auto|manual"))
        self.roll_mode = mode
        self._autosave()
        self.say(_f("ok: dice are now {mode}.", mode))

    def _roller(self, dice: list[str] | None) -> Roller:
        if dice is not None:
            try:
                return ScriptedRoller(
                    [int(d) if d.isdecimal() else ScriptedDie.parse(d) for d in dice]
                )
            except EscaramuzaError as exc:
                raise GMError(_f("bad dice: {problem}", exc)) from None
        if self.roll_mode == "manual":
            return PromptRoller(self)
        # One generator per applied decision, derived from the session seed and the
        # step number, so a saved and reloaded session rolls the same dice.
        return RandomRoller(self.seed * 1_000_003 + self.steps)

    def numbered(self) -> list[Action]:
        """The actions as ``apply N`` numbers them now: the last list shown for the
        current state (``suggest``'s ranking or ``actions``), else the legal order."""
        st = self.state
        if self._numbered is not None and self._numbered[0] is st:
            return self._numbered[1]
        return st.ruleset.legal_actions(st)

    def _find_action(self, spec: str) -> Action:
        st = self.state
        actions = st.ruleset.legal_actions(st)
        text = spec.strip().lower()
        if text.isdecimal():
            n = int(text)
            shown = self.numbered()
            if not 1 <= n <= len(shown):
                raise GMError(_f("there is no action {n}: type actions (1–{count})", n, len(shown)))
            return shown[n - 1]
        labels = [f"{a} | {st.ruleset.describe(st, a)}".lower() for a in actions]
        exact = [a for a, lab in zip(actions, labels, strict=True) if text in lab.split(" | ")]
        if len(exact) == 1:
            return exact[0]
        words = text.split()
        found = [a for a, lab in zip(actions, labels, strict=True) if all(w in lab for w in words)]
        if len(found) == 1:
            return found[0]
        if not found:
            raise GMError(
                _f("no legal action matches {spec}; type actions to list them", repr(spec))
            )
        some = "; ".join(str(a) for a in found[:6]) + (" …" if len(found) > 6 else "")
        raise GMError(
            _f(
                "{spec} matches {n} actions ({some}); be more specific",
                repr(spec),
                len(found),
                some,
            )
        )

    def carry_out(
        self,
        action: Action,
        dice: list[str] | None,
        what: str,
        auto: bool = False,
        note: str | None = None,
    ) -> list[Event]:
        """Apply ``action`` to a copy of the battle with the given dice (None: the session's
        mode) and keep it as a change named ``what``: a step, undo-able, autosaved.
        ``auto``: the autopilot's decision; ``note``: a line the battle's log gets first
        (the autopilot's reason). On a failure nothing is kept."""
        roller = self._roller(dice)
        new = self.state.clone()
        if note is not None:
            new.log.append(ActionTaken(note, action.actor, str(action)))
        try:
            events = apply_action(new, action, roller)
            if isinstance(roller, ScriptedRoller):
                roller.assert_exhausted()
        except EscaramuzaError as exc:
            raise GMError(_f("{problem}; nothing was applied", exc)) from None
        self.steps += 1
        self.applied += 1
        self._commit(new, what, applied=True, auto=auto)
        return events

    def do_apply(self, arg: str) -> None:
        """The ``apply`` command: see :data:`~escaramuza.gm.help.HELP`."""
        st = self.state
        if st.outcome is not None or st.pending is None:
            raise GMError(_("the battle is over: there is nothing to apply"))
        words = arg.split()
        dice: list[str] | None = None
        if "dice" in words:
            at = words.index("dice")
            words, dice = words[:at], words[at + 1 :]
            if not dice:
                raise GMError(_("give the dice after 'dice', e.g. apply 3 dice 6 14 4 10"))
        if not words:
            raise GMError(_f("usage: {usage}", "apply N | apply ACTION-WORDS [dice D D …]"))
        action = self._find_action(" ".join(words))
        events = self.carry_out(action, dice, _f("apply [{action}]", action))
        self.say(f"» {st.ruleset.describe(st, action)}")
        for e in events:
            if e.text:
                self.say("    " + e.text)
        self._say_pending()

    def do_initiative(self, arg: str) -> None:
        """The ``initiative`` command: see :data:`~escaramuza.gm.help.HELP`."""
        if self.applied:
            raise GMError(_("initiative can only be entered before the first action (use undo)"))
        words = arg.split()
        dice = words[1:] if words and words[0] == "dice" else None
        if words and dice is None:
            raise GMError(_f("usage: {usage}", "initiative [dice D D …]"))
        # The tool's initiative is the one `play --seed` rolls: the battle's first dice
        # come from RandomRoller(seed), as in every other command.
        auto = dice is None and self.roll_mode == "auto"
        roller = RandomRoller(self.seed) if auto else self._roller(dice)
        # The start (initiative, the first round and turn) is redone from the combatants
        # it began from, with the GM's edits since kept.
        before = start_from(self.state.scenario, self.state.combatants, self.last_start)
        new = BattleState(self.state.scenario, [c.clone() for c in before])
        try:
            new.log.extend(new.ruleset.start(new, roller))
            if isinstance(roller, ScriptedRoller):
                roller.assert_exhausted()
        except EscaramuzaError as exc:
            raise GMError(_f("{problem}; nothing changed", exc)) from None
        self._commit(new, _("initiative"))
        self.last_start = (before, [c.clone() for c in new.combatants])
        for e in new.log:
            if e.text:
                self.say("    " + e.text)
        self._say_pending()

    # -- advice ---------------------------------------------------------------------
    def do_suggest(self, arg: str) -> None:
        """The ``suggest`` command: see :data:`~escaramuza.gm.help.HELP`."""
        usage = _f("usage: {usage}", "suggest [MS] [max MAX]")
        words = arg.split()
        max_ms: float | None = None
        if len(words) >= 2 and words[-2] == "max":
            max_ms = _milliseconds(words[-1], usage)
            words = words[:-2]
        if len(words) > 1:
            raise GMError(f"{usage} ({arg!r})")
        if not words and max_ms is None and self.iterations is not None:
            # The session's iteration budget (gm --iterations): a reproducible ranking.
            self._show_suggestions(
                suggest(
                    self.state,
                    budget_ms=None,
                    iterations=self.iterations,
                    seed=self.seed + self.steps,
                    engine=self.engine,
                )
            )
            return
        budget = _milliseconds(words[0], usage) if words else self.budget_ms
        if max_ms is None:
            max_ms = max(self.max_ms, budget)  # the session's default never cuts a budget
        elif max_ms < budget:
            raise GMError(
                _f(
                    "max {most} is below the budget ({budget} ms)",
                    format(max_ms, "g"),
                    format(budget, "g"),
                )
            )
        result = suggest(
            self.state,
            budget_ms=budget,
            seed=self.seed + self.steps,
            max_ms=max_ms,
            engine=self.engine,
        )
        self._show_suggestions(result)

    def _show_suggestions(self, result: Suggestions) -> None:
        """The ranking's table; ``apply N`` then takes the row ranked N."""
        self._numbered = (self.state, [row.action for row in result.items])
        self.say(result.table())
        self.say(_("apply N takes the action ranked N (type actions for the legal order)."))

    def do_load(self, arg: str) -> None:
        """The ``load`` command: see :data:`~escaramuza.gm.help.HELP`."""
        target = file_argument(arg)
        if not target:
            raise GMError(_f("usage: {usage}", "load FILE"))
        state, meta = open_battle(target, self.seed)
        pilot = pilot_from_meta(meta, self.engine, target)  # checked before anything changes
        before = (self.seed, self.steps, self.applied, self.last_start)
        # The loaded battle's dice go on as `gm FILE`'s would (its seed and steps); a
        # scenario's starts anew, its start made (what `initiative` may redo).
        if isinstance(meta.get("seed"), int):
            self.seed = meta["seed"]
        self.steps = meta["steps"] if isinstance(meta.get("steps"), int) else 0
        self.applied = 0
        fresh = not is_state_file(target)
        self.last_start = (
            ([c.clone() for c in state.scenario.combatants], [c.clone() for c in state.combatants])
            if fresh
            else None
        )
        self._commit(state, _f("load {path}", target), session=before)
        if pilot is not None:
            self.set_pilot(pilot)
        if self.saved_in is None and is_state_file(target):
            self._saved(target)  # no autosave: the file loaded still holds the battle
        self.say(_f("loaded {path}.", target))
        self._say_pending()
