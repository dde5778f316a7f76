"""The battle runner ``playtest``, ``balance`` and ``campaign`` share: configuration,
scenarios as a worker loads them, chunks, the process pool and Ray, progress.

Battles are cut into chunks (contiguous index ranges); each chunk returns one compact
:class:`~escaramuza.playtest.records.BattleRecord` per battle (not the event log), and
the records are sorted by index before anything is summed — with integer sums only —
so the totals, the JSON and the report are identical for any worker count and for both
backends (architecture.md, "Determinism and seeds").
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from escaramuza.agents import make_agent
from escaramuza.agents.fast import (
    DEFAULT_ENGINE,
    FAST,
    REFERENCE,
    check_engine,
    choose_engine,
    machine_threads,
    play_records,
)
from escaramuza.agents.runner import play_battle
from escaramuza.playtest.records import BattleRecord, battle_seed, record_battle
from escaramuza.progress import progress_bar
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import (
    Scenario,
    load_scenario,
    parse_scenario_text,
    resolve_scenario,
)
from escaramuza.rules.core.seeds import check_seed

DEFAULT_N = 1000
DEFAULT_SEED = 1
DEFAULT_AGENT = "heuristic"
#: One process by default: predictable on a shared machine; ``--workers 0`` takes every core.
DEFAULT_WORKERS = 1
BACKENDS = ("local", "ray")
#: The most worker processes a run asks for. The pool starts a process for each chunk
#: handed out while none is idle (each a Python process with the engine loaded, tens of
#: megabytes): unbounded, ``--workers 100000`` would start one per chunk, thousands, and
#: exhaust the machine's memory; beyond its cores they only take turns.
MAX_WORKERS = 256

#: A chunk should hold at least this much work,
#: so process or cluster overhead stays small next to the battles...
MIN_CHUNK_SECONDS = 0.1
#: ...and at most this much, so the progress bar moves and workers finish together.
MAX_CHUNK_SECONDS = 2.0
#: Chunks per worker aimed at between those bounds, for load balance.
CHUNKS_PER_WORKER = 4
#: Battles are timed in the parent until this long has passed (they count in the results).
CALIBRATION_SECONDS = 0.05
#: The most battles (or days) one run plays: every one's record stays in memory for the
#: report (about half a kilobyte a battle), and a 95 % interval is then ±0.07 points at most.
MAX_RUN = 2_000_000


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
            raise EscaramuzaError(_f("-n must be a positive number of battles, not {n}", self.n))
        if self.n > MAX_RUN:
            raise EscaramuzaError(
                _f(
                    "-n must be at most {most} (every battle's record stays in memory for "
                    "the report; run again with another --seed for more), not {n}",
                    f"{MAX_RUN:,}",
                    self.n,
                )
            )
        if self.workers < 0:
            raise EscaramuzaError(
                _f("--workers must be 0 (all cores) or a positive number, not {n}", self.workers)
            )
        if self.workers > MAX_WORKERS:
            raise EscaramuzaError(
                _f("--workers must be at most {most}, not {n}", MAX_WORKERS, self.workers)
            )
        if self.backend not in BACKENDS:
            raise EscaramuzaError(
                _f(
                    "unknown backend {backend} (known: {known})",
                    repr(self.backend),
                    ", ".join(BACKENDS),
                )
            )
        if self.address is not None and self.backend != "ray":
            raise EscaramuzaError(_("--address joins a Ray cluster; use it with --backend ray"))
        if self.chunk_size is not None and self.chunk_size <= 0:
            raise EscaramuzaError(_f("chunk size must be positive, not {n}", self.chunk_size))
        check_seed(self.seed)
        check_engine(self.engine)
        for spec in (self.heroes, self.enemies):
            # raises UnknownNameError for an unknown agent, UntrustedPolicyError for a
            # policy file that cannot be read without unpickling
            make_agent(spec, trust_policy=self.trust_policy)

    @property
    def processes(self) -> int:
        return self.workers or machine_threads()


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

    @classmethod
    def of(
        cls, ref: ScenarioRef, config: PlaytestConfig, engine: str, start: int, stop: int
    ) -> ChunkJob:
        """Battles ``start``…``stop - 1`` of ``ref`` as ``config`` plays them (its agents,
        seed, trust and planner engine) on ``engine``: every command's chunks."""
        return cls(
            ref,
            config.heroes,
            config.enemies,
            config.seed,
            start,
            stop,
            config.trust_policy,
            engine,
            config.planner_engine,
        )


def play_one(
    scenario: Scenario,
    heroes: str,
    enemies: str,
    seed: int,
    index: int,
    trust_policy: bool = False,
    planner_engine: str = DEFAULT_ENGINE,
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
        play_one(
            scenario, job.heroes, job.enemies, job.seed, i, job.trust_policy, job.planner_engine
        )
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

    def __init__(self, total: int, label: str, enabled: bool, stream: TextIO | None = None) -> None:
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
                _("--backend ray needs Ray: pip install 'escaramuza[cluster]'")
            ) from None
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if self.config.address is not None:
                _check_reachable(self.config.address)
                kwargs["address"] = self.config.address
            elif self.config.workers:
                kwargs["num_cpus"] = self.config.workers
            try:
                ray.init(**kwargs)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = self.config.address or _("a local Ray instance")
                raise EscaramuzaError(
                    _f("cannot start or join {where}: {reason}", where, exc)
                ) from None
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
        return ChunkJob.of(ref, config, engine, a, b)

    if size is None and runner.parallel:
        # Time a few battles here (they count) to size the chunks.
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


#: Seconds to wait for a Ray head to answer before saying it does not.
RAY_CONNECT_S = 5.0


def _check_reachable(address: str) -> None:
    """An EscaramuzaError unless something answers at ``address`` (``HOST:PORT`` or
    ``ray://HOST:PORT``; ``auto`` and other forms are Ray's to resolve): ``ray.init``
    retries an address where nothing listens for minutes, saying nothing of its own."""
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit() or not host:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), RAY_CONNECT_S).close()
    except OSError as exc:
        raise EscaramuzaError(
            _f(
                "cannot start or join {where}: {reason}",
                address,
                _f("nothing answers there ({reason})", exc.strerror or exc),
            )
        ) from None
