"""Per-browser battle sessions of the web page.

Each browser (a session id in a cookie) gets its own :class:`WebSession`: the
battle, its undo history, the last suggestions and a playtest job, behind one
lock, so two GMs on the same server never see each other's battle ("concurrent
sessions kept apart"). The number of sessions is capped, and so is the number of
new sessions one client may start in an hour; which session gives up its slot
when the table is full is :class:`SessionStore`'s rule (docs/web.md, "Sessions
kept").

The battle itself is an :class:`escaramuza.gm.GMSession` driven through its
commands (``apply``, ``undo``, ``set``, ``move``…): the page applies actions,
rolls dice (the tool's or the ones the GM enters) and undoes exactly as the
terminal session does. Its printed lines are captured and shown on the page.

Safety: the client names only shipped scenarios or sends content (YAML, a state
file), never a server path. Uploaded YAML is parsed with the bounded safe loader
(:func:`parse_yaml`: no duplicate keys, bounded nesting) and may not point at a
server file (``options.tables``); an uploaded state file may name only a shipped
scenario, or carry its scenario's YAML as saved by this page. Every search and
playtest has a wall-clock cap (:data:`SUGGEST_CAP_MS`, :data:`PLAYTEST_CAP_S`).
"""

from __future__ import annotations

import dataclasses
import io
import ipaddress
import json
import logging
import math
import re
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from escaramuza.agents.heuristic import TEMPERAMENTS
from escaramuza.agents.suggest import Suggestions, suggest
from escaramuza.gm import DEFAULT_SEED, GMSession, blank_battle
from escaramuza.playtest.records import BattleRecord
from escaramuza.playtest.result import PlaytestResult
from escaramuza.playtest.runner import (
    ChunkJob,
    PlaytestConfig,
    Progress,
    ScenarioRef,
    run_chunk,
    scenario_engine,
)
from escaramuza.playtest.stats import summarize
from escaramuza.playtest.text import render_text
from escaramuza.rules.core.errors import EscaramuzaError, ScenarioError, UnknownNameError
from escaramuza.rules.core.files import parse_json, parse_yaml
from escaramuza.rules.core.i18n import _, _f
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
#: place of another by :class:`SessionStore`'s rule, or is refused with a 503.
MAX_SESSIONS = 32
#: An invested session (a battle in play, :data:`INVEST_CHANGES`) its owner used within
#: this many seconds is never dropped to make room for another client's new one. An
#: hour covers a pause at the table.
KEEP_IDLE_S = 3600.0
#: Changes of the battle (an applied action, an undo, an edit) after which a session
#: counts as *invested*: a GM playing, not a visitor who opened the page or a script
#: that asked for a session and looked at it once. A loaded state file (a battle the
#: GM brought back) invests a session at once.
INVEST_CHANGES = 3
#: New sessions one client may start per :data:`CLIENT_WINDOW_S`: a quarter of the
#: table per hour, so within the time an invested session is protected one client can
#: claim at most a quarter of the slots, and cannot churn the table to push other
#: visitors' new sessions out. A client is its address (an IPv6 address by its /64
#: network, which one machine usually holds whole).
CLIENT_SESSIONS = MAX_SESSIONS // 4
CLIENT_WINDOW_S = KEEP_IDLE_S
#: Clients whose recent new sessions are remembered at once (memory stays bounded).
MAX_TRACKED_CLIENTS = 4096
#: Default search time of the page's Suggest button: an answer in about a second,
#: including the exact odds and drawing the page.
WEB_BUDGET_MS = 600.0
#: How long the page's search may go on while the best is too close to call: the
#: answer stays within about two seconds; the page says so beside the budget.
WEB_MAX_MS = 2000.0
#: Bounds of a suggestion request (milliseconds or rollouts), so one request cannot
#: hold a worker thread for minutes.
MIN_BUDGET_MS = 50.0
MAX_BUDGET_MS = 5000.0
MAX_ITERATIONS = 2000
#: Wall-clock cap of one search, whatever its budget: a time budget and its maximum are
#: at most this, and an iteration budget (otherwise unbounded in time: 2000 rollouts of
#: a large uploaded scenario on the reference engine take minutes) stops here, saying
#: so. The kernel's one-time compile (the first search of a ruleset in the server
#: process) happens before the search's clock starts.
SUGGEST_CAP_MS = MAX_BUDGET_MS
#: Battles one playtest may ask for, and playtests running at once on the server.
MAX_PLAYTEST_BATTLES = 5000
MAX_RUNNING_PLAYTESTS = 2
#: Wall-clock cap of one playtest from the page, in seconds: past it the playtest stops
#: between two chunks of battles and reports the battles it played, saying so.
PLAYTEST_CAP_S = 120.0
#: A playtest's chunks start at one battle and double while a chunk takes less than
#: this, up to :data:`MAX_CHUNK_BATTLES`: the cap and Cancel are checked that often
#: (or after every battle, when one battle takes longer).
PLAYTEST_CHUNK_S = 0.25
MAX_CHUNK_BATTLES = 64
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


class RateLimitError(BusyError):
    """A client started too many sessions lately; ``retry_after`` is in seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class SearchFailedError(WebError):
    """A search ended with an unexpected error (logged on the server with its traceback)."""

    status = 500


class FullError(WebError):
    """Every session slot holds a battle in play (see :class:`SessionStore`)."""

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
        raise WebError(_f("{file}: the file is empty", filename))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise WebError(_f("{file}: not UTF-8 text", filename)) from None


def parse_upload(text: str, filename: str) -> Scenario:
    """Validate an uploaded scenario (ScenarioError names file, field and reason)."""
    # The bounded parser: a syntax error, a duplicate key, too deep a nesting
    # or an overlong integer is a ScenarioError with its line or field (a 400).
    raw = parse_yaml(text, filename, ScenarioError)
    options = raw.get("options") if isinstance(raw, dict) else None
    if isinstance(options, dict):
        # Checked before parsing: the ruleset would open the named file while loading.
        for key in PATH_OPTIONS:
            if key in options and options[key] != "default":
                raise ScenarioError(
                    filename,
                    f"options.{key}",
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
        raise WebError(_f("at most {n} dice at once", _MAX_DICE))
    for t in tokens:
        if not _DIE.match(t):
            raise WebError(_f("bad die {die}: write results such as 6 or d20=14", repr(t)))
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
    """N battles of the session's scenario in a background thread, with progress.

    It stops at :data:`PLAYTEST_CAP_S` after it started (``clock`` seconds), between two
    chunks of battles: ``stopped`` is then ``"time_cap"`` and the numbers are those of
    the battles played, battles 0…done − 1, the same as ``escaramuza playtest -n done``
    with the same seed and agents.
    """

    def __init__(
        self,
        ref: ScenarioRef,
        config: PlaytestConfig,
        clock: Callable[[], float] = time.monotonic,
        cap_s: float = PLAYTEST_CAP_S,
    ) -> None:
        self.ref = ref
        self.config = config
        self.clock = clock
        self.cap_s = cap_s
        self.deadline = math.inf
        self.progress = _JobProgress(config.n)
        self.status = "running"
        #: Why the playtest ended before its N battles (``"time_cap"``), else None.
        self.stopped: str | None = None
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
        self.deadline = self.clock() + self.cap_s
        self.thread.start()

    def cancel(self) -> None:
        self.progress.cancelled = True

    @property
    def done(self) -> int:
        return min(self.progress.done, self.config.n)

    def stopped_text(self) -> str | None:
        """Why the playtest stopped early, in words (None when it played every battle)."""
        if self.stopped != "time_cap":
            return None
        return _f(
            "stopped early: time cap ({seconds} s on this server), {done} of {n} battles "
            "played; the numbers are of those {done} battles (as escaramuza playtest -n "
            "{done} gives them)",
            format(self.cap_s, "g"),
            self.done,
            self.config.n,
        )

    def _play(self) -> tuple[list[BattleRecord], str, str | None]:
        """The battles in order, in growing chunks, until all are played or the cap is
        reached (checked before every chunk but the first); with the engine's choice."""
        cfg = self.config
        engine, why = scenario_engine(self.ref.load(), cfg)
        records: list[BattleRecord] = []
        start, size = 0, 1
        while start < cfg.n:
            if self.progress.cancelled:
                raise _Cancelled
            if start and self.clock() >= self.deadline:
                self.stopped = "time_cap"
                break
            stop = min(cfg.n, start + size)
            began = time.perf_counter()
            # The chunks `escaramuza playtest` plays, by battle index: the records do
            # not depend on how the battles were cut.
            records.extend(
                run_chunk(
                    ChunkJob(
                        self.ref,
                        cfg.heroes,
                        cfg.enemies,
                        cfg.seed,
                        start,
                        stop,
                        cfg.trust_policy,
                        engine,
                        cfg.planner_engine,
                    )
                )
            )
            self.progress.update(stop - start)
            if time.perf_counter() - began < PLAYTEST_CHUNK_S:
                size = min(size * 2, MAX_CHUNK_BATTLES)
            start = stop
        return records, engine, why

    def _run(self) -> None:
        from escaramuza.playtest.report import outcome_plot, rounds_plot, survival_plot

        try:
            # One process, in this thread: the server stays one process and the numbers
            # are the same as `escaramuza playtest` with the same seed and agents.
            # The engine as `escaramuza playtest` chooses it (auto: the kernel where it
            # plays the scenario and agents), named in the summary as there.
            records, engine, why = self._play()
            summary = summarize(self.ref.load(), records)
            summary["engine"] = engine
            summary["engine_refusal"] = why
            played = dataclasses.replace(self.config, n=len(records))
            self.text = render_text(PlaytestResult(played, [summary]))
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
        except Exception:  # a thread must report, not die silently
            log.exception("playtest of %s failed", self.ref.name)
            self.status, self.error = "failed", "internal error (see the server log)"
        finally:
            self.seconds = time.monotonic() - self.started
            _RUNNING.release()


# -- one browser's battle ------------------------------------------------------------


class WebSession:
    """One GM's battle: a GM session, its output, suggestions and a playtest."""

    def __init__(self, sid: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.id = sid
        self.clock = clock
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
        #: When its owner last used it, whether the owner ever came back with its id
        #: after the request that created it, and how far the owner played in it: the
        #: battle changes made (applies, undos, edits) and whether a state file was
        #: loaded (see :class:`SessionStore` and :attr:`invested`).
        self.touched = clock()
        self.returned = False
        self.changes = 0
        self.loaded = False

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
        self.upload = upload

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
        lines = self._run(gm.do_apply, arg)
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
        lines = self._run(getattr(gm, f"do_{word}"), rest)
        return self._changed(lines, lines[-1] if lines else _("ok"), by_gm=True)

    def suggest(
        self, budget_ms: float | None, iterations: int | None, max_ms: float | None = None
    ) -> Suggestions:
        gm = self.require()
        if iterations is not None and not 1 <= iterations <= MAX_ITERATIONS:
            raise WebError(
                _f("iterations must be 1–{most}, not {iterations}", MAX_ITERATIONS, iterations)
            )
        if iterations is None:
            budget_ms = WEB_BUDGET_MS if budget_ms is None else budget_ms
            # Written so that NaN (the page's form accepts "nan") fails too.
            if not MIN_BUDGET_MS <= budget_ms <= MAX_BUDGET_MS:
                raise WebError(
                    _f(
                        "budget_ms must be {least:g}–{most:g}, not {budget_ms:g}",
                        MIN_BUDGET_MS,
                        MAX_BUDGET_MS,
                        budget_ms,
                    )
                )
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
                "the search failed with an internal error (written to the server's log); "
                "the battle is unchanged: apply an action without a suggestion, or try again"
            ) from None
        if budget_ms is None:
            # The document says what was asked, as `escaramuza suggest --iterations N`
            # writes it; the cap is the view's own field.
            result = dataclasses.replace(result, budget_ms=None)
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
                    filename,
                    "scenario",
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
        self.loaded = True
        self._changed([], f"loaded {filename}: round {state.round}", by_gm=True)

    # -- playtests ------------------------------------------------------------------------
    def start_playtest(self, n: int, seed: int, heroes: str, enemies: str) -> PlaytestJob:
        gm = self.require()
        if self.playtest is not None and self.playtest.status == "running":
            raise BusyError("a playtest is already running in this session; wait or cancel it")
        if not 1 <= n <= MAX_PLAYTEST_BATTLES:
            raise WebError(_f("n must be 1–{most} battles, not {n}", MAX_PLAYTEST_BATTLES, n))
        for spec in (heroes, enemies):
            if spec not in PLAYTEST_AGENTS:
                raise WebError(
                    _f(
                        "unknown agent {agent} (the page offers: {agents})",
                        repr(spec),
                        ", ".join(PLAYTEST_AGENTS),
                    )
                )
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
            raise NotFoundError("no playtest is running in this session")
        self.playtest.cancel()


# -- all sessions ------------------------------------------------------------------------


def client_key(host: str | None) -> str:
    """Whom the per-client cap counts: an IPv4 address, an IPv6 address's /64 network
    (one machine usually holds a whole /64 and can pick any address in it), or the
    host name as given (the test client's ``testclient``)."""
    if not host:
        return "unknown"
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class SessionStore:
    """The sessions of one server, by id, at most ``max_sessions`` of them.

    When a new session would pass the cap, the one dropped is, in this order:

    1. a session whose owner never came back with its id after the request that
       created it (a client that asked for a session and left), the oldest first;
    2. a session that is not *invested* (:attr:`WebSession.invested`: fewer than
       :data:`INVEST_CHANGES` changes of its battle and no state file loaded), the
       least recently used first: a visitor who looked, or a script that created a
       session and used it once;
    3. an invested session idle for ``keep_idle_s`` or more, the least recently used
       first (its playtest is cancelled).

    An invested session its owner used more recently (a GM playing) is never dropped
    for someone else's new one: with every slot holding such a session, a new one is
    refused (:class:`FullError`, 503) until one goes idle. A dropped session's running
    playtest is cancelled.

    So that one client can neither churn the table (pushing out other visitors'
    sessions of steps 1 and 2) nor fill it with sessions of its own, each client
    (:func:`client_key` of its address) may start at most ``client_sessions`` sessions
    per ``client_window_s``; past that it is refused with :class:`RateLimitError`
    (429, with the seconds until it may start one again).
    """

    def __init__(
        self,
        max_sessions: int = MAX_SESSIONS,
        keep_idle_s: float = KEEP_IDLE_S,
        clock: Callable[[], float] = time.monotonic,
        client_sessions: int = CLIENT_SESSIONS,
        client_window_s: float = CLIENT_WINDOW_S,
    ) -> None:
        self.max_sessions = max_sessions
        self.keep_idle_s = keep_idle_s
        self.clock = clock
        self.client_sessions = client_sessions
        self.client_window_s = client_window_s
        self._lock = threading.Lock()
        # Least recently used first.
        self._sessions: OrderedDict[str, WebSession] = OrderedDict()
        # When each client started its sessions of the window, oldest first; the
        # clients that started one least recently first.
        self._started: OrderedDict[str, deque[float]] = OrderedDict()

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

    def _victim(self) -> tuple[WebSession, str] | None:
        """The session to drop for a new one, and why (the class's order), or None."""
        sessions = self._sessions.values()  # least recently used first
        idle_since = self.clock() - self.keep_idle_s
        for why, rule in (
            ("its owner never used it", lambda s: not s.returned),
            ("no battle in play in it", lambda s: not s.invested),
            ("idle for long", lambda s: s.touched <= idle_since),
        ):
            found = next((s for s in sessions if rule(s)), None)
            if found is not None:
                return found, why
        return None

    def _admit(self, client: str, now: float) -> deque[float]:
        """The times ``client`` started its sessions of the window; refuse it when it
        has started ``client_sessions`` of them."""
        since = now - self.client_window_s
        # Forget the clients seen least recently while their last new session is out
        # of the window, or while there are more than MAX_TRACKED_CLIENTS of them.
        while self._started:
            first, times = next(iter(self._started.items()))
            if len(self._started) <= MAX_TRACKED_CLIENTS and times and times[-1] > since:
                break
            del self._started[first]
        times = self._started.pop(client, deque())
        while times and times[0] <= since:
            times.popleft()
        self._started[client] = times
        if len(times) >= self.client_sessions:
            wait = max(1, math.ceil(times[0] + self.client_window_s - now))
            log.warning(
                "client %s started %d sessions in %g s: a new one was refused",
                client,
                len(times),
                self.client_window_s,
            )
            raise RateLimitError(
                f"this client ({client}) started {len(times)} sessions in the last "
                f"{self.client_window_s / 60:g} minutes, the most one client may; it may "
                f"start another in {wait} s. Keep your session's cookie (API clients: send "
                "the X-Escaramuza-Session header with the id from POST /api/session)",
                wait,
            )
        return times

    def create(self, client: str | None = None) -> WebSession:
        """A new session for ``client`` (its address: ``request.client.host``)."""
        with self._lock:
            now = self.clock()
            started = self._admit(client_key(client), now)
            while len(self._sessions) >= self.max_sessions:
                victim = self._victim()
                if victim is None:
                    log.warning(
                        "session limit %d reached and every session holds a battle "
                        "in play: a new one was refused",
                        self.max_sessions,
                    )
                    raise FullError(
                        f"the server already holds {self.max_sessions} sessions in use "
                        f"(battles in play, each used in the last {self.keep_idle_s / 60:g} "
                        "minutes); try again later, or reuse your session's cookie"
                    )
                old, why = victim
                del self._sessions[old.id]
                if old.playtest is not None:
                    old.playtest.cancel()
                log.info("session limit %d reached: dropped a session (%s)", self.max_sessions, why)
            session = WebSession(secrets.token_urlsafe(24), self.clock)
            self._sessions[session.id] = session
            started.append(now)
            return session

    def close(self) -> None:
        with self._lock:
            for session in self._sessions.values():
                if session.playtest is not None:
                    session.playtest.cancel()
            self._sessions.clear()
