"""``escaramuza playtest``: play a scenario thousands of times and say how deadly it is.

The scenario designer's question — "how deadly is this encounter?" — answered
with numbers and their uncertainty (issue 7, items 2, 4, 5): outcome rates with
95 % Wilson intervals, rounds, per-combatant knock-out / death / damage /
survival, the party-wipe probability, the enemy that hurts the heroes most and a
difficulty rating. Definitions and thresholds are documented in
``docs/playtest.md``; the JSON written by ``--json`` and ``summary.json`` follows
the schema there.

Determinism (architecture.md, "Determinism and seeds"): battle ``i`` of a run
with seed ``S`` is played with the integer seed
``SeedSequence(S).spawn(n)[i].generate_state(1)[0]`` and fresh agents, whatever
process plays it. Battles are cut into chunks (contiguous index ranges); each
chunk returns one compact :class:`BattleRecord` per battle (not the event log),
and the records are sorted by index before anything is summed — with integer
sums only — so the totals, the JSON and the report are identical for any worker
count and for both backends.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from escaramuza.agents import make_agent
from escaramuza.agents.fast import (
    DEFAULT_ENGINE,
    FAST,
    REFERENCE,
    add_engine_option,
    check_engine,
    choose_engine,
    engine_line,
    play_records,
)
from escaramuza.agents.policy import add_trust_option
from escaramuza.agents.runner import play_battle
from escaramuza.progress import progress_bar
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.events import Damaged, Event, RoundStarted, StatusChanged
from escaramuza.rules.core.i18n import N_, _, _f, word
from escaramuza.rules.core.model import Side, Status
from escaramuza.rules.core.scenario import (
    Scenario,
    load_scenario,
    parse_scenario_text,
    resolve_scenario,
)
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.core.stats import wilson_interval

#: Version tag of the JSON document (``--json``, ``summary.json``); bumped on a breaking change.
SCHEMA = "escaramuza.playtest/1"

DEFAULT_N = 1000
DEFAULT_SEED = 1
DEFAULT_AGENT = "heuristic"
#: One process by default: predictable on a shared machine; ``--workers 0`` takes every core.
DEFAULT_WORKERS = 1
BACKENDS = ("local", "ray")

#: z of a two-sided 95 % interval (the 0.975 quantile of the standard normal).

#: A chunk should hold at least this much work (issue 7: "chunks of at least ~100 ms"),
#: so process or cluster overhead stays small next to the battles...
MIN_CHUNK_SECONDS = 0.1
#: ...and at most this much, so the progress bar moves and workers finish together.
MAX_CHUNK_SECONDS = 2.0
#: Chunks per worker aimed at between those bounds, for load balance.
CHUNKS_PER_WORKER = 4
#: Battles are timed in the parent until this long has passed (they count in the results).
CALIBRATION_SECONDS = 0.05

#: Statuses that mean "knocked out" (issue 7: any status other than active or fled).
KNOCKED_OUT = frozenset({Status.DOWN.value, Status.DEFEATED.value, Status.DEAD.value})
#: ``ko_round`` of a combatant never knocked out in a battle.
NEVER = -1

#: Draw reasons always present in the JSON (zero if they never happen), for stable keys.
DRAW_REASONS = ("timeout", "withdrawal", "mutual")

#: Difficulty ratings, hardest first: (name, minimum P(wipe), minimum hero knock-out share).
#: A scenario gets the first rating whose wipe OR knock-out threshold it reaches
#: (docs/playtest.md, "Difficulty rating").
DIFFICULTY_THRESHOLDS: tuple[tuple[str, float, float], ...] = (
    (N_("Deadly"), 0.50, 0.75),
    (N_("Hard"), 0.20, 0.50),
    (N_("Medium"), 0.05, 0.25),
    (N_("Easy"), 0.01, 0.05),
)
TRIVIAL = N_("Trivial")


# -- configuration --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlaytestConfig:
    """How to run a playtest. Agent specs are opaque strings for ``make_agent``."""

    n: int = DEFAULT_N
    seed: int = DEFAULT_SEED
    heroes: str = DEFAULT_AGENT
    enemies: str = DEFAULT_AGENT
    workers: int = DEFAULT_WORKERS
    backend: str = "local"
    address: str | None = None
    #: Battles per chunk; None = calibrated so a chunk is 0.1–2 s of work.
    chunk_size: int | None = None
    #: ``--trust-policy``: load ``policy:PATH`` files with SB3's unpickling loader.
    trust_policy: bool = False
    #: ``--engine``: ``auto`` (a ruleset's compiled kernel where it plays the scenario and
    #: the agents, else the engine), ``fast`` (the kernel or an error) or ``reference``.
    #: The numbers never depend on it (docs/fast-path.md).
    engine: str = DEFAULT_ENGINE

    @property
    def planner_engine(self) -> str:
        """The engine of an ``mcts`` agent's rollouts when its spec names none: the
        engine's when ``--engine reference``, else ``auto``."""
        return REFERENCE if self.engine == REFERENCE else DEFAULT_ENGINE

    def validate(self) -> None:
        """Raise :class:`EscaramuzaError` for values a user can get wrong."""
        if self.n <= 0:
            raise EscaramuzaError(f"-n must be a positive number of battles, not {self.n}")
        if self.workers < 0:
            raise EscaramuzaError(
                f"--workers must be 0 (all cores) or a positive number, not {self.workers}"
            )
        if self.backend not in BACKENDS:
            raise EscaramuzaError(
                f"unknown backend {self.backend!r} (known: {', '.join(BACKENDS)})"
            )
        if self.address is not None and self.backend != "ray":
            raise EscaramuzaError("--address joins a Ray cluster; use it with --backend ray")
        if self.chunk_size is not None and self.chunk_size <= 0:
            raise EscaramuzaError(f"chunk size must be positive, not {self.chunk_size}")
        if self.seed < 0:
            raise EscaramuzaError(f"--seed must be a non-negative integer, not {self.seed}")
        check_engine(self.engine)
        for spec in (self.heroes, self.enemies):
            # raises UnknownNameError for an unknown agent, UntrustedPolicyError for a
            # policy file that cannot be read without unpickling
            make_agent(spec, trust_policy=self.trust_policy)

    @property
    def processes(self) -> int:
        return self.workers or (os.cpu_count() or 1)


@dataclass(frozen=True, slots=True)
class ScenarioRef:
    """A scenario as a worker can load it anywhere: its YAML text, not a path.

    A Ray worker on another machine has neither the user's file nor its path, so
    the text travels with each chunk (a few kB) and is parsed once per process.
    """

    name: str
    source: str
    text: str

    @staticmethod
    def resolve(name_or_path: str) -> ScenarioRef:
        scenario = load_scenario(name_or_path)  # validates: a bad file fails here, clearly
        path = resolve_scenario(name_or_path)
        text = Path(path).read_text(encoding="utf-8")
        return ScenarioRef(scenario.name, scenario.source, text)

    def load(self) -> Scenario:
        key = (self.name, self.source, self.text)
        scenario = _SCENARIOS.get(key)
        if scenario is None:
            scenario = parse_scenario_text(self.text, self.source, default_name=self.name)
            if scenario.name != self.name:
                # Shipped scenarios are known by ``ruleset/stem`` (as load_scenario does).
                object.__setattr__(scenario, "name", self.name)
            _SCENARIOS[key] = scenario
        return scenario


#: Per-process cache of parsed scenarios (a worker parses each scenario once).
_SCENARIOS: dict[tuple[str, str, str], Scenario] = {}


# -- one battle → one compact record ----------------------------------------------


@dataclass(frozen=True, slots=True)
class CombatantRecord:
    """What one battle did to one combatant. Damage is in the ruleset's own units
    (PV, heridas, FUE…), summed over every resource its ``Damaged`` events name."""

    ko_round: int  # round of the first knock-out, NEVER if it stayed up
    died: bool
    dealt: int  # damage this combatant caused (any target)
    dealt_to_foes: int  # of which to the other side
    taken: int


@dataclass(frozen=True, slots=True)
class BattleRecord:
    """One battle, compactly: what the statistics need, not the event log."""

    index: int
    seed: int
    winner: str | None
    reason: str
    rounds: int
    wipe: bool
    combatants: tuple[CombatantRecord, ...]  # scenario order


def battle_seed(seed: int, index: int) -> int:
    """The integer seed of battle ``index``: child ``index`` of ``SeedSequence(seed).spawn``.

    ``SeedSequence(seed, spawn_key=(i,))`` is exactly the i-th spawned child, so a
    worker derives its seeds without the parent spawning (and shipping) all n.
    """
    child = np.random.SeedSequence(seed, spawn_key=(index,))
    return int(child.generate_state(1)[0])


def record_battle(index: int, seed: int, state: BattleState) -> BattleRecord:
    """Reduce a finished battle's event log to a :class:`BattleRecord`."""
    outcome = state.outcome
    if outcome is None:
        raise EscaramuzaError(f"{state.scenario.name}: battle {index} did not finish")
    start = state.scenario.combatants
    return record_from_events(
        [c.id for c in start],
        [c.side for c in start],
        [c.status.value for c in start],
        state.log,
        index=index,
        seed=seed,
        winner=outcome.winner.value if outcome.winner else None,
        reason=outcome.reason,
        rounds=outcome.rounds,
        final=[c.status.value for c in state.combatants],
    )


def record_from_events(
    ids: Sequence[str],
    sides: Sequence[Side],
    initial: Sequence[str],
    events: Sequence[Event],
    *,
    index: int,
    seed: int,
    winner: str | None,
    reason: str,
    rounds: int,
    final: Sequence[str] | None = None,
) -> BattleRecord:
    """Walk the log once, keeping each combatant's status as it changes.

    A knock-out is any status other than active or fled at any moment; the party
    is wiped when, at some moment, every hero is knocked out at once — checked
    after each status change, so Destiny Dice heroes who wake with 1 PV as the
    battle ends (DD-16) still count as wiped (docs/playtest.md, "Definitions").
    """
    pos = {cid: i for i, cid in enumerate(ids)}
    status = list(initial)
    ko = [0 if s in KNOCKED_OUT else NEVER for s in status]
    died = [s == Status.DEAD.value for s in status]
    dealt = [0] * len(ids)
    to_foes = [0] * len(ids)
    taken = [0] * len(ids)
    heroes = [i for i, s in enumerate(sides) if s is Side.HEROES]

    def all_heroes_out() -> bool:
        return bool(heroes) and all(status[i] in KNOCKED_OUT for i in heroes)

    wipe = all_heroes_out()
    current_round = 0
    for event in events:
        if isinstance(event, Damaged):
            t = pos.get(event.target)
            if t is None:
                continue
            taken[t] += event.amount
            s = pos.get(event.source)
            if s is not None:
                dealt[s] += event.amount
                if sides[s] is not sides[t]:
                    to_foes[s] += event.amount
        elif isinstance(event, StatusChanged):
            t = pos.get(event.target)
            if t is None:
                continue
            status[t] = event.status
            if event.status in KNOCKED_OUT and ko[t] == NEVER:
                ko[t] = current_round
            died[t] = died[t] or event.status == Status.DEAD.value
            wipe = wipe or all_heroes_out()
        elif isinstance(event, RoundStarted):
            current_round = event.round
    if final is not None:
        # Safety net: a status set without a StatusChanged event still counts at the end.
        for i, s in enumerate(final):
            if s in KNOCKED_OUT and ko[i] == NEVER:
                ko[i] = rounds
            died[i] = died[i] or s == Status.DEAD.value
        status = list(final)
        wipe = wipe or all_heroes_out()
    return BattleRecord(
        index,
        seed,
        winner,
        reason,
        rounds,
        wipe,
        tuple(
            CombatantRecord(ko[i], died[i], dealt[i], to_foes[i], taken[i])
            for i in range(len(ids))
        ),
    )


# -- chunks ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChunkJob:
    """Battles ``start``…``stop - 1`` of one scenario: all a worker needs, picklable."""

    ref: ScenarioRef
    heroes: str
    enemies: str
    seed: int
    start: int
    stop: int
    trust_policy: bool = False
    #: The engine that plays the chunk, chosen once per scenario by the parent
    #: (:func:`escaramuza.agents.fast.choose_engine`): ``"fast"`` or ``"reference"``.
    engine: str = REFERENCE
    #: The rollouts' engine of ``mcts`` agents whose spec names none.
    planner_engine: str = DEFAULT_ENGINE


def play_one(
    scenario: Scenario, heroes: str, enemies: str, seed: int, index: int,
    trust_policy: bool = False, planner_engine: str = DEFAULT_ENGINE,
) -> BattleRecord:
    """Play battle ``index`` on the engine. Fresh agents every battle, so no agent memory
    can leak from one battle to the next and make results depend on how battles were
    chunked."""
    agents = {
        Side.HEROES: make_agent(heroes, trust_policy=trust_policy, engine=planner_engine),
        Side.ENEMIES: make_agent(enemies, trust_policy=trust_policy, engine=planner_engine),
    }
    battle = battle_seed(seed, index)
    # No ActionTaken lines: a record reads only the rules' events (runner.play_battle).
    state = play_battle(scenario, agents, seed=battle, narrate=False)
    return record_battle(index, battle, state)


def run_chunk(job: ChunkJob) -> list[BattleRecord]:
    """Play one chunk (in whatever process or cluster node runs it), on its engine: a
    kernel plays the whole chunk in one call and gives the engine's records."""
    scenario = job.ref.load()
    if job.engine == FAST:
        return play_records(scenario, job.heroes, job.enemies, job.seed, job.start, job.stop)
    return [
        play_one(scenario, job.heroes, job.enemies, job.seed, i, job.trust_policy,
                 job.planner_engine)
        for i in range(job.start, job.stop)
    ]


def chunk_ranges(start: int, stop: int, size: int) -> Iterator[tuple[int, int]]:
    for a in range(start, stop, size):
        yield a, min(a + size, stop)


def chunk_size_for(seconds_per_battle: float, remaining: int, workers: int) -> int:
    """Battles per chunk: about ``CHUNKS_PER_WORKER`` chunks per worker, kept between
    ``MIN_CHUNK_SECONDS`` and ``MAX_CHUNK_SECONDS`` of work."""
    per = max(seconds_per_battle, 1e-6)
    lo = max(1, math.ceil(MIN_CHUNK_SECONDS / per))
    hi = max(lo, math.floor(MAX_CHUNK_SECONDS / per))
    balanced = math.ceil(remaining / (max(workers, 1) * CHUNKS_PER_WORKER))
    return max(1, min(max(balanced, lo), hi))


# -- progress -------------------------------------------------------------------


class Progress:
    """Counts the battles played (the web page reads ``done``) and draws the commands'
    progress bar (escaramuza/progress.py: stderr, a terminal only) when enabled."""

    def __init__(
        self, total: int, label: str, enabled: bool, stream: TextIO | None = None
    ) -> None:
        self.total = total
        self.done = 0
        self._bar = progress_bar(total, label, enabled, stream)

    def update(self, count: int) -> None:
        self.done += count
        self._bar.update(count)

    def close(self) -> None:
        self._bar.close()


# -- backends -------------------------------------------------------------------


#: Called with the number of battles each time a chunk finishes (drives the progress bar).
Done = Callable[[int], None]


def _pool_context() -> Any:
    # fork is unsafe in a parent with threads (Ray, BLAS); forkserver/spawn start clean.
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    # The server imports the engine once; each worker forks from it already loaded.
    ctx.set_forkserver_preload([__name__])
    return ctx


class Runner:
    """Plays chunks on the chosen backend; owns the process pool or the Ray connection."""

    def __init__(self, config: PlaytestConfig) -> None:
        self.config = config
        self._pool: Executor | None = None
        self._ray: Any = None
        self._ray_started = False
        self._remote: dict[Callable[[Any], list[Any]], Any] = {}

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def parallel(self) -> bool:
        return self.config.backend == "ray" or self.config.processes > 1

    def start(self) -> None:
        """Connect to Ray now, so a missing Ray or a bad address fails before any battle."""
        if self.config.backend == "ray":
            self._connect_ray()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        if self._ray_started and self._ray is not None:
            self._ray.shutdown()
            self._ray_started = False

    def run(
        self, jobs: Sequence[Any], done: Done, work: Callable[[Any], list[Any]] = run_chunk
    ) -> list[Any]:
        """Run ``jobs``; call ``done(items)`` as each finishes; records in any order.

        ``work`` plays one job (default :func:`run_chunk`, a chunk of battles); ``campaign``
        passes its own, which plays whole adventuring days. It must be a module-level
        function (the pool pickles it by name) and each job must have ``start``/``stop``.
        """
        if not jobs:
            return []
        if self.config.backend == "ray":
            return self._run_ray(jobs, done, work)
        if self.config.processes <= 1:
            out: list[Any] = []
            for job in jobs:
                out.extend(work(job))
                done(job.stop - job.start)
            return out
        return self._run_pool(jobs, done, work)

    def _run_pool(
        self, jobs: Sequence[Any], done: Done, work: Callable[[Any], list[Any]]
    ) -> list[Any]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.config.processes, mp_context=_pool_context())
        futures = {self._pool.submit(work, job): job for job in jobs}
        out: list[BattleRecord] = []
        for future in as_completed(futures):
            out.extend(future.result())
            job = futures[future]
            done(job.stop - job.start)
        return out

    def _connect_ray(self) -> Any:
        if self._ray is not None:
            return self._ray
        try:
            import ray
        except ImportError:
            raise EscaramuzaError(
                "--backend ray needs Ray: pip install 'escaramuza[cluster]'"
            ) from None
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if self.config.address is not None:
                kwargs["address"] = self.config.address
            elif self.config.workers:
                kwargs["num_cpus"] = self.config.workers
            try:
                ray.init(**kwargs)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = self.config.address or "a local Ray instance"
                raise EscaramuzaError(f"cannot start or join {where}: {exc}") from None
            self._ray_started = True
        self._ray = ray
        return ray

    def _run_ray(
        self, jobs: Sequence[Any], done: Done, work: Callable[[Any], list[Any]]
    ) -> list[Any]:
        ray = self._connect_ray()
        remote = self._remote.get(work)
        if remote is None:
            remote = self._remote[work] = ray.remote(work)
        pending = {remote.remote(job): job for job in jobs}
        out: list[Any] = []
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                job = pending.pop(ref)
                out.extend(ray.get(ref))
                done(job.stop - job.start)
        return out


def scenario_engine(scenario: Scenario, config: PlaytestConfig) -> tuple[str, str | None]:
    """The engine that plays ``scenario``'s battles and, when ``auto`` fell back to the
    reference engine, why (``--engine fast`` refusing raises, exit 2)."""
    return choose_engine(config.engine, scenario, (config.heroes, config.enemies))


def run_battles(
    ref: ScenarioRef,
    config: PlaytestConfig,
    runner: Runner,
    progress: Progress | None = None,
    engine: str | None = None,
) -> list[BattleRecord]:
    """All ``config.n`` battles of one scenario, sorted by battle index, on ``engine``
    (``"fast"`` / ``"reference"``; None: :func:`scenario_engine` chooses)."""
    scenario = ref.load()
    if engine is None:
        engine = scenario_engine(scenario, config)[0]
    records: list[BattleRecord] = []
    tick = progress.update if progress is not None else (lambda _count: None)
    size = config.chunk_size
    start = 0

    def job(a: int, b: int) -> ChunkJob:
        return ChunkJob(ref, config.heroes, config.enemies, config.seed, a, b,
                        config.trust_policy, engine, config.planner_engine)

    if size is None and runner.parallel:
        # Time a few battles here (they count) to size the chunks (issue 7, item 4).
        if engine == FAST:
            # The first kernel call compiles it or loads it from numba's cache: not timed.
            records.extend(run_chunk(job(0, 1)))
            start = 1
            tick(1)
        began = time.perf_counter()
        timed = start
        batch = 1
        while start < config.n and time.perf_counter() - began < CALIBRATION_SECONDS:
            # The engine one battle at a time (an mcts battle can take seconds); a kernel
            # in doubling batches, since one battle is far below a call's overhead.
            stop = min(config.n, start + batch)
            records.extend(run_chunk(job(start, stop)))
            tick(stop - start)
            start = stop
            batch = batch * 2 if engine == FAST else 1
        per = (time.perf_counter() - began) / max(start - timed, 1)
        size = chunk_size_for(per, config.n - start, config.processes)
    elif size is None:
        # One process: chunks only pace the progress bar, ~1 % of the run each.
        size = max(1, math.ceil(config.n / 100))
    jobs = [job(a, b) for a, b in chunk_ranges(start, config.n, size)]
    records.extend(runner.run(jobs, tick))
    records.sort(key=lambda r: r.index)
    if [r.index for r in records] != list(range(config.n)):
        raise EscaramuzaError(f"{ref.name}: battles missing from the playtest results")
    return records


# -- statistics -----------------------------------------------------------------


def _round(x: float) -> float:
    # Six decimals: plenty for rates of n ≤ 10⁶ battles, and a stable, readable JSON.
    return round(x, 6)


def proportion(count: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_interval(count, n)
    return {"ci95": [_round(lo), _round(hi)], "count": count, "rate": _round(count / n)}


def percentile_nearest_rank(sorted_values: Sequence[int], q: float) -> int:
    """Nearest-rank percentile: the smallest value with at least ``q`` of the data ≤ it."""
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def difficulty(p_wipe: float, ko_share: float) -> str:
    """The first (hardest) rating whose wipe or hero knock-out threshold is reached."""
    for name, min_wipe, min_ko in DIFFICULTY_THRESHOLDS:
        if p_wipe >= min_wipe or ko_share >= min_ko:
            return name
    return TRIVIAL


def _outcomes(records: Sequence[BattleRecord]) -> dict[str, Any]:
    n = len(records)
    heroes = sum(r.winner == Side.HEROES.value for r in records)
    enemies = sum(r.winner == Side.ENEMIES.value for r in records)
    draws = [r.reason for r in records if r.winner is None]
    out = {
        "heroes": proportion(heroes, n),
        "enemies": proportion(enemies, n),
        "draw": proportion(len(draws), n),
    }
    for reason in DRAW_REASONS:
        out[f"draw_{reason}"] = proportion(draws.count(reason), n)
    out["draw_other"] = proportion(sum(d not in DRAW_REASONS for d in draws), n)
    return out


def _rounds(records: Sequence[BattleRecord]) -> dict[str, Any]:
    values = sorted(r.rounds for r in records)
    n = len(values)
    mid = n // 2
    median = values[mid] if n % 2 else (values[mid - 1] + values[mid]) / 2
    histogram = [0] * (values[-1] + 1)
    for v in values:
        histogram[v] += 1
    return {
        "histogram": histogram,
        "max": values[-1],
        "mean": _round(sum(values) / n),
        "median": median,
        "min": values[0],
        "p90": percentile_nearest_rank(values, 0.9),
    }


def _combatant(
    scenario: Scenario, i: int, records: Sequence[BattleRecord], side_total: int, horizon: int
) -> dict[str, Any]:
    c = scenario.combatants[i]
    n = len(records)
    rows = [r.combatants[i] for r in records]
    kos = [row.ko_round for row in rows]
    dealt_to_foes = sum(row.dealt_to_foes for row in rows)
    survived = sum(k if k != NEVER else r.rounds for k, r in zip(kos, records, strict=True))
    # S(r) = P(still not knocked out at the end of round r); NEVER counts as standing.
    survival = [_round(sum(k == NEVER or k > r for k in kos) / n) for r in range(horizon + 1)]
    return {
        "damage_share": _round(dealt_to_foes / side_total) if side_total else 0.0,
        "id": c.id,
        "mean_damage_dealt": _round(sum(row.dealt for row in rows) / n),
        "mean_damage_dealt_to_foes": _round(dealt_to_foes / n),
        "mean_damage_taken": _round(sum(row.taken for row in rows) / n),
        "mean_rounds_survived": _round(survived / n),
        "name": c.name,
        "p_dies": proportion(sum(row.died for row in rows), n),
        "p_knocked_out": proportion(sum(k != NEVER for k in kos), n),
        "side": c.side.value,
        "survival": survival,
    }


def summarize(scenario: Scenario, records: Sequence[BattleRecord]) -> dict[str, Any]:
    """The JSON-ready statistics of one scenario (schema in docs/playtest.md)."""
    n = len(records)
    if n == 0:
        raise EscaramuzaError(f"{scenario.name}: no battles to summarize")
    horizon = max(r.rounds for r in records)
    side_totals = {
        side: sum(
            r.combatants[i].dealt_to_foes
            for r in records
            for i, c in enumerate(scenario.combatants)
            if c.side is side
        )
        for side in Side
    }
    combatants = [
        _combatant(scenario, i, records, side_totals[c.side], horizon)
        for i, c in enumerate(scenario.combatants)
    ]
    heroes = [c for c in combatants if c["side"] == Side.HEROES.value]
    enemies = [c for c in combatants if c["side"] == Side.ENEMIES.value]
    # Expected share of the party knocked out: the mean of the heroes' P(knocked out).
    ko_share = sum(h["p_knocked_out"]["rate"] for h in heroes) / len(heroes) if heroes else 0.0
    wipe = proportion(sum(r.wipe for r in records), n)
    top = None
    if enemies and side_totals[Side.ENEMIES] > 0:
        # max() keeps the first of equals: ties go to the earlier enemy in scenario order.
        best = max(enemies, key=lambda e: e["damage_share"])
        top = {"id": best["id"], "name": best["name"], "share": best["damage_share"]}
    return {
        "battles": n,
        "combatants": combatants,
        "difficulty": difficulty(wipe["rate"], ko_share),
        "hero_knockout_share": _round(ko_share),
        "outcomes": _outcomes(records),
        "party_wipe": wipe,
        "rounds": _rounds(records),
        "round_limit": scenario.round_limit,
        "ruleset": scenario.ruleset.id,
        "scenario": scenario.name,
        "title": scenario.title,
        "top_damager": top,
    }


# -- the whole run ----------------------------------------------------------------


@dataclass(slots=True)
class PlaytestResult:
    config: PlaytestConfig
    summaries: list[dict[str, Any]] = field(default_factory=list)
    records: dict[str, list[BattleRecord]] = field(default_factory=dict)
    seconds: float = 0.0

    def document(self) -> dict[str, Any]:
        """The JSON document (``--json``, ``summary.json``). Run parameters that cannot
        change the numbers (workers, backend, timings) are left out on purpose, so the
        document is byte-identical for any worker count and either backend."""
        cfg = self.config
        return {
            "agents": {"enemies": cfg.enemies, "heroes": cfg.heroes},
            "battles": cfg.n,
            "scenarios": self.summaries,
            "schema": SCHEMA,
            "seed": cfg.seed,
        }

    def to_json(self) -> str:
        return json.dumps(self.document(), ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def playtest(
    scenarios: Sequence[str],
    config: PlaytestConfig,
    show_progress: bool = False,
    keep_records: bool = False,
    runner: Runner | None = None,
) -> PlaytestResult:
    """Play ``config.n`` battles of each scenario and summarize them."""
    config.validate()
    refs = [ScenarioRef.resolve(name) for name in scenarios]
    if not refs:
        raise EscaramuzaError("name at least one scenario to playtest")
    result = PlaytestResult(config)
    began = time.perf_counter()
    own = runner is None
    active = runner if runner is not None else Runner(config)
    try:
        active.start()
        # Every scenario's engine first: --engine fast refuses before any battle.
        engines = [scenario_engine(ref.load(), config) for ref in refs]
        for ref, (engine, why) in zip(refs, engines, strict=True):
            bar = Progress(config.n, ref.name, show_progress)
            try:
                records = run_battles(ref, config, active, bar, engine)
            finally:
                bar.close()
            summary = summarize(ref.load(), records)
            # Which engine played (docs/fast-path.md): the only keys that differ between
            # --engine fast and --engine reference, since the battles are the same.
            summary["engine"] = engine
            summary["engine_refusal"] = why
            result.summaries.append(summary)
            if keep_records:
                result.records[ref.name] = records
    finally:
        if own:
            active.close()
    result.seconds = time.perf_counter() - began
    return result


# -- text output ------------------------------------------------------------------


def _pct(p: dict[str, Any]) -> str:
    lo, hi = p["ci95"]
    return f"{100 * p['rate']:5.1f}% [{100 * lo:.1f}–{100 * hi:.1f}]"


def _table(rows: Sequence[Sequence[str]], right: Sequence[bool] | None = None) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            align_right = right is not None and right[i]
            cells.append(cell.rjust(widths[i]) if align_right else cell.ljust(widths[i]))
        lines.append("  ".join(cells).rstrip())
    return lines


#: Rows of the comparison table: (label, how to print it from a scenario summary). The
#: labels are marked for the catalog and translated where shown (``_(label)``); the
#: difficulty is a value of the JSON document, shown in words.
_METRICS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    (N_("ruleset"), lambda s: s["ruleset"]),
    (N_("difficulty"), lambda s: _(s["difficulty"])),
    (N_("heroes win"), lambda s: _pct(s["outcomes"]["heroes"])),
    (N_("enemies win"), lambda s: _pct(s["outcomes"]["enemies"])),
    (N_("draw"), lambda s: _pct(s["outcomes"]["draw"])),
    (N_("  timeout"), lambda s: _pct(s["outcomes"]["draw_timeout"])),
    (N_("  withdrawal"), lambda s: _pct(s["outcomes"]["draw_withdrawal"])),
    (N_("  mutual"), lambda s: _pct(s["outcomes"]["draw_mutual"])),
    (N_("party wipe"), lambda s: _pct(s["party_wipe"])),
    (
        N_("heroes knocked out"),
        lambda s: _f("{pct} on average", format(100 * s["hero_knockout_share"], ".1f") + "%"),
    ),
    (
        N_("rounds mean/median/p90"),
        lambda s: f"{s['rounds']['mean']:.2f} / {s['rounds']['median']:g} / {s['rounds']['p90']}",
    ),
    (
        N_("top damager"),
        lambda s: (
            f"{s['top_damager']['name']} ({100 * s['top_damager']['share']:.0f}%)"
            if s["top_damager"]
            else "—"
        ),
    ),
)


def combatant_table(summary: dict[str, Any]) -> list[str]:
    rows: list[list[str]] = [
        [_("combatant"), _("side"), _("P(knocked out)"), _("P(dies)"), _("dealt"), _("taken"),
         _("rounds up"), _("share")]
    ]
    for c in summary["combatants"]:
        rows.append(
            [
                c["name"],
                word(c["side"]),
                _pct(c["p_knocked_out"]),
                _pct(c["p_dies"]),
                f"{c['mean_damage_dealt']:.2f}",
                f"{c['mean_damage_taken']:.2f}",
                f"{c['mean_rounds_survived']:.2f}",
                f"{100 * c['damage_share']:.0f}%",
            ]
        )
    return _table(rows, [False, False, True, True, True, True, True, True])


def render_text(result: PlaytestResult) -> str:
    """The readable report: a comparison table (one column per scenario) and, for each
    scenario, its per-combatant table."""
    cfg = result.config
    lines = [
        _f("{n} battles per scenario, seed {seed}; heroes: {heroes}, enemies: {enemies}. "
           "Rates with 95% Wilson intervals.", cfg.n, cfg.seed, cfg.heroes, cfg.enemies),
        "",
    ]
    for s in result.summaries:
        # Which engine played each scenario, and why the kernel did not when it did not.
        used = engine_line(s.get("engine", REFERENCE), s.get("engine_refusal"))
        lines.append(f"{s['scenario']}: {used}")
    lines.append("")
    header = ["", *[s["scenario"] for s in result.summaries]]
    rows = [header] + [[_(label), *[fn(s) for s in result.summaries]] for label, fn in _METRICS]
    lines.extend(_table(rows))
    for s in result.summaries:
        lines += ["", f"{s['scenario']} — {s['title']} ({_(s['difficulty'])})"]
        lines.extend(combatant_table(s))
    return "\n".join(lines) + "\n"


# -- command line -----------------------------------------------------------------


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``playtest`` subcommand to the CLI's subparsers."""
    parser = commands.add_parser(
        "playtest",
        help="play a scenario many times and report how deadly it is",
        description=(
            "Play N battles of each SCENARIO and report outcome rates with 95% Wilson "
            "intervals, rounds, per-combatant knock-out, death, damage and survival, the "
            "party-wipe probability and a difficulty rating. Same seed ⇒ same numbers, for "
            "any worker count and either backend. See docs/playtest.md."
        ),
    )
    parser.add_argument("scenarios", metavar="SCENARIO", nargs="+", help="shipped name or path")
    parser.add_argument(
        "-n", type=int, default=DEFAULT_N, help=f"battles per scenario (default {DEFAULT_N})"
    )
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"run seed (default {DEFAULT_SEED})"
    )
    for side in Side:
        parser.add_argument(
            f"--{side.value}",
            metavar="AGENT",
            default=DEFAULT_AGENT,
            help=f"agent playing the {side.value} (default {DEFAULT_AGENT})",
        )
    parser.add_argument(
        "--workers",
        metavar="W",
        type=int,
        default=DEFAULT_WORKERS,
        help=f"processes (default {DEFAULT_WORKERS}; 0 = all cores)",
    )
    parser.add_argument(
        "--backend",
        default="local",
        help="local (this process or a process pool; default) or ray",
    )
    parser.add_argument("--address", metavar="ADDR", help="Ray cluster to join (--backend ray)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (shown on stderr when it is a terminal)")
    parser.add_argument(
        "--report", metavar="DIR", help="write summary.json, report.md and PNG plots to DIR"
    )
    add_engine_option(parser, "the battles")
    add_trust_option(parser)
    return parser


def cmd_playtest(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``escaramuza playtest``; user errors are raised as EscaramuzaError (exit 2)."""
    config = PlaytestConfig(
        n=args.n,
        seed=args.seed,
        heroes=args.heroes,
        enemies=args.enemies,
        workers=args.workers,
        backend=args.backend,
        address=args.address,
        trust_policy=args.trust_policy,
        engine=args.engine,
    )
    config.validate()
    report_dir = None
    if args.report is not None:
        from escaramuza.report import prepare_dir

        report_dir = prepare_dir(args.report)  # fail before the battles, not after
    # On stderr and only on a terminal (escaramuza/progress.py), so never in --json's stdout.
    result = playtest(args.scenarios, config, show_progress=not args.no_progress)
    if report_dir is not None:
        from escaramuza.report import write_report

        write_report(result, report_dir)
    out.write(result.to_json() if args.json else render_text(result))
    return 0
