"""The interactive game master session: ``escaramuza gm``.

The GM mirrors the table: set PV and other resources, move combatants, add or
remove conditions, enter the initiative and the dice actually rolled (or let
the tool roll), apply actions, undo, save and load, look at the battlefield and
ask for ranked suggestions at any point.

Every command is checked before anything changes: an edit or an action is
carried out on a copy of the battle and only kept if it succeeds, so a
mistyped command, an unknown combatant or a wrong die leaves the battle as it
was. After every change the session writes its autosave file (atomically), so
closing the terminal loses nothing. The session reads commands from any text
stream, which is how the tests drive it.

The session is one class, :class:`GMSession`, built in layers, one concern a module:

* :mod:`~escaramuza.gm.state` — the battle, its undo history, the autosave file, state
  files and leaving;
* :mod:`~escaramuza.gm.render` — what the session shows (``show``, ``map``, ``actions``,
  ``log``, ``help``);
* :mod:`~escaramuza.gm.commands` — the commands that change the battle and how they are
  read (edits, dice, ``apply``, ``suggest``, ``load``);
* :mod:`~escaramuza.gm.session` — the command loop and how ``escaramuza gm`` runs it;
* :mod:`~escaramuza.gm.help` — each command's help text;
* :mod:`~escaramuza.gm.cli` — the command line of ``suggest``, ``gm`` and
  ``play --save-state``.
"""

from __future__ import annotations

from escaramuza.gm.commands import PromptRoller, RollAborted
from escaramuza.gm.help import HELP
from escaramuza.gm.session import GMSession, run_session
from escaramuza.gm.state import (
    DEFAULT_SEED,
    UNDO_DEPTH,
    GMError,
    blank_battle,
    default_autosave,
    open_battle,
)

__all__ = [
    "DEFAULT_SEED",
    "HELP",
    "UNDO_DEPTH",
    "GMError",
    "GMSession",
    "PromptRoller",
    "RollAborted",
    "blank_battle",
    "default_autosave",
    "open_battle",
    "run_session",
]
