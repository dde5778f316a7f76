"""The session's battle and what keeps it: the undo history, the autosave file, state files
and leaving (``undo``, ``save``, ``quit``).

Every change of the battle goes through :meth:`SessionState._commit`, which keeps the
battle before it for ``undo`` and writes the autosave file (atomically). When that write
fails (a full disk), the session says so, and from then on says where the battle is only
while a file holds it as it is: ``quit`` then asks for a ``save FILE`` elsewhere first.
"""

from __future__ import annotations

import cmd
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from escaramuza.agents.base import Agent
from escaramuza.agents.fast import DEFAULT_ENGINE
from escaramuza.agents.suggest import DEFAULT_BUDGET_MS, DEFAULT_MAX_MS
from escaramuza.gm.autopilot import Pilot, pilot_agent
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.files import same_file
from escaramuza.rules.core.i18n import _, _f, ngettext
from escaramuza.rules.core.model import Action, Combatant
from escaramuza.rules.core.ruleset import new_battle
from escaramuza.rules.core.scenario import Scenario, load_scenario
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file import is_state_file, load_state, save_state

#: Seed of the tool's own dice when none is given (reproducible sessions).
DEFAULT_SEED = 1
#: How many undo steps are kept (the GM's changes; the autopilot's decisions after one
#: are kept with it).
UNDO_DEPTH = 200


class GMError(EscaramuzaError):
    """A GM command that cannot be carried out; the battle is left unchanged."""


#: Most autosave names :func:`default_autosave` tries (``NAME.autosave.json``, then
#: ``NAME.autosave-2.json`` …).
MAX_AUTOSAVE_NAMES = 1000


def file_argument(arg: str) -> str:
    """The file a ``save`` or ``load`` names: the rest of the line (a name may hold spaces),
    without the quotes a GM used to a shell may put around it (``save "mid battle.json"``)."""
    path = arg.strip()
    if len(path) >= 2 and path[0] == path[-1] and path[0] in "'\"":
        path = path[1:-1]
    return path


def default_autosave(scenario: Scenario, opened: str | Path | None = None) -> Path:
    """``<scenario stem>.autosave.json`` in the current directory, unless a file is there
    already and is not the state file ``opened``: then the first free
    ``<stem>.autosave-N.json`` (N from 2). A file there is the battle another session
    left (it says "The battle is in …" when it ends), which this session's first
    autosave would replace; the state file a session continues is its own to replace."""
    for n in range(1, MAX_AUTOSAVE_NAMES + 1):
        path = autosave_name(scenario, n)
        if not os.path.lexists(path) or (opened is not None and same_file(path, opened)):
            return path
    raise GMError(
        _f(
            "{first} to {last} are all taken: give --autosave FILE or --no-autosave",
            autosave_name(scenario),
            autosave_name(scenario, MAX_AUTOSAVE_NAMES),
        )
    )


def autosave_name(scenario: Scenario, n: int = 1) -> Path:
    """The ``n``-th autosave name of ``scenario``: ``<stem>.autosave.json``, then
    ``<stem>.autosave-N.json``."""
    stem = scenario.name.rsplit("/", 1)[-1]
    return Path(f"{stem}.autosave.json" if n == 1 else f"{stem}.autosave-{n}.json")


def open_battle(target: str, seed: int = DEFAULT_SEED) -> tuple[BattleState, dict[str, Any]]:
    """A state file (``*.json``) as saved, or a fresh battle of a scenario (dice by ``seed``)."""
    if is_state_file(target):
        return load_state(target)
    return new_battle(load_scenario(target), RandomRoller(seed)), {}


def blank_battle(scenario: Scenario) -> BattleState:
    """A not-yet-started battle of ``scenario``: its untouched combatants, no initiative.

    A :class:`~escaramuza.gm.GMSession` opened on it starts it with its ``initiative``
    command (the tool's dice or the table's), as ``escaramuza gm SCENARIO`` and the web
    page do.
    """
    return BattleState(scenario, [c.clone() for c in scenario.combatants])


@dataclass(frozen=True, slots=True)
class Change:
    """One entry of the undo history: the battle before a change, what the change was
    (``undo`` names it), whether it applied an action (``undo`` takes back its step) and
    whether the autopilot made it (``undo`` takes those back with the GM's change before
    them)."""

    before: BattleState
    what: str
    applied: bool = False
    auto: bool = False
    #: The session's dice and start before a change that replaced them (``load``): its
    #: seed, steps, actions applied and last start, which ``undo`` restores.
    session: tuple[int, int, int, Any] | None = None


class SessionState(cmd.Cmd):
    """The battle of a ``gm`` session, its history and files; the commands that look at it
    and change it are its subclasses' (:mod:`escaramuza.gm.render`,
    :mod:`escaramuza.gm.commands`)."""

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
        budget_ms: float = DEFAULT_BUDGET_MS,
        iterations: int | None = None,
    ) -> None:
        super().__init__(stdin=stdin, stdout=stdout)
        # cmd uses input() (readline editing) only for the real terminal.
        self.use_rawinput = stdin is None
        self.state = state
        #: Undo stack, oldest first.
        self.history: list[Change] = []
        self.autosave = autosave
        self.seed = seed
        self.roll_mode = roll
        self.steps = steps
        #: How long ``suggest`` may go on while the best is too close to call (``--max-ms``).
        self.max_ms = max_ms
        #: Where ``suggest``'s rollouts run (``--engine``; docs/fast-path.md).
        self.engine = engine
        #: The session's search budget (``--budget-ms`` / ``--iterations``): ``suggest``
        #: without MS, and the autopilot's decisions.
        self.budget_ms = budget_ms
        self.iterations = iterations
        #: The autopilot (``auto``): the pilot while it is on, and its agent (None: the
        #: planner).
        self.pilot: Pilot | None = None
        self.pilot_agent: Agent | None = None
        self.applied = 0
        #: The combatants the last ``initiative`` started the battle from and those its
        #: start left (None before one): what the GM changed since is the difference.
        self.last_start: tuple[list[Combatant], list[Combatant]] | None = None
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

    def emptyline(self) -> bool:
        # cmd repeats the last command on an empty line; at a table that would apply
        # an action twice, so an empty line does nothing.
        return False

    def _commit(
        self,
        new: BattleState,
        what: str,
        applied: bool = False,
        auto: bool = False,
        session: tuple[int, int, int, Any] | None = None,
    ) -> None:
        self.history.append(Change(self.state, what, applied, auto, session))
        while sum(not c.auto for c in self.history) > UNDO_DEPTH:
            # The oldest change, and the autopilot's decisions after it.
            del self.history[0]
            while self.history and self.history[0].auto:
                del self.history[0]
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

    def set_pilot(self, pilot: Pilot | None) -> None:
        """Turn the autopilot on with ``pilot``, or off; its agent is made first (an unknown
        spec fails here, changing nothing) and the autosave records it
        (``meta.autopilot``)."""
        agent = pilot_agent(pilot) if pilot is not None else None
        self.pilot, self.pilot_agent = pilot, agent
        self._autosave()

    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"seed": self.seed, "steps": self.steps, "roll": self.roll_mode}
        if self.pilot is not None:
            meta["autopilot"] = self.pilot.to_meta()
        return meta

    # -- history and files ------------------------------------------------------------
    def undo_units(self) -> list[list[Change]]:
        """The history as ``undo`` takes it back, newest first: each GM change with the
        autopilot's decisions after it."""
        units: list[list[Change]] = []
        unit: list[Change] = []
        for change in reversed(self.history):
            unit.append(change)
            if not change.auto:
                units.append(unit)
                unit = []
        if unit:  # the autopilot's decisions whose GM change the history no longer keeps
            units.append(unit)
        return units

    def do_undo(self, arg: str) -> None:
        """The ``undo`` command: see :data:`~escaramuza.gm.help.HELP`."""
        text = arg.strip()
        if text and not (text.isdecimal() and int(text) >= 1):
            raise GMError(_f("usage: {usage}", "undo [N]"))
        count = int(text) if text else 1
        units = self.undo_units()
        if not units:
            raise GMError(_("nothing to undo"))
        if count > len(units):
            raise GMError(_f("there are only {n} changes to undo; nothing was undone", len(units)))
        for unit in units[:count]:
            for change in unit:
                self.history.pop()
                self.state = change.before
                if change.applied:
                    self.steps = max(self.steps - 1, 0)
                    self.applied = max(self.applied - 1, 0)
                if change.session is not None:
                    self.seed, self.steps, self.applied, self.last_start = change.session
            first, auto = unit[-1], sum(c.auto for c in unit)
            if first.auto:  # the GM change before them is no longer kept
                self.say(
                    ngettext(
                        "undone: {n} decision of the autopilot.",
                        "undone: {n} decisions of the autopilot.",
                        auto,
                    ).format(n=auto)
                )
            elif auto:
                self.say(
                    ngettext(
                        "undone: {what}, and the autopilot's decision after it.",
                        "undone: {what}, and the autopilot's {n} decisions after it.",
                        auto,
                    ).format(what=first.what, n=auto)
                )
            else:
                self.say(_f("undone: {what}.", first.what))
        self._autosave()

    def do_save(self, arg: str) -> None:
        """The ``save`` command: see :data:`~escaramuza.gm.help.HELP`."""
        path = file_argument(arg)
        if not path:
            raise GMError(_f("usage: {usage}", "save FILE"))
        save_state(self.state, path, self.meta())
        self._saved(path)
        self.say(_f("saved to {path}.", path))

    def do_quit(self, arg: str) -> bool:
        """The ``quit`` command: see :data:`~escaramuza.gm.help.HELP`."""
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
