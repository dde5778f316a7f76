"""Battles per second of ``escaramuza playtest``, heuristic against heuristic.

For each ruleset, its largest shipped scenario (most combatants, then most zones)
is played in one process and then in two, through the same runner the CLI uses,
and the script prints battles/s and the two-process ratio. Targets: ≥ 1,000
battles/s per process on ``destiny_dice/emboscada`` (the 4v6 ambush) and two
processes ≥ 1.8× one.

    python benchmarks/playtest_throughput.py [--seconds 5] [--ruleset destiny_dice] [--breakdown]

``--breakdown`` also splits one process's time per decision into the rules'
``legal_actions``, the heuristic's choice and the rules' ``apply``, and prints the
ceiling the rules alone put on battles/s (an agent that cost nothing would still
pay for listing and applying every decision).

Timings need an otherwise idle machine with at least two cores; the pool is
started (and warmed) before the two-process run is timed, as a long playtest
amortises that start.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.agents.runner import agent_rng
from escaramuza.playtest.records import battle_seed
from escaramuza.playtest.result import playtest
from escaramuza.playtest.runner import PlaytestConfig, Runner
from escaramuza.rules import RULESETS
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios

TARGET_SCENARIO = "destiny_dice/emboscada"
TARGET_RATE = 1000.0
TARGET_RATIO = 1.8


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def control_ratio(n: int = 3_000_000) -> float:
    """Two-process speed-up of a plain busy loop: what this machine can give right now.
    Near 2 on an idle two-core machine; near 1 when other work already fills the cores,
    and then the playtest ratio below says nothing about the playtest."""
    began = time.perf_counter()
    _spin(n)
    _spin(n)
    one = time.perf_counter() - began
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_spin, [1, 1]))
        began = time.perf_counter()
        list(pool.map(_spin, [n, n]))
        two = time.perf_counter() - began
    return one / two


def largest_scenarios() -> dict[str, str]:
    """Ruleset id → its shipped scenario with the most combatants (then zones)."""
    best: dict[str, tuple[int, int, str]] = {}
    for name in shipped_scenarios():
        scenario = load_scenario(name)
        key = (len(scenario.combatants), len(scenario.battlefield.zones), name)
        rid = scenario.ruleset.id
        if rid not in best or key[:2] > best[rid][:2]:
            best[rid] = key
    return {rid: best[rid][2] for rid in RULESETS if rid in best}


def rate(name: str, n: int, runner: Runner, workers: int, seed: int = 1) -> tuple[float, float]:
    """(battles per wall-clock second, battles per CPU second of this process)."""
    config = PlaytestConfig(n=n, seed=seed, workers=workers)
    began, cpu = time.perf_counter(), time.process_time()
    playtest([name], config, runner=runner)
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    return n / wall, n / max(cpu, 1e-9)


def measure(name: str, seconds: float) -> tuple[float, float, float]:
    """(battles/s in one process, the same per CPU second, battles/s in two)."""
    with Runner(PlaytestConfig(workers=1)) as serial:
        guess, _ = rate(name, 10, serial, 1, seed=99)  # warm-up and size the run
        one, one_cpu = rate(name, max(20, int(guess * seconds)), serial, 1)
    with Runner(PlaytestConfig(workers=2)) as pool:
        # Start and warm the pool (one-battle chunks so both workers load the scenario).
        playtest([name], PlaytestConfig(n=4, seed=98, workers=2, chunk_size=1), runner=pool)
        two, _ = rate(name, max(40, int(2 * one * seconds)), pool, 2)
    return one, one_cpu, two


def breakdown(name: str, seconds: float) -> dict[str, float]:
    """Microseconds per decision of each part of a heuristic-vs-heuristic battle.

    The loop is ``play_battle``'s with ``narrate=False`` (what a playtest runs),
    timed part by part; ``decisions`` is the mean number of decisions a battle.
    """
    scenario = load_scenario(name)
    clock = time.perf_counter
    spent = {"legal_actions": 0.0, "heuristic": 0.0, "apply": 0.0}
    decisions = battles = 0
    began = clock()
    while clock() - began < seconds:
        seed = battle_seed(1, battles)
        roller, rng = RandomRoller(seed), agent_rng(seed)
        state = new_battle(scenario, roller)
        rules = state.ruleset
        while state.outcome is None:
            t0 = clock()
            actions = rules.legal_actions(state)
            t1 = clock()
            action = heuristic_choice(state, actions, rng)
            t2 = clock()
            apply_action(state, action, roller, validate=False)
            t3 = clock()
            spent["legal_actions"] += t1 - t0
            spent["heuristic"] += t2 - t1
            spent["apply"] += t3 - t2
            decisions += 1
        battles += 1
    out = {k: v / decisions * 1e6 for k, v in spent.items()}
    out["decisions"] = decisions / battles
    return out


def print_breakdown(name: str, seconds: float) -> None:
    parts = breakdown(name, seconds)
    per = parts.pop("decisions")
    total = sum(parts.values())
    split = ", ".join(f"{k} {v:.1f}" for k, v in parts.items())
    rules_only = per * (parts["legal_actions"] + parts["apply"]) / 1e6
    print(
        f"    {per:.1f} decisions a battle, {total:.1f} µs each ({split}); "
        f"the rules alone cap one process at {1 / rules_only:.0f} battles/s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    parser.add_argument("--ruleset", action="append", help="only these rulesets")
    parser.add_argument(
        "--breakdown", action="store_true", help="also time legal_actions / heuristic / apply"
    )
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores; Python {sys.version.split()[0]}; ~{args.seconds:g} s each")
    # "per CPU s" divides by this process's CPU time: a figure that a busy machine
    # distorts less than wall-clock time (the ratio needs an idle machine regardless).
    print(f"{os.getloadavg()[0]:.2f} load average (1 min) at the start")
    print(f"control: a busy loop in 2 processes runs {control_ratio():.2f}x as fast as in 1")
    print(
        f"{'scenario':34} {'combatants':>10} {'1 process':>12} {'per CPU s':>12} "
        f"{'2 processes':>12} {'ratio':>6}"
    )
    for rid, name in largest_scenarios().items():
        if args.ruleset and rid not in args.ruleset:
            continue
        one, one_cpu, two = measure(name, args.seconds)
        size = len(load_scenario(name).combatants)
        flags = []
        if name == TARGET_SCENARIO and one < TARGET_RATE:
            flags.append(f"below the {TARGET_RATE:.0f}/s target")
        if two / one < TARGET_RATIO:
            flags.append(f"ratio below {TARGET_RATIO}")
        note = f"  ({'; '.join(flags)})" if flags else ""
        print(
            f"{name:34} {size:>10} {one:>10.1f}/s {one_cpu:>10.1f}/s {two:>10.1f}/s "
            f"{two / one:>5.2f}x{note}",
            flush=True,
        )
        if args.breakdown:
            print_breakdown(name, args.seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
