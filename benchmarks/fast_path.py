"""The fast path: each ruleset's compiled kernel against the reference engine.

See docs/fast-path.md. For every shipped scenario whose ruleset has
a kernel, in one run:

* **battles per second**, heuristic against heuristic, of both engines, interleaved
  (slices of each in turn, so a busy machine slows both alike) and their ratio;
* **planner rollouts per second**: ``suggest`` at the default budget from the
  scenario's first decision on each engine, the rollouts it ran and the width of the
  top action's 95 % interval;
* **first-call compile time** (a fresh process, an empty numba cache) and **cached
  start-up** (a fresh process, the cache filled): import of the kernel plus its first
  call, measured inside the process.

    python benchmarks/fast_path.py [--seconds 4] [--scenario NAME …] [--no-startup]
    python benchmarks/fast_path.py --equality [--seeds 1000] [--scenario NAME …]

``--equality`` is the equality sweep: every shipped scenario with a kernel × every
pairing (both sides) of random, heuristic and heuristic:<each temperament>, ``--seeds``
battles each (the playtest's battle seeds of run seed 1), compared field by field
(``escaramuza.agents.fast.compare``: outcome, rounds, decisions, every combatant's
status, zone, resources, conditions, knock-out round, deaths and damage). It prints one
row per scenario and pairing and exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

from escaramuza.agents import make_agent
from escaramuza.agents.fast import compare, find_kernel, machine_threads, play_records, refusal
from escaramuza.agents.heuristic import TEMPERAMENTS
from escaramuza.agents.runner import play_battle
from escaramuza.agents.suggest import DEFAULT_BUDGET_MS, suggest
from escaramuza.playtest.records import battle_seed
from escaramuza.playtest.runner import play_one
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import Scenario, load_scenario, shipped_scenarios

#: The agent specs of the equality sweep (every pairing, both sides).
AGENTS = ("random", "heuristic", *(f"heuristic:{t}" for t in TEMPERAMENTS))
HEURISTIC = ("heuristic", "heuristic")
RUN_SEED = 1

#: Measured in a fresh interpreter: the kernel's import and first call — of a playtest
#: battle (``battles``), or of a suggestion's rollouts (``rollouts``), which compiles the
#: rollout entry point and, with an empty cache, every rule and temperament under it.
STARTUP = """
import json, sys, time
t0 = time.perf_counter()
from escaramuza.agents.fast import find_kernel, play_records
from escaramuza.rules.core.scenario import load_scenario
scenario = load_scenario(sys.argv[1])
find_kernel(scenario.ruleset.id)
if sys.argv[2] == "rollouts":
    from escaramuza.agents import make_agent
    from escaramuza.agents.runner import play_battle
    from escaramuza.agents.suggest import suggest
    from escaramuza.rules.core.model import Side
    state = play_battle(scenario, {Side.HEROES: make_agent("heuristic"),
                                   Side.ENEMIES: make_agent("heuristic")},
                        seed=1, stop_after=0, narrate=False)
t1 = time.perf_counter()
if sys.argv[2] == "rollouts":
    suggest(state, iterations=64, engine="fast")
else:
    play_records(scenario, "heuristic", "heuristic", 1, 0, 1)
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first_call": t2 - t1}))
"""


def kernel_scenarios(names: Sequence[str] | None) -> list[Scenario]:
    """The shipped (or named) scenarios a kernel plays, heuristic against heuristic."""
    out = []
    for name in names or sorted(shipped_scenarios()):
        scenario = load_scenario(name)
        why = refusal(scenario, HEURISTIC)
        if why is None:
            out.append(scenario)
        else:
            print(f"# {name}: skipped ({why})")
    return out


# -- battles per second ------------------------------------------------------------------


def _slice(play: Callable[[int, int], None], start: int, seconds: float) -> tuple[int, float]:
    """Play from battle ``start`` in doubling batches for about ``seconds`` of this
    process's CPU time (battles per CPU second: what other jobs on a shared machine
    take is not counted against either engine)."""
    began = time.process_time()
    n, batch = 0, 1
    while time.process_time() - began < seconds:
        play(start + n, start + n + batch)
        n += batch
        batch *= 2
    return n, time.process_time() - began


def battles_per_second(scenario: Scenario, seconds: float, slices: int = 4) -> tuple[float, float]:
    """(engine, kernel) battles/s, heuristic against heuristic, interleaved slices."""

    def engine(a: int, b: int) -> None:
        for i in range(a, b):
            play_one(scenario, "heuristic", "heuristic", RUN_SEED, i)

    def kernel(a: int, b: int) -> None:
        play_records(scenario, "heuristic", "heuristic", RUN_SEED, a, b)

    kernel(0, 1)  # compiled or loaded from the cache before any timing
    totals = {"engine": [0, 0.0], "kernel": [0, 0.0]}
    start = 0
    for _ in range(slices):
        for name, play in (("engine", engine), ("kernel", kernel)):
            n, t = _slice(play, start, seconds / (2 * slices))
            totals[name][0] += n
            totals[name][1] += t
            start += n
    return (totals["engine"][0] / totals["engine"][1], totals["kernel"][0] / totals["kernel"][1])


def planner_rates(
    scenario: Scenario, budget_ms: float, position: int = 0
) -> dict[str, tuple[int, float, float]] | None:
    """Per engine: rollouts of ``suggest`` at ``budget_ms`` from decision ``position`` of
    a heuristic battle (0: the first), rollouts/s, and the width in points of the top
    row's 95 % interval. ``fast`` splits the kernel's batches over every core (suggest's
    default), ``fast1`` keeps one thread. None when the battle ends before ``position``."""
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    state = play_battle(scenario, agents, seed=RUN_SEED, stop_after=position, narrate=False)
    if state.outcome is not None:
        return None
    out: dict[str, tuple[int, float, float]] = {}
    runs = (("reference", None), ("fast", None), ("fast1", 1))
    for engine, threads in runs * 2:  # interleaved, 2 each
        result = suggest(
            state,
            budget_ms=budget_ms,
            max_ms=budget_ms,
            engine=engine.removesuffix("1"),
            threads=threads,
        )
        top = result.items[0]
        rollouts, seconds, width = out.get(engine, (0, 0.0, 0.0))
        out[engine] = (
            rollouts + result.iterations,
            seconds + result.elapsed_ms / 1000.0,
            max(width, 100 * (top.win_high - top.win_low)),
        )
    return {e: (n // 2, n / s, w) for e, (n, s, w) in out.items()}


def startup(scenario: str, entry: str = "battles") -> tuple[float, float]:
    """(first call with an empty cache, first call with the cache filled), in seconds, of
    ``entry`` (``battles`` or ``rollouts``, :data:`STARTUP`): numba's cache goes to a
    fresh NUMBA_CACHE_DIR so the first run really compiles."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        runs = []
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-c", STARTUP, scenario, entry],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            t = json.loads(done.stdout.splitlines()[-1])
            runs.append(t["import"] + t["first_call"])
    return runs[0], runs[1]


def speed(
    names: Sequence[str] | None,
    seconds: float,
    budget_ms: float,
    with_startup: bool,
    position: int = 0,
) -> None:
    scenarios = kernel_scenarios(names)
    where = "the first decision" if position == 0 else f"decision {position}"
    print(
        f"battles/s heuristic vs heuristic ({seconds:g} s a scenario, interleaved); "
        f"suggest at {budget_ms:g} ms from {where}: rollouts on the engine, on the kernel "
        f"over {machine_threads()} threads and over 1"
    )
    print(
        f"{'scenario':34} {'engine/s':>9} {'kernel/s':>10} {'ratio':>7}   "
        f"{'rollouts ref':>12} {'rollouts fast':>13} {'1 thread':>9} {'ratio':>6} "
        f"{'±pts fast':>9}"
    )
    for scenario in scenarios:
        slow, fast = battles_per_second(scenario, seconds)
        plan = planner_rates(scenario, budget_ms, position)
        if plan is None:
            print(
                f"{scenario.name:34} {slow:9.0f} {fast:10.0f} {fast / slow:6.1f}×   "
                f"(the seed-{RUN_SEED} battle ends before {where}: no suggest)",
                flush=True,
            )
            continue
        ref_n, fast_n, one_n = plan["reference"][0], plan["fast"][0], plan["fast1"][0]
        # One decimal: a ratio near a 30x target must not round across it.
        print(
            f"{scenario.name:34} {slow:9.0f} {fast:10.0f} {fast / slow:6.1f}×   "
            f"{ref_n:12d} {fast_n:13d} {one_n:9d} {fast_n / max(ref_n, 1):5.0f}× "
            f"{plan['fast'][2] / 2:9.1f}",
            flush=True,
        )
    if with_startup:
        startups(scenarios)


def startups(scenarios: Sequence[Scenario]) -> None:
    """Per ruleset: import + first call in a fresh process, with an empty numba cache
    (the one-time compile) and with it filled, of a playtest battle and of suggest."""
    print(
        "\nkernel import + first call in a fresh process (s): a playtest battle, empty numba"
        " cache / cached; suggest's rollouts, empty / cached"
    )
    seen = set()
    for scenario in scenarios:
        if scenario.ruleset.id in seen:
            continue
        seen.add(scenario.ruleset.id)
        cold, warm = startup(scenario.name, "battles")
        cold_r, warm_r = startup(scenario.name, "rollouts")
        print(
            f"{scenario.ruleset.id:34} {cold:8.2f} {warm:8.2f}   {cold_r:8.2f} {warm_r:8.2f}",
            flush=True,
        )


# -- the equality sweep --------------------------------------------------------------------


def equality(names: Sequence[str] | None, seeds: int) -> int:
    scenarios = kernel_scenarios(names)
    battle_seeds = [battle_seed(RUN_SEED, i) for i in range(seeds)]
    total = bad = 0
    print(f"{'scenario':34} {'heroes':22} {'enemies':22} {'seeds':>6} {'mismatches':>10}")
    for scenario in scenarios:
        kernel = find_kernel(scenario.ruleset.id)
        assert kernel is not None
        for heroes in AGENTS:
            for enemies in AGENTS:
                found = compare(scenario, [heroes, enemies], battle_seeds)
                worse = len({m.seed for m in found})
                total += 1
                bad += worse > 0
                print(
                    f"{scenario.name:34} {heroes:22} {enemies:22} {seeds:6d} {worse:10d}",
                    flush=True,
                )
                for m in found[:3]:
                    print(f"    {m}")
    print(
        f"\n{total} scenario × pairing rows of {seeds} seeds: "
        f"{'all equal' if not bad else f'{bad} with mismatches'}"
    )
    return 1 if bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", action="append", help="only these (repeat)")
    parser.add_argument(
        "--seconds",
        type=float,
        default=4.0,
        help="timed seconds of battles per scenario, both engines (default 4)",
    )
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=DEFAULT_BUDGET_MS,
        help=f"suggest's budget (default {DEFAULT_BUDGET_MS:g})",
    )
    parser.add_argument(
        "--position",
        type=int,
        default=0,
        help="suggest from this decision of a heuristic battle (default 0)",
    )
    parser.add_argument(
        "--no-startup", action="store_true", help="skip the compile and start-up measurements"
    )
    parser.add_argument(
        "--startup-only", action="store_true", help="only the compile and start-up measurements"
    )
    parser.add_argument("--equality", action="store_true", help="run the equality sweep")
    parser.add_argument(
        "--seeds",
        type=int,
        default=1000,
        help="seeds per scenario and pairing of --equality (default 1000)",
    )
    args = parser.parse_args(argv)
    if args.equality:
        return equality(args.scenario, args.seeds)
    if args.startup_only:
        startups(kernel_scenarios(args.scenario))
        return 0
    speed(args.scenario, args.seconds, args.budget_ms, not args.no_startup, args.position)
    return 0


if __name__ == "__main__":
    sys.exit(main())
