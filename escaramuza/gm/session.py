"""The ``gm>`` command loop, and how ``escaramuza gm`` opens and runs it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

from escaramuza.agents.fast import DEFAULT_ENGINE, warm_in_background
from escaramuza.agents.suggest import DEFAULT_BUDGET_MS, DEFAULT_MAX_MS
from escaramuza.gm.auto import AutoCommands
from escaramuza.gm.autopilot import pilot_from_meta
from escaramuza.gm.state import DEFAULT_SEED, autosave_name, blank_battle, default_autosave
from escaramuza.rules.core.i18n import _f
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.state_file import is_state_file, load_state


class GMSession(AutoCommands):
    """The ``gm>`` command loop (``help`` lists the commands)."""


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
    budget_ms: float = DEFAULT_BUDGET_MS,
    iterations: int | None = None,
) -> GMSession:
    """Open ``target`` (scenario or state file) and run the session until quit or EOF.

    ``autosave`` True means the default file (:func:`default_autosave`); False or None
    turns it off. With ``roll='manual'`` and a scenario, the initiative dice are asked for.
    ``warm`` compiles the ruleset's kernel in the background meanwhile (``suggest``
    searches on the engine until it is ready: ``agents.fast.warm_in_background``).
    ``budget_ms`` / ``iterations`` is the session's search budget (``suggest`` and the
    autopilot); a state file's ``meta.autopilot`` turns the autopilot on as it was saved.
    """
    out = stdout or sys.stdout
    meta: dict[str, Any] = {}
    if is_state_file(target):
        state, meta = load_state(target)
        seed = meta["seed"] if isinstance(meta.get("seed"), int) else seed
        steps = meta["steps"] if isinstance(meta.get("steps"), int) else 0
    else:
        scenario = load_scenario(target)
        state, steps = None, 0
    path = None
    if autosave is True:
        path = default_autosave(state.scenario if state else scenario, target if state else None)
    elif isinstance(autosave, Path):
        path = autosave
    start = blank_battle(scenario) if state is None else state
    if warm and engine == DEFAULT_ENGINE:
        warm_in_background([start.ruleset.id])
    session = GMSession(
        start, stdin, stdout, path, seed, roll, steps, max_ms, engine, budget_ms, iterations
    )
    pilot = pilot_from_meta(meta, engine, target)
    if pilot is not None:
        session.set_pilot(pilot)
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
        if autosave is True and path != autosave_name(start.scenario):
            taken = autosave_name(start.scenario)
            out.write(_f("({taken} holds another battle: kept.)", taken) + "\n")
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
