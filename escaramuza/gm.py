"""The interactive game master session: ``escaramuza gm``.

The GM mirrors the table: set PV and other resources, move combatants, add or
remove conditions, enter the initiative and the dice actually rolled (or let
the tool roll), apply actions, undo, save and load, look at the battlefield and
ask for ranked suggestions at any point.

Every command is checked before anything changes: an edit or an action is
carried out on a copy of the battle and only kept if it succeeds, so a
mistyped command, an unknown combatant or a wrong die leaves the battle as it
was. After every change the session writes its autosave file (atomically), so
closing the terminal loses nothing. When that write fails (a full disk), the session
says so, and from then on says where the battle is only while a file holds it as it
is: ``quit`` then asks for a ``save FILE`` elsewhere first. The session reads commands
from any text stream, which is how the tests drive it.
"""

from __future__ import annotations

import cmd
import difflib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from escaramuza.agents.fast import DEFAULT_ENGINE, add_engine_option, warm_in_background
from escaramuza.agents.policy import add_trust_option
from escaramuza.agents.search import MAX_BUDGET_MS, MAX_ITERATIONS, MIN_BUDGET_MS, check_budget
from escaramuza.agents.suggest import (
    DEFAULT_BUDGET_MS,
    DEFAULT_MAX_MS,
    TABLE_WIDTH,
    load_policy,
    suggest,
)
from escaramuza.rules.core.dice import RandomRoller, Roller, ScriptedDie, ScriptedRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import N_, _, _f, outcome_reason, who_wins, word
from escaramuza.rules.core.model import Action, Status
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import Scenario, load_scenario
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file import is_state_file, load_state, save_state

#: Seed of the tool's own dice when none is given (reproducible sessions).
DEFAULT_SEED = 1
#: How many undo steps are kept.
UNDO_DEPTH = 200


#: Each command's help: its synopsis and one line of what it does, then any details.
#: ``help`` lists the first lines and ``help COMMAND`` shows one text whole.
HELP: dict[str, str] = {
    "actions": N_(
        "actions — the numbered legal actions of the pending decision (use with apply N)."
    ),
    "apply": N_(
        "apply N | apply ACTION-WORDS [dice D D …] — carry out a legal action."
        "\n\nN is the number in front of the action in the last list shown — the ranking of "
        "`suggest` (rank N) or `actions` — while the battle has not changed since; else "
        "its number in `actions`. Words pick the one action whose text holds them all "
        "(apply atacar rex arco). `dice 6 14 4 10` gives the dice in the order the rules "
        "roll them (or d20=14 to name the die); they must all be used. Without dice the "
        "tool rolls (roll auto) or asks for each die (roll manual)."
    ),
    "cond": N_(
        "cond add ID NAME [VALUE] | cond remove ID NAME — add or remove a condition."
        "\n\nNAME is one of the ruleset's conditions (or a variant of one, such as Sistema "
        "2d10's incapacitado_pierna_derecha); VALUE is its number (Envenenado 2). An "
        "added condition lasts until removed; removing one is how a GM heals it."
    ),
    "help": N_("help [COMMAND] — the commands, or one command in detail."),
    "initiative": N_(
        "initiative [dice D D …] — redo the start (initiative) with the table's dice."
        "\n\nOnly before the first action is applied; the dice go in the order the ruleset "
        "rolls them (every combatant in scenario order). Without dice the tool rolls "
        "(roll auto) or asks for each die (roll manual). Edits made so far are kept."
    ),
    "load": N_("load FILE — continue from a state file (or start a scenario afresh); undo-able."),
    "log": N_("log [N] — the last N events (default 15) of this session."),
    "map": N_("map — the zones (cover, exits), who stands in each, and the links."),
    "move": N_("move ID ZONE — put a combatant in a zone (no rules applied: the GM says so)."),
    "quit": N_(
        "quit — end the session (the autosave file keeps the battle)."
        "\n\nIf the last autosave failed (a full disk), the battle is in no file: the first "
        "quit says so and stays, for a save FILE elsewhere; quit again leaves anyway."
    ),
    "roll": N_(
        "roll [auto|manual] — who rolls the dice: the tool (auto) or the table (manual)."
        "\n\nauto: the tool rolls, seeded by the session seed and the step number.\n"
        "manual: every die is asked for at a prompt (an empty answer cancels the action).\n"
        "`apply N dice 6 14 …` gives the dice of one action whatever the mode."
    ),
    "save": N_("save FILE — write the battle to a state file (JSON; see docs/gm.md)."),
    "set": N_(
        "set ID RESOURCE VALUE — set a resource (pv 5); +N / -N change it by N."
        "\n\nThe value must be a whole number from 0 to the combatant's maximum. A status "
        "does not change by itself: use `status ID down` when a combatant drops."
    ),
    "show": N_("show — the round, whose decision is pending, and every combatant."),
    "status": N_("status ID STATUS — mark a combatant active, down, defeated, dead or fled."),
    "suggest": N_(
        "suggest [MS] [max MAX] — rank the pending combatant's actions."
        "\n\nSearches MS ms (default 800; MS and MAX are 10–60000: a search must end, so "
        "`suggest nan` or `1e99` is refused); while the best is too close to call it goes"
        " on up to MAX ms (default: the session's --max-ms, 3000), and stops as soon as "
        "it is clear there. Rows are ranked by the win chance (interval at 95%, rollouts), "
        "with the exact odds, the risk to the actor before its next turn, a reason and "
        "the in-character pick (*); actions too close to call are grouped, * first."
    ),
    "undo": N_("undo — take back the last change (edit, action or load)."),
}


class GMError(EscaramuzaError):
    """A GM command that cannot be carried out; the battle is left unchanged."""


class RollAborted(GMError):
    """The GM gave no die at a manual-roll prompt."""


class PromptRoller:
    """Asks the GM for each die (``roll manual``): the dice actually rolled at the table."""

    def __init__(self, session: GMSession) -> None:
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
            if text.isdigit() and 1 <= int(text) <= sides:
                return int(text)
            self.session.say(
                _f("  {text} is not a d{sides} result (1–{sides}); try again.", repr(text), sides)
            )
        raise RollAborted(
            _f(
                "no valid d{sides} given for {what}: nothing was applied",
                sides,
                _(why) if why else _("a roll"),
            )
        )


def default_autosave(scenario: Scenario) -> Path:
    """``<scenario stem>.autosave.json`` in the current directory."""
    return Path(f"{scenario.name.rsplit('/', 1)[-1]}.autosave.json")


def open_battle(target: str, seed: int = DEFAULT_SEED) -> tuple[BattleState, dict[str, Any]]:
    """A state file (``*.json``) as saved, or a fresh battle of a scenario (dice by ``seed``)."""
    if is_state_file(target):
        return load_state(target)
    return new_battle(load_scenario(target), RandomRoller(seed)), {}


class GMSession(cmd.Cmd):
    """The ``gm>`` command loop (``help`` lists the commands)."""

    prompt = "gm> "

    def __init__(
        self,
        state: BattleState,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        autosave: Path | None = None,
        seed: int = DEFAULT_SEED,
        roll: str = "auto",
        steps: int = 0,
        max_ms: float = DEFAULT_MAX_MS,
        engine: str = DEFAULT_ENGINE,
    ) -> None:
        super().__init__(stdin=stdin, stdout=stdout)
        # cmd uses input() (readline editing) only for the real terminal.
        self.use_rawinput = stdin is None
        self.state = state
        #: Undo stack: the battle before each change, what the change was (shown by undo)
        #: and whether it applied an action (undo then takes back its step).
        self.history: list[tuple[BattleState, str, bool]] = []
        self.autosave = autosave
        self.seed = seed
        self.roll_mode = roll
        self.steps = steps
        #: How long ``suggest`` may go on while the best is too close to call (``--max-ms``).
        self.max_ms = max_ms
        #: Where ``suggest``'s rollouts run (``--engine``; docs/fast-path.md).
        self.engine = engine
        self.applied = 0
        self.out: TextIO = stdout or sys.stdout
        #: The file that holds the battle as it is now (the autosave file, the last
        #: ``save FILE`` or the state file loaded), or None: what ``quit`` reports.
        self.saved_in: str | Path | None = None
        #: Whether the last autosave failed (a full disk, a read-only folder).
        self.autosave_failed = False
        #: Whether ``quit`` already warned that the battle is not saved.
        self._quit_warned = False
        #: The last numbered list of actions shown (``actions``: the legal order;
        #: ``suggest``: the ranking) and the state it was shown for: ``apply N`` takes
        #: the number in front of an action in it while that state is current.
        self._numbered: tuple[BattleState, list[Action]] | None = None

    # -- plumbing -------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def read_line(self, prompt: str) -> str | None:
        """One line from the GM (manual dice); None at the end of input."""
        if self.use_rawinput:
            try:
                return input(prompt)
            except EOFError:
                return None
        self.out.write(prompt)
        self.out.flush()
        line = self.stdin.readline()
        if not line:
            return None
        self.out.write(line if line.endswith("\n") else line + "\n")
        return line.rstrip("\n")

    def onecmd(self, line: str) -> bool:
        try:
            return bool(super().onecmd(line))
        except EscaramuzaError as exc:
            self.say(_f("error: {message}", exc))
            return False

    def emptyline(self) -> bool:
        # cmd repeats the last command on an empty line; at a table that would apply
        # an action twice, so an empty line does nothing.
        return False

    def default(self, line: str) -> bool:
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
        return False

    def _commit(self, new: BattleState, what: str, applied: bool = False) -> None:
        self.history.append((self.state, what, applied))
        del self.history[:-UNDO_DEPTH]
        self.state = new
        self._autosave()

    def _autosave(self) -> None:
        """Write the autosave file after a change; either way, note which file (if any)
        now holds the battle."""
        self.saved_in = None
        if self.autosave is None:
            return
        try:
            save_state(self.state, self.autosave, self.meta())
        except (EscaramuzaError, OSError) as exc:
            self.autosave_failed = True
            self.say(_f("warning: autosave failed: {message}", exc))
            return
        self._saved(self.autosave)
        if self.autosave_failed:
            self.autosave_failed = False
            self.say(_f("autosave works again: the battle is in {path}.", self.autosave))

    def _saved(self, path: str | Path) -> None:
        """``path`` holds the battle as it is now."""
        self.saved_in = path
        self._quit_warned = False

    def meta(self) -> dict[str, Any]:
        return {"seed": self.seed, "steps": self.steps, "roll": self.roll_mode}

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
        self._commit(new, what)
        self.say(_f("ok: {what}.", what))

    # -- looking --------------------------------------------------------------------
    def do_show(self, arg: str) -> None:
        """The ``show`` command: see :data:`HELP`."""
        st = self.state
        sc = st.scenario
        self.say(
            _f(
                "{title} [{name}, {ruleset}] — round {round}/{limit}",
                sc.title,
                sc.name,
                st.ruleset.name,
                st.round,
                sc.round_limit,
            )
        )
        if st.outcome is not None:
            self._say_outcome()
        elif st.pending is not None:
            c = st.by_id[st.pending.actor]
            self.say(
                _f(
                    "Pending: {name} [{id}] ({side}) — {decision}",
                    c.name,
                    c.id,
                    word(c.side.value),
                    word(st.pending.name),
                )
            )
        self.say(_f("Dice: {mode}", self.roll_mode))
        # Sides and statuses in words of the current language, each column as wide as
        # its longest entry (Spanish words are longer than the English ones).
        sides = {c.id: word(c.side.value) for c in st.combatants}
        statuses = {c.id: word(c.status.value) for c in st.combatants}
        w_side = max(map(len, sides.values()))
        w_status = max(map(len, statuses.values()))
        for c in st.combatants:
            mark = ">" if st.pending is not None and st.pending.actor == c.id else " "
            res = ", ".join(
                f"{k} {v}/{c.maxima[k]}" if k in c.maxima else f"{k} {v}"
                for k, v in c.resources.items()
            )
            conds = ", ".join(x.text() for x in c.conditions.values())
            self.say(
                f" {mark} {c.id:<14} {sides[c.id]:<{w_side}} {c.zone:<12} "
                f"{statuses[c.id]:<{w_status}} {res}" + (f"  [{conds}]" if conds else "")
            )

    def do_map(self, arg: str) -> None:
        """The ``map`` command: see :data:`HELP`."""
        st = self.state
        bf = st.battlefield
        for zid in bf.zone_ids:
            z = bf.zones[zid]
            tags = [_f("cover {cover}", z.cover)] if z.cover else []
            tags += [_("exit")] * z.exit + [_("difficult")] * z.difficult
            who = ", ".join(
                f"{c.id}{'' if c.active else ' (' + word(c.status.value) + ')'}"
                for c in st.combatants
                if c.zone == zid
            )
            label = f"{zid} ({z.name})" if z.name != zid else zid
            extra = f" [{', '.join(tags)}]" if tags else ""
            self.say(f"  {label}{extra}: {who or '—'}")
            self.say(_f("      links: {zones}", ", ".join(bf.neighbours(zid)) or "—"))

    def do_actions(self, arg: str) -> None:
        """The ``actions`` command: see :data:`HELP`."""
        st = self.state
        if st.outcome is not None or st.pending is None:
            self.say(_("The battle is over: no actions."))
            return
        actions = st.ruleset.legal_actions(st)
        self._numbered = (st, actions)
        for i, a in enumerate(actions, start=1):
            self.say(f"  {i:>2}. {st.ruleset.describe(st, a)}   [{a}]")

    def do_log(self, arg: str) -> None:
        """The ``log`` command: see :data:`HELP`."""
        n = int(arg) if arg.strip().isdigit() else 15
        for e in self.state.log[-n:]:
            if e.text:
                self.say("  " + e.text)

    # -- editing --------------------------------------------------------------------
    def do_set(self, arg: str) -> None:
        """The ``set`` command: see :data:`HELP`."""
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
        """The ``status`` command: see :data:`HELP`."""
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
        """The ``move`` command: see :data:`HELP`."""
        cid, zone = self._args(arg, 2, "move ID ZONE")
        c = self._combatant(self.state, cid)
        self.state.battlefield.require(zone)

        def change(st: BattleState) -> None:
            st.by_id[cid].zone = zone

        self._edit(_f("{id} moved {before} → {zone}", cid, c.zone, zone), change)

    def do_cond(self, arg: str) -> None:
        """The ``cond`` command: see :data:`HELP`."""
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
        """The ``roll`` command: see :data:`HELP`."""
        mode = arg.strip()
        if not mode:
            self.say(_f("Dice: {mode}", self.roll_mode))
            return
        if mode not in ("auto", "manual"):
            raise GMError(_f("usage: {usage}", "roll auto|manual"))
        self.roll_mode = mode
        self._autosave()
        self.say(_f("ok: dice are now {mode}.", mode))

    def _roller(self, dice: list[str] | None) -> Roller:
        if dice is not None:
            try:
                return ScriptedRoller(
                    [int(d) if d.isdigit() else ScriptedDie.parse(d) for d in dice]
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
        if text.isdigit():
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

    def do_apply(self, arg: str) -> None:
        """The ``apply`` command: see :data:`HELP`."""
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
        roller = self._roller(dice)
        new = st.clone()
        try:
            events = apply_action(new, action, roller)
            if isinstance(roller, ScriptedRoller):
                roller.assert_exhausted()
        except EscaramuzaError as exc:
            raise GMError(_f("{problem}; nothing was applied", exc)) from None
        self.steps += 1
        self.applied += 1
        self._commit(new, _f("apply {action}", action), applied=True)
        self.say(f"» {st.ruleset.describe(st, action)}")
        for e in events:
            if e.text:
                self.say("    " + e.text)
        self._say_pending()

    def _say_outcome(self) -> None:
        o = self.state.outcome
        assert o is not None
        who = who_wins(o.winner.value) if o.winner else _("draw")
        self.say(_f("Battle over: {who} ({reason}).", who, outcome_reason(o.reason)))

    def _say_pending(self) -> None:
        st = self.state
        if st.outcome is not None:
            self._say_outcome()
        elif st.pending is not None:
            c = st.by_id[st.pending.actor]
            self.say(_f("Next: {name} [{id}] — {decision}.", c.name, c.id, word(st.pending.name)))

    def do_initiative(self, arg: str) -> None:
        """The ``initiative`` command: see :data:`HELP`."""
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
        try:
            new = new_battle(self.state.scenario, roller)
            if isinstance(roller, ScriptedRoller):
                roller.assert_exhausted()
        except EscaramuzaError as exc:
            raise GMError(_f("{problem}; nothing changed", exc)) from None
        # Keep the GM's edits of the combatants: only the start (initiative) is redone.
        for c in new.combatants:
            old = self.state.by_id[c.id]
            c.zone, c.status = old.zone, old.status
            c.resources, c.conditions = dict(old.resources), dict(old.conditions)
        self._commit(new, _("initiative"))
        for e in new.log:
            if e.text:
                self.say("    " + e.text)
        self._say_pending()

    # -- advice ---------------------------------------------------------------------
    def do_suggest(self, arg: str) -> None:
        """The ``suggest`` command: see :data:`HELP`."""
        usage = _f("usage: {usage}", "suggest [MS] [max MAX]")
        words = arg.split()
        max_ms: float | None = None
        if len(words) >= 2 and words[-2] == "max":
            max_ms = _milliseconds(words[-1], usage)
            words = words[:-2]
        if len(words) > 1:
            raise GMError(f"{usage} ({arg!r})")
        budget = _milliseconds(words[0], usage) if words else DEFAULT_BUDGET_MS
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
        self._numbered = (self.state, [row.action for row in result.items])
        self.say(result.table())
        self.say(_("apply N takes the action ranked N (type actions for the legal order)."))

    # -- history and files ------------------------------------------------------------
    def do_undo(self, arg: str) -> None:
        """The ``undo`` command: see :data:`HELP`."""
        if not self.history:
            raise GMError(_("nothing to undo"))
        self.state, what, applied = self.history.pop()
        if applied:
            self.steps = max(self.steps - 1, 0)
            self.applied = max(self.applied - 1, 0)
        self._autosave()
        self.say(_f("undone: {what}.", what))

    def do_save(self, arg: str) -> None:
        """The ``save`` command: see :data:`HELP`."""
        path = arg.strip()
        if not path:
            raise GMError(_f("usage: {usage}", "save FILE"))
        save_state(self.state, path, self.meta())
        self._saved(path)
        self.say(_f("saved to {path}.", path))

    def do_load(self, arg: str) -> None:
        """The ``load`` command: see :data:`HELP`."""
        target = arg.strip()
        if not target:
            raise GMError(_f("usage: {usage}", "load FILE"))
        state, meta = open_battle(target, self.seed)
        self.steps = int(meta.get("steps", 0)) if isinstance(meta.get("steps"), int) else 0
        self._commit(state, _f("load {path}", target))
        if self.saved_in is None and is_state_file(target):
            self._saved(target)  # no autosave: the file loaded still holds the battle
        self.say(_f("loaded {path}.", target))
        self._say_pending()

    def do_quit(self, arg: str) -> bool:
        """The ``quit`` command: see :data:`HELP`."""
        if self.saved_in is None and self.autosave_failed and not self._quit_warned:
            self._quit_warned = True
            self.say(
                _f(
                    "The battle is NOT saved: the last autosave to {path} failed. Save it "
                    "elsewhere with save FILE, or type quit again to leave without "
                    "saving.",
                    self.autosave,
                )
            )
            return False
        self._bye()
        return True

    do_exit = do_quit

    def do_EOF(self, arg: str) -> bool:  # cmd's name for end of input
        """End of input: like quit, without asking (there is no more input to ask)."""
        self.say("")
        self._bye()
        return True

    def _bye(self) -> None:
        """The last line: where the battle is, only if a file holds it as it is now."""
        if self.saved_in is not None:
            where = _f(" The battle is in {path}.", self.saved_in)
        elif self.autosave_failed:
            where = _f(
                " The battle was NOT saved: the last autosave to {path} failed (that "
                "file holds an earlier state, or nothing).",
                self.autosave,
            )
        else:
            where = ""
        self.say(_("Bye.") + where)

    def do_help(self, arg: str) -> None:
        """The ``help`` command: see :data:`HELP`."""
        if arg.strip():
            name = arg.strip()
            method = getattr(self, f"do_{name}", None)
            if method is None:
                self.default(name)
                return
            self.say(_(HELP[name]) if name in HELP else name)
            return
        self.say(_("Commands (help COMMAND for details):"))
        for name in sorted(HELP):
            self.say(f"  {_(HELP[name]).splitlines()[0]}")


def _milliseconds(text: str, usage: str) -> float:
    """Milliseconds (``300`` or ``300ms``) of a ``gm`` command, within the planner's bounds
    (:func:`check_budget`: finite, 10–60000), so that a search always ends."""
    try:
        value = float(text.removesuffix("ms"))
    except ValueError:
        raise GMError(_f("{usage} ({value} is not a number)", usage, repr(text))) from None
    try:
        check_budget(value, None, "the budget")
    except EscaramuzaError as exc:
        raise GMError(f"{exc}; {usage}") from None
    return value


def run_session(
    target: str,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    autosave: Path | None | bool = True,
    seed: int = DEFAULT_SEED,
    roll: str = "auto",
    max_ms: float = DEFAULT_MAX_MS,
    engine: str = DEFAULT_ENGINE,
    warm: bool = False,
) -> GMSession:
    """Open ``target`` (scenario or state file) and run the session until quit or EOF.

    ``autosave`` True means the default file (:func:`default_autosave`); False or None
    turns it off. With ``roll='manual'`` and a scenario, the initiative dice are asked for.
    ``warm`` compiles the ruleset's kernel in the background meanwhile (``suggest``
    searches on the engine until it is ready: ``agents.fast.warm_in_background``).
    """
    out = stdout or sys.stdout
    if is_state_file(target):
        state, meta = load_state(target)
        seed = meta["seed"] if isinstance(meta.get("seed"), int) else seed
        steps = meta["steps"] if isinstance(meta.get("steps"), int) else 0
    else:
        scenario = load_scenario(target)
        state, steps = None, 0
    path = None
    if autosave is True:
        path = default_autosave(state.scenario if state else scenario)
    elif isinstance(autosave, Path):
        path = autosave
    start = blank_battle(scenario) if state is None else state
    if warm and engine == DEFAULT_ENGINE:
        warm_in_background([start.ruleset.id])
    session = GMSession(start, stdin, stdout, path, seed, roll, steps, max_ms, engine)
    out.write(
        _f(
            "escaramuza gm — {title} [{name}]. Type help for the commands.",
            start.scenario.title,
            start.scenario.name,
        )
        + "\n"
    )
    if path is not None:
        out.write(_f("Autosave: {path}", path) + "\n")
    if state is None:
        # A scenario starts with its initiative: rolled by the tool, or asked for die by
        # die with roll manual (the initiative the table actually rolled).
        session.do_initiative("")
    else:
        session._autosave()
        if session.saved_in is None:
            session._saved(target)  # no autosave: the state file still holds the battle
    session.history.clear()
    session.do_show("")
    session.cmdloop(intro="")
    return session


def blank_battle(scenario: Scenario) -> BattleState:
    """A not-yet-started battle of ``scenario``: its untouched combatants, no initiative.

    A :class:`GMSession` opened on it starts it with its ``initiative`` command (the
    tool's dice or the table's), as ``escaramuza gm SCENARIO`` and the web page do.
    """
    return BattleState(scenario, [c.clone() for c in scenario.combatants])


# -- command line: `escaramuza suggest`, `escaramuza gm`, `play --save-state` -----------


def add_parsers(commands: Any) -> None:
    """Add the ``suggest`` and ``gm`` subcommands to the CLI's subparsers."""
    sug = commands.add_parser(
        "suggest",
        help=_("rank the pending combatant's actions (search, exact odds, in-character pick)"),
        description=_(
            "Rank the legal actions of the pending decision of SCENARIO_OR_STATE: the "
            "chance its side wins (MCTS rollouts, interval at 95%), exact chance to hit, "
            "expected damage and chance to drop the target, risk to the actor before its "
            "next turn, a reason, and what its temperament would do. A scenario is started "
            "afresh (initiative rolled with --seed); a state file (*.json) continues."
        ),
    )
    sug.add_argument(
        "target",
        metavar="SCENARIO_OR_STATE",
        help=_("a shipped scenario name, a scenario YAML or a state file (.json)"),
    )
    sug.add_argument(
        "--actor",
        metavar="ID",
        help=_("the combatant to rank; must be the pending one (default: it)"),
    )
    sug.add_argument(
        "--budget-ms",
        type=float,
        default=None,
        metavar="MS",
        help=_f(
            "search time in milliseconds, {least:g}–{most:g} (default {default:g})",
            MIN_BUDGET_MS,
            MAX_BUDGET_MS,
            DEFAULT_BUDGET_MS,
        ),
    )
    sug.add_argument(
        "--iterations",
        type=int,
        default=None,
        metavar="N",
        help=_f(
            "search N rollouts (1–{most}) instead of a time budget (reproducible)",
            MAX_ITERATIONS,
        ),
    )
    sug.add_argument(
        "--max-ms",
        type=float,
        default=None,
        metavar="MS",
        help=_f(
            "while the best is too close to call at --budget-ms, go on up to MS "
            "milliseconds (default {default:g}; not with --iterations)",
            DEFAULT_MAX_MS,
        ),
    )
    sug.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=_f("seed of the search and of a fresh battle (default {default})", DEFAULT_SEED),
    )
    sug.add_argument(
        "--policy",
        metavar="SPEC",
        default=None,
        help=_(
            "add a POLICY column: the probability a trained policy gives each "
            "action (policy:PATH, a model file or a shipped policy name such "
            "as destiny_dice/emboscada)"
        ),
    )
    sug.add_argument(
        "--json", action="store_true", help=_("print one JSON document (schema in docs/gm.md)")
    )
    sug.add_argument(
        "--wide",
        action="store_true",
        help=_("one line per action, its reason included (default: the table fits 100 columns)"),
    )
    add_engine_option(sug, _("the search's rollouts"))
    add_trust_option(sug)

    gm = commands.add_parser(
        "gm",
        help=_("interactive game master session (edit, roll, apply, undo, suggest)"),
        description=_(
            "Mirror the table in an interactive session: set PV, move combatants, add "
            "conditions, enter the dice rolled, apply actions, undo, save, and ask for "
            "suggestions. Type help inside. The battle is autosaved after every change."
        ),
    )
    gm.add_argument(
        "target",
        metavar="SCENARIO_OR_STATE",
        help=_("a shipped scenario name, a scenario YAML or a state file (.json)"),
    )
    gm.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=_f("seed of the tool's dice (default {default})", DEFAULT_SEED),
    )
    gm.add_argument(
        "--roll",
        choices=("auto", "manual"),
        default="auto",
        help=_("who rolls: the tool (auto) or the table, die by die (manual)"),
    )
    gm.add_argument(
        "--max-ms",
        type=float,
        default=DEFAULT_MAX_MS,
        metavar="MS",
        help=_f(
            "how long suggest may go on while the best is too close to call "
            "(default {default:g}; suggest MS max MAX overrides it)",
            DEFAULT_MAX_MS,
        ),
    )
    add_engine_option(gm, _("suggest's rollouts"))
    save = gm.add_mutually_exclusive_group()
    save.add_argument(
        "--autosave",
        metavar="FILE",
        default=None,
        help=_("autosave file (default: <scenario>.autosave.json here)"),
    )
    save.add_argument("--no-autosave", action="store_true", help=_("do not autosave"))


def _decisions(text: str) -> int:
    """argparse type of ``--stop-after``: a whole number of decisions, at least 1."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_f("{value} is not a whole number", repr(text))) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_f("must be at least 1, not {value}", value))
    return value


def add_play_options(play: Any) -> None:
    """``play --save-state FILE [--stop-after N]``."""
    play.add_argument(
        "--save-state",
        metavar="FILE",
        default=None,
        help=_("write the battle's state to FILE (JSON, see docs/gm.md) when it stops"),
    )
    play.add_argument(
        "--stop-after",
        metavar="N",
        type=_decisions,
        default=None,
        help=_("stop after N decisions (a battle in progress, e.g. for suggest)"),
    )


def run_command(args: Any, out: TextIO) -> int:
    """Run ``escaramuza suggest`` or ``escaramuza gm``."""
    if args.command == "gm":
        autosave: Path | bool = (
            False if args.no_autosave else (Path(args.autosave) if args.autosave else True)
        )
        if not args.max_ms > 0:
            raise GMError("--max-ms must be positive")
        run_session(
            args.target,
            None,
            out,
            autosave,
            args.seed,
            args.roll,
            args.max_ms,
            args.engine,
            # At a terminal the GM reads and types while the kernel compiles; scripted
            # input (tests, pipes) gets the kernel compiled at its first search.
            warm=sys.stdin.isatty(),
        )
        return 0
    import json

    # Before the battle is opened: a budget the search could not finish is refused at once.
    check_budget(args.budget_ms, args.iterations, "--budget-ms", "--iterations")
    if args.max_ms is not None:
        check_budget(args.max_ms, None, "--max-ms")
    if args.max_ms is not None and args.iterations is not None:
        raise GMError(
            "--max-ms extends a time budget (--budget-ms); with --iterations the "
            "search stops at N rollouts, so that the ranking is reproducible"
        )
    budget = args.budget_ms if args.budget_ms is not None or args.iterations is None else None
    if budget is None and args.iterations is None:
        budget = DEFAULT_BUDGET_MS
    if args.max_ms is not None and budget is not None and args.max_ms < budget:
        raise GMError(f"--max-ms ({args.max_ms:g}) must be at least --budget-ms ({budget:g})")
    # The default maximum never cuts an explicit budget above it.
    max_ms = (
        None
        if args.iterations is not None
        else (args.max_ms if args.max_ms is not None else max(DEFAULT_MAX_MS, budget or 0.0))
    )
    policy = load_policy(args.policy, trust=args.trust_policy) if args.policy else None
    state, _meta = open_battle(args.target, args.seed)
    result = suggest(
        state,
        args.actor,
        budget_ms=budget,
        iterations=args.iterations,
        seed=args.seed,
        policy=policy,
        max_ms=max_ms,
        engine=args.engine,
    )
    if args.json:
        out.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
    else:
        out.write(result.table(None if args.wide else TABLE_WIDTH) + "\n")
    return 0


def after_play(state: BattleState, args: Any, out: TextIO) -> bool:
    """``play``'s end for ``--save-state`` / ``--stop-after``; True if it printed the end."""
    if getattr(args, "save_state", None):
        save_state(state, args.save_state, {"seed": args.seed, "steps": 0, "roll": "auto"})
    if state.outcome is not None:
        if args.save_state:
            sys.stderr.write(f"state saved to {args.save_state}\n")
        return False
    pending = state.pending
    who = state.by_id[pending.actor].name if pending is not None else _("nobody")
    if args.json:
        import json

        out.write(
            json.dumps(
                {
                    "type": "Stopped",
                    "scenario": state.scenario.name,
                    "round": state.round,
                    "pending": pending.actor if pending else None,
                    "state_file": args.save_state,
                },
                ensure_ascii=False,
            )
            + "\n"
        )
    else:
        saved = _f(" State saved to {path}.", args.save_state) if args.save_state else ""
        out.write(
            "\n"
            + _f(
                "Stopped after {n} decision(s) in round {round}; next to decide: {who}.{saved}",
                args.stop_after,
                state.round,
                who,
                saved,
            )
            + "\n"
        )
    return True
