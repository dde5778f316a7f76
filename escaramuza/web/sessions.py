"""One browser's battle on the web page: :class:`WebSession`.

Each browser (a session id in a cookie) gets its own :class:`WebSession`: the
battle, its undo history, the last suggestions and a playtest job, behind one
lock, so two GMs on the same server never see each other's battle ("concurrent
sessions kept apart"). How many sessions a server keeps, and which one gives up
its slot when the table is full, is :class:`~escaramuza.web.store.SessionStore`'s
rule (docs/web.md, "Sessions kept").

The battle itself is an :class:`escaramuza.gm.GMSession` driven through its
commands (``apply``, ``undo``, ``set``, ``move``…): the page applies actions,
rolls dice (the tool's or the ones the GM enters) and undoes exactly as the
terminal session does. Its printed lines are captured and shown on the page.

Safety: an uploaded scenario is checked by :mod:`escaramuza.web.uploads`; an uploaded
state file may name only a shipped scenario, or carry its scenario's YAML as saved by
this page. Every search has a wall-clock cap (:data:`~escaramuza.web.limits.SUGGEST_CAP_MS`).
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from escaramuza.agents.suggest import Suggestions, suggest
from escaramuza.gm import DEFAULT_SEED, GMSession, blank_battle
from escaramuza.gm.autopilot import DEFAULT_AGENT, Pilot, pilot_from_meta
from escaramuza.playtest.runner import PlaytestConfig, ScenarioRef
from escaramuza.rules.core.errors import EscaramuzaError, ScenarioError, UnknownNameError
from escaramuza.rules.core.files import parse_json
from escaramuza.rules.core.i18n import _, _f, current_language
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.scenario import Scenario, load_scenario, shipped_scenarios
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file import StateFileError, state_from_dict, state_to_dict
from escaramuza.state_file.reading import _expected
from escaramuza.web.autopilot import WEB_STRETCH, AutoProgress, web_pilot
from escaramuza.web.errors import (
    BusyError,
    NotFoundError,
    SearchFailedError,
    StaleError,
    WebError,
)
from escaramuza.web.limits import (
    EDIT_COMMANDS,
    INVEST_CHANGES,
    MAX_BUDGET_MS,
    MAX_PLAYTEST_BATTLES,
    MAX_STATE_UPLOAD_BYTES,
    PLAYTEST_AGENTS,
    SESSION_WAITING,
    SUGGEST_CAP_MS,
    WEB_BUDGET_MS,
    WEB_MAX_MS,
    check_agent,
    check_search,
)
from escaramuza.web.playtests import PlaytestJob
from escaramuza.web.uploads import Upload, clean_filename, parse_dice, parse_upload, read_upload

log = logging.getLogger("escaramuza.web")


class SessionLock:
    """A session's lock (reentrant), which at most ``waiting`` requests wait for at once:
    one more is refused with a :class:`BusyError` (429) at once, without taking a worker
    thread for the time the holder takes."""

    def __init__(self, waiting: int = SESSION_WAITING) -> None:
        self.most = waiting
        self._lock = threading.RLock()
        self._count = threading.Lock()
        self.waiting = 0

    def __enter__(self) -> SessionLock:
        if self._lock.acquire(blocking=False):  # free, or already this thread's
            return self
        with self._count:
            if self.waiting >= self.most:
                raise BusyError(
                    _f(
                        "this session is busy: one request is running in it (a search or "
                        "the autopilot?) and {n} more are waiting; try again when they "
                        "have answered",
                        self.waiting,
                    )
                )
            self.waiting += 1
        try:
            self._lock.acquire()
        finally:
            with self._count:
                self.waiting -= 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


class WebSession:
    """One GM's battle: a GM session, its output, suggestions and a playtest."""

    def __init__(self, sid: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.id = sid
        self.clock = clock
        self.lock = SessionLock()
        self.out = io.StringIO()
        self.gm: GMSession | None = None
        self.upload: Upload | None = None
        #: Bumped on every change of the battle: forms carry it so a page drawn before
        #: a change (another tab) cannot apply an action to a different decision.
        self.version = 0
        self.suggestions: Suggestions | None = None
        self.suggestions_version = -1
        #: The language the suggestions were worded in (their actions and reasons).
        self.suggestions_language = ""
        self.lines: list[str] = []
        self.message: str | None = None
        self.playtest: PlaytestJob | None = None
        #: When its owner last used it, whether the owner ever came back with its id
        #: after the request that created it, and how far the owner played in it: the
        #: battle changes made (applies, undos, edits) and whether a state file was
        #: loaded (see :class:`SessionStore` and :attr:`invested`).
        self.touched = clock()
        self.returned = False
        self.changes = 0
        self.loaded = False
        #: The search state the page shows again after a reload: the Suggest budget and
        #: maximum last used, and the autopilot (kept for the next battle too).
        self.search_budget_ms = WEB_BUDGET_MS
        self.search_max_ms = WEB_MAX_MS
        self.auto_pilot: Pilot | None = None
        #: What the autopilot is doing during a request (GET /api/autopilot).
        self.auto_progress = AutoProgress()

    @property
    def invested(self) -> bool:
        """A battle in play: :data:`INVEST_CHANGES` changes made, or a state file loaded."""
        return self.loaded or self.changes >= INVEST_CHANGES

    # -- helpers --------------------------------------------------------------------
    @property
    def state(self) -> BattleState:
        return self.require().state

    def require(self) -> GMSession:
        if self.gm is None:
            raise NotFoundError(_("no battle in this session yet: pick or upload a scenario"))
        return self.gm

    def check_version(self, version: int | None) -> None:
        if version is not None and version != self.version:
            raise StaleError(
                _(
                    "the battle changed since this page was drawn (another tab or window?); "
                    "the page now shows the current state — try again"
                )
            )

    def _run(self, command: Callable[[str], Any], arg: str) -> list[str]:
        """Run a GM-session command; return the lines it printed."""
        self.out.seek(0)
        self.out.truncate()
        command(arg)
        return self._printed()

    def _printed(self) -> list[str]:
        """The lines the GM session printed since the command began."""
        return [line.rstrip() for line in self.out.getvalue().splitlines() if line.strip()]

    def _changed(self, lines: list[str], message: str, by_gm: bool = False) -> list[str]:
        """Record a change of the battle; ``by_gm``: one the GM made while playing (an
        apply, undo or edit, counted towards :attr:`invested`), not a new battle."""
        self.version += 1
        self.changes += 1 if by_gm else 0
        self.lines = lines
        self.message = message
        return lines

    def _install(self, state: BattleState, seed: int, steps: int, upload: Upload | None) -> None:
        # A new battle or a loaded file starts a fresh undo history: the history's states
        # belong to another scenario (or uploaded file) than the one now shown.
        self.gm = GMSession(state, io.StringIO(), self.out, None, seed, "auto", steps)
        self.gm.stretch_limit = WEB_STRETCH
        self.gm.on_auto_progress = self._auto_progress
        self.upload = upload

    def _auto_progress(self, state: BattleState, done: int) -> None:
        self.auto_progress.update(state, done)

    def _run_auto(self, command: Callable[[str], Any], arg: str) -> list[str]:
        """Run a command after which the autopilot may play (its progress followed, an
        internal failure of its search one answer, the decisions before it kept)."""
        self.auto_progress = AutoProgress()
        try:
            return self._run(command, arg)
        except EscaramuzaError:
            raise
        except Exception:
            log.exception("the autopilot failed in %s", self.state.scenario.name)
            self._changed(self._printed(), _("the autopilot stopped"), by_gm=True)
            raise SearchFailedError(
                _(
                    "the autopilot's search failed with an internal error (written to the "
                    "server's log); the decisions it took before are kept: undo them, or go on"
                )
            ) from None
        finally:
            self.auto_progress.running = False

    # -- starting a battle --------------------------------------------------------------
    def start_shipped(self, name: str, seed: int = DEFAULT_SEED) -> None:
        shipped = shipped_scenarios()
        if name not in shipped:
            raise UnknownNameError(
                _f(
                    "no shipped scenario named {name} (shipped: {shipped})",
                    repr(name),
                    ", ".join(shipped),
                )
            )
        self._start(load_scenario(name), seed, None)
        self.message = _f("new battle: {name} (seed {seed})", name, seed)

    def start_upload(self, filename: str, data: bytes, seed: int = DEFAULT_SEED) -> None:
        filename = clean_filename(filename, "upload.yaml")
        text = read_upload(data, filename)
        self._start(parse_upload(text, filename), seed, Upload(filename, text))
        self.message = _f("new battle: {name} (seed {seed})", filename, seed)

    def _start(self, scenario: Scenario, seed: int, upload: Upload | None) -> None:
        # The initiative is rolled by the GM session's own `initiative` command, as
        # `escaramuza gm SCENARIO --seed N` does: the page and the terminal play the same
        # battle with the same seed.
        # It starts from the scenario's untouched combatants (what `initiative` keeps as
        # the GM's edits), as gm.run_session does.
        self._install(blank_battle(scenario), seed, 0, upload)
        gm = self.require()
        lines = self._run(gm.do_initiative, "")
        gm.history.clear()
        if self.auto_pilot is not None:
            # The page's autopilot plays this battle too (undo-able from its start).
            pilot = self.auto_pilot
            lines += self._run_auto(lambda _arg: gm.switch_on(pilot), "")
        self._changed(lines, "")

    # -- the battle -----------------------------------------------------------------------
    def actions(self) -> list[Action]:
        st = self.state
        if st.outcome is not None or st.pending is None:
            return []
        return list(st.ruleset.legal_actions(st))

    def find_index(self, action: dict[str, Any]) -> int:
        """The 1-based number of a legal action given as its fields (API clients)."""
        try:
            wanted = Action(**action)
        except TypeError as exc:
            raise WebError(_f("bad action: {problem}", exc)) from None
        for i, a in enumerate(self.actions(), start=1):
            if a == wanted:
                return i
        raise WebError(_f("{action} is not a legal action of the pending decision", wanted))

    def apply(self, index: int, dice: str = "", version: int | None = None) -> list[str]:
        gm = self.require()
        self.check_version(version)
        n = len(self.actions())
        if not 1 <= index <= n:
            raise WebError(
                _f("there is no action {index}: the legal actions are 1–{n}", index, n)
                if n
                else _("the battle is over: there is nothing to apply")
            )
        tokens = parse_dice(dice)
        arg = str(index) + (" dice " + " ".join(tokens) if tokens else "")
        lines = self._run_auto(gm.do_apply, arg)
        return self._changed(lines, lines[0] if lines else _("applied"), by_gm=True)

    def undo(self, version: int | None = None) -> list[str]:
        gm = self.require()
        self.check_version(version)
        lines = self._run(gm.do_undo, "")
        return self._changed(lines, lines[0] if lines else _("undone"), by_gm=True)

    def edit(self, command: str, version: int | None = None) -> list[str]:
        """One of the GM session's edit commands (:data:`EDIT_COMMANDS`)."""
        gm = self.require()
        self.check_version(version)
        word, _sep, rest = command.strip().partition(" ")
        if word not in EDIT_COMMANDS:
            raise WebError(
                _f(
                    "unknown edit command {command}; the page accepts: {commands} (e.g. set "
                    "nara pv 5, status rex down, move brann vado, cond add rex Derribado)",
                    repr(word),
                    ", ".join(EDIT_COMMANDS),
                )
            )
        if word == "initiative" and not rest.strip().startswith("dice"):
            raise WebError(_("usage: initiative dice D D … (the dice rolled at the table)"))
        lines = self._run_auto(getattr(gm, f"do_{word}"), rest)
        return self._changed(lines, lines[-1] if lines else _("ok"), by_gm=True)

    def autopilot(
        self,
        enabled: bool,
        agent: str | None = None,
        budget_ms: float | None = None,
        iterations: int | None = None,
        version: int | None = None,
    ) -> list[str]:
        """Turn the enemies' autopilot on (it plays at once if an enemy decides) or off.
        Without an agent or budget, the current one's, else the planner at the page's
        search budget."""
        gm = self.require()
        self.check_version(version)
        if not enabled:
            self.auto_pilot = None
            return self._said(self._run(gm.do_auto, "off"))
        current = self.auto_pilot
        if budget_ms is None and iterations is None:
            if current is not None and agent in (None, current.agent):
                budget_ms, iterations = current.budget_ms, current.iterations
            else:
                budget_ms = self.search_budget_ms
        agent = agent or (current.agent if current is not None else DEFAULT_AGENT)
        pilot = web_pilot(agent, budget_ms, iterations)
        self.auto_pilot = pilot
        lines = self._run_auto(lambda _arg: gm.switch_on(pilot), "")
        if not gm.last_stretch:  # the battle is as it was: the page drawn for it stays valid
            return self._said(lines)
        return self._changed(lines, lines[-1], by_gm=True)

    def _said(self, lines: list[str]) -> list[str]:
        """What a command that left the battle as it was printed, shown on the page."""
        self.lines = lines
        self.message = lines[0] if lines else None
        return lines

    def suggest(
        self, budget_ms: float | None, iterations: int | None, max_ms: float | None = None
    ) -> Suggestions:
        gm = self.require()
        if iterations is None and budget_ms is None:
            budget_ms = WEB_BUDGET_MS
        check_search(budget_ms, iterations)
        if iterations is not None and (budget_ms is not None or max_ms is not None):
            # As the terminal's suggest refuses --iterations beside --budget-ms or
            # --max-ms: a time field beside rollouts would be dropped without a word.
            raise WebError(
                _(
                    "iterations is a number of rollouts (reproducible); budget_ms and max_ms "
                    "are a time budget: give one or the other"
                )
            )
        if iterations is None:
            assert budget_ms is not None
            # The page's maximum never cuts a longer budget; an explicit one is checked.
            max_ms = max(WEB_MAX_MS, budget_ms) if max_ms is None else max_ms
            if not budget_ms <= max_ms <= MAX_BUDGET_MS:
                raise WebError(
                    _f(
                        "max_ms must be in [budget_ms, {most:g}], not {max_ms:g}",
                        MAX_BUDGET_MS,
                        max_ms,
                    )
                )
            search_ms = budget_ms
            self.search_budget_ms, self.search_max_ms = budget_ms, max_ms
        else:
            # An iteration budget is reproducible: no maximum. It still runs under the
            # server's time cap, given to the planner as a time budget beside the
            # rollouts (whichever ends first; the same ranking when the rollouts do):
            # the answer says when the cap cut it (views.suggestions_view).
            budget_ms = max_ms = None
            search_ms = SUGGEST_CAP_MS
        try:
            # Seeded as the terminal session does: session seed + decisions applied.
            result = suggest(
                gm.state,
                budget_ms=search_ms,
                iterations=iterations,
                seed=gm.seed + gm.steps,
                max_ms=max_ms,
            )
        except EscaramuzaError:
            raise
        except Exception:  # any failure of a search is one answer
            # Logged with its traceback; the client gets a message, the server goes on,
            # and the battle is as it was (a search never changes it).
            log.exception("search of %s (round %d) failed", gm.state.scenario.name, gm.state.round)
            raise SearchFailedError(
                _(
                    "the search failed with an internal error (written to the server's log); "
                    "the battle is unchanged: apply an action without a suggestion, or try "
                    "again"
                )
            ) from None
        if budget_ms is None:
            # The document says what was asked, as `escaramuza suggest --iterations N`
            # writes it; the cap is the view's own field.
            result = dataclasses.replace(result, budget_ms=None)
        self.suggestions = result
        self.suggestions_version = self.version
        self.suggestions_language = current_language()
        return result

    def current_suggestions(self) -> Suggestions | None:
        """The last suggestions, while the battle is as they ranked it and the page is in
        the language they were worded in: a page in another language would show their
        actions and reasons in theirs beside its own verdict line (Suggest again)."""
        if self.suggestions_version != self.version:
            return None
        if self.suggestions_language != current_language():
            return None
        return self.suggestions

    # -- state files --------------------------------------------------------------------
    def state_document(self) -> tuple[str, bytes]:
        """The battle as a state file (docs/gm.md): its download name and bytes."""
        gm = self.require()
        meta = gm.meta()
        doc = state_to_dict(gm.state, meta, "download")
        stem = gm.state.scenario.name.rsplit("/", 1)[-1]
        if self.upload is not None:
            # The scenario came as content: name it by its file (so `escaramuza gm` finds
            # it beside the state file) and carry its YAML, so the page can load it back.
            doc["scenario"] = self.upload.filename
            meta["scenario_yaml"] = self.upload.text
            stem = Path(self.upload.filename).stem or stem
        name = f"{clean_filename(stem, 'battle')}-round{gm.state.round}.json"
        return name, (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")

    def load_state(self, filename: str, data: bytes) -> None:
        filename = clean_filename(filename, "state.json")
        text = read_upload(data, filename, MAX_STATE_UPLOAD_BYTES)
        doc = parse_json(text, filename, StateFileError)  # bounded, like a state file's
        if not isinstance(doc, dict):
            raise StateFileError(filename, "", _("a state file must be a JSON object"))
        ref = doc.get("scenario")
        meta = doc.get("meta") if isinstance(doc.get("meta"), dict) else {}
        upload: Upload | None = None
        scenario: Scenario | None = None
        if not isinstance(ref, str):
            raise StateFileError(filename, "scenario", _expected(str, ref))
        if ref not in shipped_scenarios():
            yaml_text = meta.get("scenario_yaml")
            if not isinstance(yaml_text, str):
                raise StateFileError(
                    filename,
                    "scenario",
                    _f(
                        "{name} is not a shipped scenario and the file does not carry its "
                        "YAML (meta.scenario_yaml, written when this page saves an uploaded "
                        "scenario); the page never opens server paths",
                        repr(ref),
                    ),
                )
            yaml_name = clean_filename(ref, "upload.yaml")
            # Validated (and path-free) here, then handed to the loader as is: the
            # server never writes or opens a file for an uploaded scenario.
            try:
                scenario = parse_upload(yaml_text, yaml_name)
            except ScenarioError as exc:
                # Where the text came from: this file's field, as the terminal says it.
                raise ScenarioError.of(f"{filename}: meta.scenario_yaml", exc.problems) from None
            upload = Upload(yaml_name, yaml_text)
        state, meta = state_from_dict(doc, filename, scenario=scenario)
        seed = meta["seed"] if isinstance(meta.get("seed"), int) else DEFAULT_SEED
        steps = meta["steps"] if isinstance(meta.get("steps"), int) else 0
        self._install(state, seed, steps, upload)
        self.loaded = True
        note = self._restore_pilot(meta, filename)
        loaded = _f("loaded {file}: round {round}", filename, state.round)
        self._changed([], loaded + note, by_gm=True)

    def _restore_pilot(self, meta: dict[str, Any], filename: str) -> str:
        """The file's autopilot (``meta.autopilot``), where the page offers its agent; else
        the page's own. Returns what to add to the message."""
        gm = self.require()
        try:
            saved = pilot_from_meta(meta, source=filename)
            pilot = (
                web_pilot(saved.agent, saved.budget_ms, saved.iterations)
                if saved is not None
                else self.auto_pilot
            )
        except EscaramuzaError as exc:
            self.auto_pilot = None
            return "; " + _f("its autopilot is off ({problem})", exc)
        self.auto_pilot = pilot
        gm.set_pilot(pilot)
        return ""

    # -- playtests ------------------------------------------------------------------------
    def start_playtest(self, n: int, seed: int, heroes: str, enemies: str) -> PlaytestJob:
        gm = self.require()
        if self.playtest is not None and self.playtest.status == "running":
            raise BusyError(_("a playtest is already running in this session; wait or cancel it"))
        if not 1 <= n <= MAX_PLAYTEST_BATTLES:
            raise WebError(_f("n must be 1–{most} battles, not {n}", MAX_PLAYTEST_BATTLES, n))
        for spec in (heroes, enemies):
            check_agent(spec, PLAYTEST_AGENTS)
        config = PlaytestConfig(n=n, seed=seed, heroes=heroes, enemies=enemies, workers=1)
        config.validate()
        scenario = gm.state.scenario
        if self.upload is not None:
            ref = ScenarioRef(scenario.name, self.upload.filename, self.upload.text)
        else:
            ref = ScenarioRef.resolve(scenario.name)
        job = PlaytestJob(ref, config, self.clock)
        job.start()
        self.playtest = job
        return job

    def cancel_playtest(self) -> None:
        if self.playtest is None or self.playtest.status != "running":
            raise NotFoundError(_("no playtest is running in this session"))
        self.playtest.cancel()
