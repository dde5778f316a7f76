"""Per-browser battle sessions of the web page (issue 10, items 2 and 4).

Each browser (a session id in a cookie) gets its own :class:`WebSession`: the
battle, its undo history, the last suggestions and a playtest job, behind one
lock, so two GMs on the same server never see each other's battle ("concurrent
sessions kept apart"). The number of sessions is capped; the least recently
used one is dropped when a new one would pass the cap.

The battle itself is an :class:`escaramuza.gm.GMSession` driven through its
commands (``apply``, ``undo``, ``set``, ``move``…): the page applies actions,
rolls dice (the tool's or the ones the GM enters) and undoes exactly as the
terminal session does. Its printed lines are captured and shown on the page.

Safety (issue 10, item 4): the client names only shipped scenarios or sends
content (YAML, a state file), never a server path. Uploaded YAML is parsed with
the bounded safe loader (:func:`parse_yaml`: no duplicate keys, bounded nesting)
and may not point at a server file (``options.tables``); an uploaded state file may name only a
shipped scenario, or carry its scenario's YAML as saved by this page.
"""

from __future__ import annotations

import io
import json
import logging
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from escaramuza.agents.heuristic import TEMPERAMENTS
from escaramuza.agents.suggest import Suggestions, suggest
from escaramuza.gm import DEFAULT_SEED, GMSession, blank_battle
from escaramuza.playtest.result import PlaytestResult
from escaramuza.playtest.runner import (
    PlaytestConfig,
    Progress,
    Runner,
    ScenarioRef,
    run_battles,
    scenario_engine,
)
from escaramuza.playtest.stats import summarize
from escaramuza.playtest.text import render_text
from escaramuza.rules.core.errors import EscaramuzaError, ScenarioError, UnknownNameError
from escaramuza.rules.core.files import parse_json, parse_yaml
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.scenario import (
    Scenario,
    load_scenario,
    parse_scenario,
    shipped_scenarios,
)
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file import StateFileError, state_from_dict, state_to_dict

log = logging.getLogger("escaramuza.web")

#: Largest upload (scenario YAML or state file) accepted: shipped scenarios are ~5 kB
#: and state files ~20 kB, so 256 KB is generous and still cheap to parse.
MAX_UPLOAD_BYTES = 256 * 1024
#: Sessions kept at once (memory stays bounded). Past this, a new session takes the
#: place of one its owner never came back to, or of one idle for :data:`KEEP_IDLE_S`.
MAX_SESSIONS = 32
#: A session its owner used within this many seconds is never dropped to make room
#: for another client's new one (issue 19, item 9: 32 `POST /api/session` calls
#: evicted the GM's battle). An hour covers a pause at the table.
KEEP_IDLE_S = 3600.0
#: Default search time of the page's Suggest button: "an answer in about a second"
#: (issue 8) including the exact odds and drawing the page.
WEB_BUDGET_MS = 600.0
#: How long the page's search may go on while the best is too close to call (issue 22):
#: the answer stays within about two seconds; the page says so beside the budget.
WEB_MAX_MS = 2000.0
#: Bounds of a suggestion request (milliseconds or rollouts), so one request cannot
#: hold a worker thread for minutes.
MIN_BUDGET_MS = 50.0
MAX_BUDGET_MS = 5000.0
MAX_ITERATIONS = 2000
#: Battles one playtest may ask for, and playtests running at once on the server.
MAX_PLAYTEST_BATTLES = 5000
MAX_RUNNING_PLAYTESTS = 2
#: Agents a playtest from the page may use: the scripted ones. ``mcts`` would run for
#: hours at these counts and ``policy:PATH`` names a server file.
PLAYTEST_AGENTS: tuple[str, ...] = (
    "heuristic",
    "random",
    *(f"heuristic:{t}" for t in TEMPERAMENTS if t != "random"),
)
#: GM-session commands the page's edit box accepts: edits of the table state and the
#: initiative. ``save``/``load`` take server paths and ``roll manual`` reads a terminal.
EDIT_COMMANDS = ("set", "status", "move", "cond", "initiative")
#: Options of a scenario that name a file; an uploaded scenario may not use them.
PATH_OPTIONS = ("tables",)

_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
_DIE = re.compile(r"^(?:d\d{1,3}=)?\d{1,3}$", re.IGNORECASE)
_MAX_DICE = 100


class WebError(EscaramuzaError):
    """A request the page cannot carry out; ``status`` is its HTTP status code."""

    status = 400


class NotFoundError(WebError):
    status = 404


class StaleError(WebError):
    status = 409


class TooLargeError(WebError):
    status = 413


class BusyError(WebError):
    status = 429


class FullError(WebError):
    """Every session slot holds a session its owner is still using."""

    status = 503


class Upload:
    """An uploaded scenario: its cleaned file name and YAML text (kept to save and replay)."""

    __slots__ = ("filename", "text")

    def __init__(self, filename: str, text: str) -> None:
        self.filename = filename
        self.text = text


def clean_filename(name: str | None, default: str) -> str:
    """The last part of a client's file name, printable, at most 80 characters."""
    base = re.split(r"[\\/]", name or "")[-1]
    base = re.sub(r"[^\w.\- ]", "_", base).strip(" .")
    return base[:80] or default


def read_upload(data: bytes, filename: str) -> str:
    """The upload as text: at most :data:`MAX_UPLOAD_BYTES`, UTF-8."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise TooLargeError(
            f"{filename}: the file is {len(data)} bytes; the limit is {MAX_UPLOAD_BYTES} bytes"
        )
    if not data.strip():
        raise WebError(f"{filename}: the file is empty")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise WebError(f"{filename}: not UTF-8 text") from None


def parse_upload(text: str, filename: str) -> Scenario:
    """Validate an uploaded scenario (ScenarioError names file, field and reason)."""
    # The bounded parser (issue 19): a syntax error, a duplicate key, too deep a nesting
    # or an overlong integer is a ScenarioError with its line or field (a 400).
    raw = parse_yaml(text, filename, ScenarioError)
    options = raw.get("options") if isinstance(raw, dict) else None
    if isinstance(options, dict):
        # Checked before parsing: the ruleset would open the named file while loading.
        for key in PATH_OPTIONS:
            if key in options and options[key] != "default":
                raise ScenarioError(
                    filename, f"options.{key}",
                    "an uploaded scenario cannot name a file on the server; "
                    "remove it to use the default",
                )
    return parse_scenario(raw, filename, default_name=Path(filename).stem or "upload")


def parse_dice(text: str) -> list[str] | None:
    """The dice the GM entered ("6 14 d10=4", commas allowed); None when empty."""
    tokens = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
    if not tokens:
        return None
    if len(tokens) > _MAX_DICE:
        raise WebError(f"at most {_MAX_DICE} dice at once")
    for t in tokens:
        if not _DIE.match(t):
            raise WebError(f"bad die {t!r}: write results such as 6 or d20=14")
    return tokens


# -- playtests ---------------------------------------------------------------------

_RUNNING = threading.BoundedSemaphore(MAX_RUNNING_PLAYTESTS)


class _Cancelled(Exception):
    pass


class _JobProgress(Progress):
    """The playtest runner's progress counter, read by the page; it also cancels."""

    def __init__(self, total: int) -> None:
        super().__init__(total, "web", enabled=False)
        self.cancelled = False

    def update(self, count: int) -> None:
        if self.cancelled:
            raise _Cancelled
        super().update(count)


class PlaytestJob:
    """N battles of the session's scenario in a background thread, with progress."""

    def __init__(self, ref: ScenarioRef, config: PlaytestConfig) -> None:
        self.ref = ref
        self.config = config
        self.progress = _JobProgress(config.n)
        self.status = "running"
        self.error: str | None = None
        self.summary: dict[str, Any] | None = None
        self.text: str | None = None
        self.plots: dict[str, bytes] = {}
        self.started = time.monotonic()
        self.seconds = 0.0
        self.thread = threading.Thread(target=self._run, name="escaramuza-playtest", daemon=True)

    def start(self) -> None:
        if not _RUNNING.acquire(blocking=False):
            raise BusyError(
                f"{MAX_RUNNING_PLAYTESTS} playtests are already running on this server; "
                "wait for one to finish"
            )
        self.thread.start()

    def cancel(self) -> None:
        self.progress.cancelled = True

    @property
    def done(self) -> int:
        return min(self.progress.done, self.config.n)

    def _run(self) -> None:
        from escaramuza.playtest.report import outcome_plot, rounds_plot, survival_plot

        try:
            # One process, in this thread: the server stays one process and the numbers
            # are the same as `escaramuza playtest` with the same seed and agents.
            # The engine as `escaramuza playtest` chooses it (auto: the kernel where it
            # plays the scenario and agents), named in the summary as there.
            engine, why = scenario_engine(self.ref.load(), self.config)
            with Runner(self.config) as runner:
                records = run_battles(self.ref, self.config, runner, self.progress, engine)
            summary = summarize(self.ref.load(), records)
            summary["engine"] = engine
            summary["engine_refusal"] = why
            self.text = render_text(PlaytestResult(self.config, [summary]))
            self.plots = {
                "outcomes": outcome_plot(summary),
                "rounds": rounds_plot(summary),
                "survival": survival_plot(summary),
            }
            self.summary = summary
            self.status = "done"
        except _Cancelled:
            self.status = "cancelled"
        except EscaramuzaError as exc:
            self.status, self.error = "failed", str(exc)
        except Exception:  # noqa: BLE001 - a thread must report, not die silently
            log.exception("playtest of %s failed", self.ref.name)
            self.status, self.error = "failed", "internal error (see the server log)"
        finally:
            self.seconds = time.monotonic() - self.started
            _RUNNING.release()


# -- one browser's battle ------------------------------------------------------------


class WebSession:
    """One GM's battle: a GM session, its output, suggestions and a playtest."""

    def __init__(self, sid: str) -> None:
        self.id = sid
        self.lock = threading.RLock()
        self.out = io.StringIO()
        self.gm: GMSession | None = None
        self.upload: Upload | None = None
        #: Bumped on every change of the battle: forms carry it so a page drawn before
        #: a change (another tab) cannot apply an action to a different decision.
        self.version = 0
        self.suggestions: Suggestions | None = None
        self.suggestions_version = -1
        self.lines: list[str] = []
        self.message: str | None = None
        self.playtest: PlaytestJob | None = None
        #: When its owner last used it, and whether the owner ever came back with its
        #: id after the request that created it (see :class:`SessionStore`).
        self.touched = time.monotonic()
        self.returned = False

    # -- helpers --------------------------------------------------------------------
    @property
    def state(self) -> BattleState:
        return self.require().state

    def require(self) -> GMSession:
        if self.gm is None:
            raise NotFoundError("no battle in this session yet: pick or upload a scenario")
        return self.gm

    def check_version(self, version: int | None) -> None:
        if version is not None and version != self.version:
            raise StaleError(
                "the battle changed since this page was drawn (another tab or window?); "
                "the page now shows the current state — try again"
            )

    def _run(self, command: Callable[[str], Any], arg: str) -> list[str]:
        """Run a GM-session command; return the lines it printed."""
        self.out.seek(0)
        self.out.truncate()
        command(arg)
        return [line.rstrip() for line in self.out.getvalue().splitlines() if line.strip()]

    def _changed(self, lines: list[str], message: str) -> list[str]:
        self.version += 1
        self.lines = lines
        self.message = message
        return lines

    def _install(self, state: BattleState, seed: int, steps: int, upload: Upload | None) -> None:
        # A new battle or a loaded file starts a fresh undo history: the history's states
        # belong to another scenario (or uploaded file) than the one now shown.
        self.gm = GMSession(state, io.StringIO(), self.out, None, seed, "auto", steps)
        self.upload = upload

    # -- starting a battle --------------------------------------------------------------
    def start_shipped(self, name: str, seed: int = DEFAULT_SEED) -> None:
        shipped = shipped_scenarios()
        if name not in shipped:
            raise UnknownNameError(
                f"no shipped scenario named {name!r} (shipped: {', '.join(shipped)})"
            )
        self._start(load_scenario(name), seed, None)
        self.message = f"new battle: {name} (seed {seed})"

    def start_upload(self, filename: str, data: bytes, seed: int = DEFAULT_SEED) -> None:
        filename = clean_filename(filename, "upload.yaml")
        text = read_upload(data, filename)
        self._start(parse_upload(text, filename), seed, Upload(filename, text))
        self.message = f"new battle: {filename} (seed {seed})"

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
            raise WebError(f"bad action: {exc}") from None
        for i, a in enumerate(self.actions(), start=1):
            if a == wanted:
                return i
        raise WebError(f"{wanted} is not a legal action of the pending decision")

    def apply(self, index: int, dice: str = "", version: int | None = None) -> list[str]:
        gm = self.require()
        self.check_version(version)
        n = len(self.actions())
        if not 1 <= index <= n:
            raise WebError(f"there is no action {index}: the legal actions are 1–{n}"
                           if n else "the battle is over: there is nothing to apply")
        tokens = parse_dice(dice)
        arg = str(index) + (" dice " + " ".join(tokens) if tokens else "")
        lines = self._run(gm.do_apply, arg)
        return self._changed(lines, lines[0] if lines else "applied")

    def undo(self, version: int | None = None) -> list[str]:
        gm = self.require()
        self.check_version(version)
        lines = self._run(gm.do_undo, "")
        return self._changed(lines, lines[0] if lines else "undone")

    def edit(self, command: str, version: int | None = None) -> list[str]:
        """One of the GM session's edit commands (:data:`EDIT_COMMANDS`)."""
        gm = self.require()
        self.check_version(version)
        word, _, rest = command.strip().partition(" ")
        if word not in EDIT_COMMANDS:
            raise WebError(
                f"unknown edit command {word!r}; the page accepts: {', '.join(EDIT_COMMANDS)} "
                "(e.g. set nara pv 5, status rex down, move brann vado, cond add rex Derribado)"
            )
        if word == "initiative" and not rest.strip().startswith("dice"):
            raise WebError("usage: initiative dice D D … (the dice rolled at the table)")
        lines = self._run(getattr(gm, f"do_{word}"), rest)
        return self._changed(lines, lines[-1] if lines else "ok")

    def suggest(self, budget_ms: float | None, iterations: int | None,
                max_ms: float | None = None) -> Suggestions:
        gm = self.require()
        if iterations is not None and not 1 <= iterations <= MAX_ITERATIONS:
            raise WebError(f"iterations must be 1–{MAX_ITERATIONS}, not {iterations}")
        if iterations is None:
            budget_ms = WEB_BUDGET_MS if budget_ms is None else budget_ms
            # Written so that NaN (the page's form accepts "nan") fails too.
            if not MIN_BUDGET_MS <= budget_ms <= MAX_BUDGET_MS:
                raise WebError(f"budget_ms must be {MIN_BUDGET_MS:g}–{MAX_BUDGET_MS:g}, "
                               f"not {budget_ms:g}")
            # The page's maximum never cuts a longer budget; an explicit one is checked.
            max_ms = max(WEB_MAX_MS, budget_ms) if max_ms is None else max_ms
            if not budget_ms <= max_ms <= MAX_BUDGET_MS:
                raise WebError(f"max_ms must be in [budget_ms, {MAX_BUDGET_MS:g}], not {max_ms:g}")
        else:
            # An iteration budget is reproducible: no wall-clock maximum.
            budget_ms = max_ms = None
        # Seeded as the terminal session does: session seed + decisions applied.
        result = suggest(gm.state, budget_ms=budget_ms, iterations=iterations,
                         seed=gm.seed + gm.steps, max_ms=max_ms)
        self.suggestions = result
        self.suggestions_version = self.version
        return result

    def current_suggestions(self) -> Suggestions | None:
        return self.suggestions if self.suggestions_version == self.version else None

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
        text = read_upload(data, filename)
        doc = parse_json(text, filename, StateFileError)  # bounded, like a state file's
        if not isinstance(doc, dict):
            raise StateFileError(filename, "", "a state file must be a JSON object")
        ref = doc.get("scenario")
        meta = doc.get("meta") if isinstance(doc.get("meta"), dict) else {}
        upload: Upload | None = None
        scenario: Scenario | None = None
        if not isinstance(ref, str):
            raise StateFileError(filename, "scenario", f"expected a string, got {ref!r}")
        if ref not in shipped_scenarios():
            yaml_text = meta.get("scenario_yaml")
            if not isinstance(yaml_text, str):
                raise StateFileError(
                    filename, "scenario",
                    f"{ref!r} is not a shipped scenario and the file does not carry its YAML "
                    "(meta.scenario_yaml, written when this page saves an uploaded scenario); "
                    "the page never opens server paths",
                )
            yaml_name = clean_filename(ref, "upload.yaml")
            # Validated (and path-free) here, then handed to the loader as is: the
            # server never writes or opens a file for an uploaded scenario.
            scenario = parse_upload(yaml_text, yaml_name)
            upload = Upload(yaml_name, yaml_text)
        state, meta = state_from_dict(doc, filename, scenario=scenario)
        seed = meta["seed"] if isinstance(meta.get("seed"), int) else DEFAULT_SEED
        steps = meta["steps"] if isinstance(meta.get("steps"), int) else 0
        self._install(state, seed, steps, upload)
        self._changed([], f"loaded {filename}: round {state.round}")

    # -- playtests ------------------------------------------------------------------------
    def start_playtest(self, n: int, seed: int, heroes: str, enemies: str) -> PlaytestJob:
        gm = self.require()
        if self.playtest is not None and self.playtest.status == "running":
            raise BusyError("a playtest is already running in this session; wait or cancel it")
        if not 1 <= n <= MAX_PLAYTEST_BATTLES:
            raise WebError(f"n must be 1–{MAX_PLAYTEST_BATTLES} battles, not {n}")
        for spec in (heroes, enemies):
            if spec not in PLAYTEST_AGENTS:
                raise WebError(f"unknown agent {spec!r} (the page offers: "
                               f"{', '.join(PLAYTEST_AGENTS)})")
        config = PlaytestConfig(n=n, seed=seed, heroes=heroes, enemies=enemies, workers=1)
        config.validate()
        scenario = gm.state.scenario
        if self.upload is not None:
            ref = ScenarioRef(scenario.name, self.upload.filename, self.upload.text)
        else:
            ref = ScenarioRef.resolve(scenario.name)
        job = PlaytestJob(ref, config)
        job.start()
        self.playtest = job
        return job

    def cancel_playtest(self) -> None:
        if self.playtest is None or self.playtest.status != "running":
            raise NotFoundError("no playtest is running in this session")
        self.playtest.cancel()


# -- all sessions ------------------------------------------------------------------------


class SessionStore:
    """The sessions of one server, by id, at most ``max_sessions`` of them.

    When a new session would pass the cap, the one dropped is, in this order: the
    least recently created session whose owner never came back with its id (a client
    that asked for sessions and never used them), else the least recently used one
    idle for ``keep_idle_s`` or more. A session its owner used more recently is never
    dropped for someone else's new one: with every slot holding such a session, a new
    session is refused (:class:`FullError`, 503) until one goes idle. So no client
    can evict the GM's battle by asking for sessions (issue 19, item 9).
    """

    def __init__(
        self,
        max_sessions: int = MAX_SESSIONS,
        keep_idle_s: float = KEEP_IDLE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_sessions = max_sessions
        self.keep_idle_s = keep_idle_s
        self.clock = clock
        self._lock = threading.Lock()
        # Least recently used first.
        self._sessions: OrderedDict[str, WebSession] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, sid: str | None) -> WebSession | None:
        """The session with this id, used by its owner now (None if there is none)."""
        if not sid or not _SESSION_ID.match(sid):
            return None
        with self._lock:
            session = self._sessions.get(sid)
            if session is not None:
                self._sessions.move_to_end(sid)
                session.touched = self.clock()
                session.returned = True
            return session

    def peek(self, sid: str) -> WebSession | None:
        """The session with this id, without counting as its owner's use (tests, logs)."""
        with self._lock:
            return self._sessions.get(sid)

    def _victim(self) -> WebSession | None:
        unused = (s for s in self._sessions.values() if not s.returned)
        idle_since = self.clock() - self.keep_idle_s
        idle = (s for s in self._sessions.values() if s.touched <= idle_since)
        return next(unused, None) or next(idle, None)

    def create(self) -> WebSession:
        with self._lock:
            while len(self._sessions) >= self.max_sessions:
                old = self._victim()
                if old is None:
                    log.warning("session limit %d reached and every session is in use: "
                                "a new one was refused", self.max_sessions)
                    raise FullError(
                        f"the server already holds {self.max_sessions} sessions in use "
                        f"(each used in the last {self.keep_idle_s / 60:g} minutes); "
                        "try again later, or reuse your session's cookie"
                    )
                del self._sessions[old.id]
                if old.playtest is not None:
                    old.playtest.cancel()
                log.info("session limit %d reached: dropped a session %s", self.max_sessions,
                         "idle for long" if old.returned else "its owner never used")
            session = WebSession(secrets.token_urlsafe(24))
            session.touched = self.clock()
            self._sessions[session.id] = session
            return session

    def close(self) -> None:
        with self._lock:
            for session in self._sessions.values():
                if session.playtest is not None:
                    session.playtest.cancel()
            self._sessions.clear()
