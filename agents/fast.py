"""The fast-path driver: which engine plays, and battles played on a ruleset's kernel.

architecture.md, "The fast path": the engine is the specification; a ruleset may also
have a **kernel** (its rules and heuristic temperaments compiled with numba) that plays
the same battles, seed for seed, much faster. This module is everything around the
kernels (docs/fast-path.md):

* :func:`find_kernel` — a ruleset's kernel, the module-level ``KERNEL`` of
  ``escaramuza.agents.heuristics.<ruleset>_kernel`` or ``escaramuza.rules.<ruleset>.kernel``;
* :func:`choose_engine` — ``--engine auto|fast|reference`` for a scenario and its agents:
  ``auto`` plays on the kernel where it accepts them and on the engine otherwise, saying
  why; ``fast`` refuses (exit 2) what the kernel cannot play; ``reference`` is the engine;
* :func:`play_records` — a chunk of playtest battles on the kernel, as the same
  :class:`~escaramuza.playtest.records.BattleRecord` the engine's ``record_battle`` gives;
* :func:`engine_battle` / :func:`compare` — the equality check: the engine's battle in
  the kernel's terms, field by field against the kernel's (tests, the benchmark).

Refuse, never diverge: a kernel names what it does not implement and the driver plays
that on the engine (``auto``) or stops with the reason (``fast``).
"""

from __future__ import annotations

import gc
import importlib
import os
import random
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from escaramuza.agents.heuristic import TEMPERAMENTS
from escaramuza.progress import shows
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.kernel import Kernel, KernelBattle, KernelRefusal
from escaramuza.rules.core.model import Side

if TYPE_CHECKING:
    from escaramuza.playtest.records import BattleRecord
    from escaramuza.rules.core.scenario import Scenario
    from escaramuza.rules.core.state import BattleState

#: ``--engine`` values: the kernel where it can (the default), the kernel or an error,
#: the engine.
ENGINES = ("auto", "fast", "reference")
DEFAULT_ENGINE = "auto"
#: What the two engines are called in the JSON (``"engine"``) and the text reports.
FAST = "fast"
REFERENCE = "reference"
#: Where a ruleset's kernel may live (BRIEF: the temperaments' module, or beside the rules).
KERNEL_MODULES = (
    "escaramuza.agents.heuristics.{ruleset}_kernel",
    "escaramuza.rules.{ruleset}.kernel",
)

#: Kernels found so far (None: the ruleset has none), and kernels put in their place by
#: :func:`use_kernel` (tests and benchmarks).
_FOUND: dict[str, Kernel | None] = {}
_OVERRIDES: dict[str, Kernel | None] = {}
#: Rulesets whose kernel has been called in this process (compiled or loaded).
_CALLED: set[str] = set()
#: How long a kernel's first call in a process may take before a terminal user is told
#: it is compiling. Loading a compiled kernel from numba's cache takes under a second;
#: compiling one takes 20–70 s, once per install.
COMPILE_NOTICE_SECONDS = 2.0


class EngineRefusal(EscaramuzaError):
    """``--engine fast`` asked for something no kernel plays (exit 2, with the reason)."""


def check_engine(engine: str, option: str = "--engine") -> str:
    """``engine`` if it is one of :data:`ENGINES`, else a user error naming ``option``."""
    if engine not in ENGINES:
        raise EscaramuzaError(f"{option} must be one of {', '.join(ENGINES)}, not {engine!r}")
    return engine


def find_kernel(ruleset_id: str) -> Kernel | None:
    """The ruleset's kernel (its module's ``KERNEL``), or None when it has none yet.

    Only a missing module means "no kernel": a kernel module that fails to import for
    another reason (a numba error, a bug) is raised, not hidden behind the engine."""
    if ruleset_id in _OVERRIDES:
        return _OVERRIDES[ruleset_id]
    if ruleset_id in _FOUND:
        return _FOUND[ruleset_id]
    kernel: Kernel | None = None
    for pattern in KERNEL_MODULES:
        name = pattern.format(ruleset=ruleset_id)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue  # this module (or its package) does not exist: try the next
            raise
        kernel = getattr(module, "KERNEL", None)
        if kernel is not None:
            break
    _FOUND[ruleset_id] = kernel
    return kernel


@contextmanager
def use_kernel(ruleset_id: str, kernel: Kernel | None) -> Iterator[None]:
    """Within the block, ``kernel`` (None: no kernel) is the ruleset's kernel in this
    process — a test double, or the engine forced for a benchmark's reference arm."""
    had = ruleset_id in _OVERRIDES
    old = _OVERRIDES.get(ruleset_id)
    _OVERRIDES[ruleset_id] = kernel
    try:
        yield
    finally:
        if had:
            _OVERRIDES[ruleset_id] = old
        else:
            del _OVERRIDES[ruleset_id]


def kernel_spec(spec: str) -> str | None:
    """The agent spec as a kernel knows it (``random``, ``first-legal``, ``heuristic``,
    ``heuristic:T``), or None for an agent only the engine plays (mcts, policy:…, an
    object)."""
    if spec in ("random", "first-legal", "heuristic"):
        return spec
    temperament = spec.split(":", 1)[1] if spec.startswith("heuristic:") else spec
    return f"heuristic:{temperament}" if temperament in TEMPERAMENTS else None


def refusal(scenario: Scenario, agents: Sequence[str]) -> str | None:
    """Why ``scenario`` with ``agents`` (heroes', enemies' specs) cannot run on a kernel,
    or None when it can."""
    ruleset = scenario.ruleset.id
    kernel = find_kernel(ruleset)
    if kernel is None:
        return f"no kernel for {ruleset} yet"
    specs: list[str] = []
    for spec in agents:
        known = kernel_spec(spec)
        if known is None:
            return (
                f"agent {spec!r} plays only on the engine "
                "(kernels play random, first-legal and heuristic)"
            )
        specs.append(known)
    return kernel.refusal(scenario, specs)


# -- warming up ------------------------------------------------------------------------
#: Background warm-ups (:func:`warm_in_background`) by ruleset, while they run.
_WARMING: dict[str, threading.Thread] = {}
#: What ``auto`` says while a ruleset's kernel is compiling in the background.
STILL_COMPILING = "the compiled kernel is still compiling in the background"


def warm_up(ruleset_id: str) -> float:
    """Compile (or load from numba's cache) the ruleset's kernel — its battle loop and
    its rollouts, on the ruleset's default scenario — and return the seconds it took."""
    import time

    from escaramuza.rules import get_ruleset
    from escaramuza.rules.core.dice import RandomRoller
    from escaramuza.rules.core.ruleset import new_battle
    from escaramuza.rules.core.scenario import load_scenario

    scenario = load_scenario(get_ruleset(ruleset_id).default_scenario)
    kernel = _kernel(scenario)
    start = time.perf_counter()
    with first_call(ruleset_id):
        kernel.play_columns(scenario, ["heuristic", "heuristic"], [0, 1])
        state = new_battle(scenario, RandomRoller(0))
        actions = state.ruleset.legal_actions(state)
        try:
            kernel.rollouts(state, actions[:1], [0], 1, None, 100)
        except KernelRefusal:
            pass  # a first decision the kernel does not resume: its battles still compiled
    return time.perf_counter() - start


def warm_in_background(ruleset_ids: Sequence[str]) -> None:
    """Warm the kernels of ``ruleset_ids`` up in a background thread, one after the
    other (``gm`` and ``serve`` at start). Until a ruleset's is ready, ``auto`` plays
    that ruleset on the engine (:func:`warming`) instead of waiting for the compile."""
    todo = [r for r in ruleset_ids if r not in _CALLED and r not in _WARMING]
    if not todo:
        return

    def run() -> None:
        for ruleset_id in todo:
            try:
                warm_up(ruleset_id)
            except Exception:  # a bug: the first real call raises it in the open
                pass
            finally:
                _WARMING.pop(ruleset_id, None)

    thread = threading.Thread(target=run, name="escaramuza-warmup", daemon=True)
    for ruleset_id in todo:
        _WARMING[ruleset_id] = thread
    thread.start()


def warming(ruleset_id: str) -> bool:
    """Whether the ruleset's kernel is compiling in the background right now."""
    return ruleset_id in _WARMING and ruleset_id not in _CALLED


def choose_engine(engine: str, scenario: Scenario, agents: Sequence[str]) -> tuple[str, str | None]:
    """``(engine used, reason)`` for ``--engine engine``: ``"fast"`` or ``"reference"``,
    and the kernel's refusal when ``auto`` fell back to the engine (else None).

    ``fast`` with a refusal raises :class:`EngineRefusal` naming the scenario and what
    the kernel refuses."""
    check_engine(engine)
    if engine == REFERENCE:
        return REFERENCE, None
    why = refusal(scenario, agents)
    if why is None and engine != FAST and warming(scenario.ruleset.id):
        why = STILL_COMPILING
    if why is None:
        return FAST, None
    if engine == FAST:
        raise EngineRefusal(
            f"--engine fast: {scenario.name} with {agents[0]} against {agents[1]} cannot "
            f"run on the fast path: {why} (use --engine auto or reference)"
        )
    return REFERENCE, why


def add_engine_option(parser: Any, what: str) -> None:
    """``--engine auto|fast|reference`` on a command (playtest, evaluate, suggest, gm), its
    help in the current language; ``what`` names what it decides (``N_("the battles")``): a
    marked English msgid, translated here (a text the caller already translated is no msgid,
    so it passes through as it is)."""
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default=DEFAULT_ENGINE,
        # TRANSLATORS: {what} is what the engine plays: "the battles", "the search's rollouts"…
        help=_f(
            "who plays {what}: auto (default: the ruleset's compiled kernel where it "
            "plays them, else the reference engine), fast (the kernel, or exit 2 naming what "
            "it refuses) or reference (the engine). Same seed, same result on both; see "
            "docs/fast-path.md",
            _(what),
        ),
    )


def engine_line(used: str, reason: str | None) -> str:
    """The text reports' line saying which engine played. The refusal's reason is an
    error message's text, English in this round (docs/translating.md)."""
    if used == FAST:
        return _("engine: fast (compiled kernel; same battles as the reference engine)")
    if reason is None:
        return _("engine: reference")
    return _f("engine: reference ({reason})", reason)


# -- battles on the kernel ------------------------------------------------------------


def _compile_notice(ruleset_id: str) -> None:
    print(
        _f(
            "escaramuza: compiling the fast path for {ruleset} (once per install: up to "
            "a minute; later runs load it from numba's cache)…",
            ruleset_id,
        ),
        file=sys.stderr,
        flush=True,
    )


@contextmanager
def first_call(ruleset_id: str) -> Iterator[None]:
    """Around a call of the ruleset's kernel. The first one in a process compiles the
    kernel (numba, ``cache=True``) or loads it from the cache: if it takes more than
    :data:`COMPILE_NOTICE_SECONDS` and stderr is a terminal (as for the progress bars),
    a line says why the command is waiting. The timer thread gets its turn: numba's
    compiler is mostly Python code, between whose bytecodes the interpreter switches
    threads, and llvmlite's calls release the GIL."""
    if ruleset_id in _CALLED:
        yield
        return
    timer = None
    if shows(True, sys.stderr):
        timer = threading.Timer(COMPILE_NOTICE_SECONDS, _compile_notice, (ruleset_id,))
        timer.daemon = True
        timer.start()
    try:
        yield
        _CALLED.add(ruleset_id)
    finally:
        if timer is not None:
            timer.cancel()


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a chunk's results are built: they
    are tens of thousands of small tuples and records with no reference cycles, and the
    collections their allocations triggered took a third of a small battle's time on the
    kernel (measured: the Destiny Dice duel 33 → 19 µs a battle, the ambush 100 → 68)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def machine_threads() -> int:
    """The cores this process may run on (its CPU affinity where the OS reports one, so
    a container or ``taskset`` limit is respected): ``suggest``'s threads, ``playtest
    --workers 0``'s processes."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


def _kernel(scenario: Scenario) -> Kernel:
    kernel = find_kernel(scenario.ruleset.id)
    if kernel is None:
        raise EngineRefusal(f"no kernel for {scenario.ruleset.id} yet")
    return kernel


def play_records(
    scenario: Scenario,
    heroes: str,
    enemies: str,
    seed: int,
    start: int,
    stop: int,
) -> list[BattleRecord]:
    """Battles ``start``…``stop - 1`` of a playtest of run seed ``seed``, on the kernel:
    the records ``playtest.play_one`` gives on the engine, equal field for field."""
    from escaramuza.playtest.records import battle_seeds, records_from_columns

    hero_spec, enemy_spec = kernel_spec(heroes), kernel_spec(enemies)
    if hero_spec is None or enemy_spec is None:
        raise EngineRefusal(f"agents {heroes!r}, {enemies!r}: not played by kernels")
    specs = [hero_spec, enemy_spec]
    seeds = battle_seeds(seed, start, stop)
    with _gc_paused():
        with first_call(scenario.ruleset.id):
            columns = _kernel(scenario).play_columns(scenario, specs, seeds)
        return records_from_columns(start, seeds, columns)


# -- the equality check ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One field of one battle on which the kernel and the engine differ."""

    seed: int
    field: str
    engine: object
    kernel: object

    def __str__(self) -> str:
        return f"seed {self.seed}: {self.field}: engine {self.engine!r}, kernel {self.kernel!r}"


class _Counting:
    """An agent wrapper counting decisions, as ``play_battle`` does."""

    def __init__(self, agent: object) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", "agent")
        self.decisions = 0

    def act(self, state: BattleState, rng: random.Random) -> object:
        self.decisions += 1
        return self.agent.act(state, rng)  # type: ignore[attr-defined]


def final_battle(state: BattleState, seed: int, decisions: int) -> KernelBattle:
    """A finished engine battle in the kernel's terms (:class:`KernelBattle`)."""
    from escaramuza.playtest.records import record_battle

    record = record_battle(0, seed, state)
    cs = state.combatants
    rows = record.combatants
    return KernelBattle(
        seed=seed,
        winner=record.winner,
        reason=record.reason,
        rounds=record.rounds,
        wipe=record.wipe,
        decisions=decisions,
        statuses=tuple(c.status.value for c in cs),
        zones=tuple(c.zone for c in cs),
        resources=tuple(tuple(sorted(c.resources.items())) for c in cs),
        conditions=tuple(
            tuple(sorted((name, cond.value) for name, cond in c.conditions.items())) for c in cs
        ),
        ko_round=tuple(r.ko_round for r in rows),
        died=tuple(r.died for r in rows),
        dealt=tuple(r.dealt for r in rows),
        dealt_to_foes=tuple(r.dealt_to_foes for r in rows),
        taken=tuple(r.taken for r in rows),
    )


def engine_battle(scenario: Scenario, agents: Sequence[str], seed: int) -> KernelBattle:
    """Battle ``seed`` played by the engine (the specification), in the kernel's terms."""
    from escaramuza.agents import make_agent
    from escaramuza.agents.runner import play_battle

    counters = [_Counting(make_agent(spec)) for spec in agents]
    state = play_battle(
        scenario,
        {Side.HEROES: counters[0], Side.ENEMIES: counters[1]},  # type: ignore[dict-item]
        seed=seed,
        narrate=False,
    )
    return final_battle(state, seed, counters[0].decisions + counters[1].decisions)


def diff(engine: KernelBattle, kernel: KernelBattle) -> list[Mismatch]:
    """Every field on which two battles differ."""
    return [
        Mismatch(engine.seed, f.name, getattr(engine, f.name), getattr(kernel, f.name))
        for f in fields(KernelBattle)
        if getattr(engine, f.name) != getattr(kernel, f.name)
    ]


def compare(
    scenario: Scenario,
    agents: Sequence[str],
    seeds: Sequence[int],
    kernel: Kernel | None = None,
) -> list[Mismatch]:
    """Play ``seeds`` on the engine and on the kernel (``kernel``, default the
    ruleset's) and list every difference; empty when the kernel is exact on them.

    A kernel that refuses the scenario or the agents raises :class:`KernelRefusal`."""
    kernel = kernel if kernel is not None else _kernel(scenario)
    specs = [kernel_spec(a) or a for a in agents]
    why = kernel.refusal(scenario, specs)
    if why is not None:
        raise KernelRefusal(why)
    with first_call(scenario.ruleset.id):
        fast = kernel.play_battles(scenario, specs, list(seeds))
    out: list[Mismatch] = []
    for seed, battle in zip(seeds, fast, strict=True):
        out.extend(diff(engine_battle(scenario, agents, seed), battle))
    return out
