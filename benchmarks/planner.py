"""Strength and latency of the MCTS planner.

Strength: on each shipped scenario, the enemies' win rate when the enemies are
played by ``mcts`` against heuristic heroes, next to the same with heuristic
enemies, over the same battle seeds (common random numbers), with 95 % Wilson
intervals and the difference's normal interval.

Latency: ``suggest`` at the default budget on enemy decisions of
``destiny_dice/emboscada`` sampled from heuristic battles: median and p95
wall-clock time and rollouts per second.

The mcts arm is the ``mcts`` agent with its defaults unless flags change them
(``--iterations``, ``--root``, ``--horizon``, ``--candidates``, ``--z``, ``--draw``…);
the header prints the configuration, and the last column counts the decisions per
battle where the agent left the heuristic's pick.

Run: ``python benchmarks/planner.py --battles 500 --workers 2``. The issue asks for
≥ 500 battles per arm; the default is smaller so that the script ends in minutes —
the printed header says what was run. ``--first-seed`` extends an earlier run with
new seeds (both arms keep sharing them). Every finished chunk of battles prints a line
with its seeds and wins, so a run cut short still counts; ``--combine LOG…`` adds up the
chunk lines of several logs, each scenario over the seeds both arms played (a log without
the chunk line of a finished run's last chunk counts that chunk from its table row's
totals).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from escaramuza.agents import HeuristicAgent
from escaramuza.agents.fast import machine_threads
from escaramuza.agents.runner import play_battle
from escaramuza.agents.search import (
    AGENT_HORIZON,
    AGENT_ITERATIONS,
    AGENT_ROOT,
    DEFAULT_BIAS,
    DEFAULT_EXPAND_AFTER,
    DEFAULT_Z,
    DRAW,
    ROOT_POLICIES,
    MCTSAgent,
)
from escaramuza.agents.suggest import DEFAULT_BUDGET_MS, suggest
from escaramuza.progress import progress_bar, quiet
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from escaramuza.rules.core.stats import wilson_interval

LATENCY_SCENARIO = "destiny_dice/emboscada"


def _arm(job: tuple[str, str, int, int, dict[str, Any]]) -> tuple[str, str, int, int, float, int]:
    """Play battles ``first .. first+count-1`` of one scenario and arm; count enemy wins
    (and, for the mcts arm, the decisions where it left the heuristic's pick)."""
    name, arm, first, count, config = job
    scenario = load_scenario(name)
    wins = deviated = 0
    start = time.perf_counter()
    for seed in range(first, first + count):
        enemies = MCTSAgent(**config) if arm == "mcts" else HeuristicAgent()
        state = play_battle(scenario, {Side.HEROES: HeuristicAgent(), Side.ENEMIES: enemies}, seed)
        assert state.outcome is not None
        wins += state.outcome.winner is Side.ENEMIES
        deviated += getattr(enemies, "deviated", 0)
    return name, arm, first, wins, count, time.perf_counter() - start, deviated


def strength(
    names: list[str],
    battles: int,
    workers: int,
    chunk: int,
    config: dict[str, Any],
    first_seed: int = 0,
    progress: bool = False,
) -> list[str]:
    end = first_seed + battles
    jobs = [
        (name, arm, first, min(chunk, end - first), config)
        for name in names
        for arm in ("heuristic", "mcts")
        for first in range(first_seed, end, chunk)
    ]
    totals: dict[tuple[str, str], list[float]] = {}
    header = (
        f"{'scenario':34s} {'heuristic enemies':>22s} {'mcts enemies':>22s} "
        f"{'difference (95% CI)':>24s} {'s/battle mcts':>13s} {'changed/battle':>14s}"
    )
    print(header, flush=True)
    lines = [header]
    diffs = []
    # Rows are printed as soon as both arms of a scenario are done, so a long run that
    # is stopped early still reports the scenarios it finished.
    # The bar is on stderr (a terminal only); the rows and chunk lines stay on stdout.
    bar = progress_bar(sum(job[3] for job in jobs), "strength", progress)
    with bar, ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_arm, job) for job in jobs]
        for future in as_completed(futures):
            name, arm, first, wins, count, secs, deviated = future.result()
            bar.update(count)
            row = totals.setdefault((name, arm), [0, 0, 0.0, 0])
            row[0] += wins
            row[1] += count
            row[2] += secs
            row[3] += deviated
            # Progress, so that a long run cut short still shows what it had played; each
            # chunk's seeds and wins too, so that the chunks of runs cut short or split over
            # sessions can be paired seed for seed and combined (``--combine``).
            print(
                f"# {name} {arm}: {int(row[1])}/{battles} battles, {int(row[0])} enemy "
                f"wins, {row[2] / row[1]:.2f} s/battle (chunk seeds {first}–"
                f"{first + count - 1}: {wins}/{count})",
                flush=True,
            )
            done = [totals.get((name, a), [0, 0, 0.0, 0])[1] for a in ("heuristic", "mcts")]
            if done != [battles, battles]:
                continue
            line, diff = _row(name, totals)
            diffs.append(diff)
            lines.append(line)
            print(line, flush=True)
    lines.append(
        f"mean difference over {len(names)} scenarios: {statistics.mean(diffs) * 100:+.1f} points"
    )
    return lines


def _compare(
    hw: int, hn: int, mw: int, mn: int
) -> tuple[tuple[float, float, float], tuple[float, float, float], float]:
    """Each arm's enemy win rate with its Wilson interval, and the half-width of the
    normal 95 % interval of their difference (the arms are independent samples)."""
    ph, pm = hw / hn, mw / mn
    half = 1.96 * math.sqrt(ph * (1 - ph) / hn + pm * (1 - pm) / mn)
    return (ph, *wilson_interval(hw, hn)), (pm, *wilson_interval(mw, mn)), half


def _row(name: str, totals: dict[tuple[str, str], list[float]]) -> tuple[str, float]:
    hw, hn, _, _ = totals[(name, "heuristic")]
    mw, mn, msecs, deviated = totals[(name, "mcts")]
    (ph, hl, hh), (pm, ml, mh), half = _compare(int(hw), int(hn), int(mw), int(mn))
    return (
        f"{name:34s} {ph:6.1%} ({hl:5.1%}–{hh:5.1%})  {pm:6.1%} ({ml:5.1%}–{mh:5.1%})  "
        f"{(pm - ph) * 100:+6.1f} pts (±{half * 100:4.1f})   {msecs / mn:10.2f} "
        f"{deviated / mn:14.1f}"
    ), pm - ph


_CHUNK = re.compile(
    r"^# (?P<name>\S+) (?P<arm>heuristic|mcts): .*\(chunk seeds (?P<first>\d+)–(?P<last>\d+): "
    r"(?P<wins>\d+)/(?P<count>\d+)\)$"
)


class LogError(ValueError):
    """Chunk lines of strength logs that cannot be combined."""


def read_chunks(paths: list[str]) -> dict[tuple[str, str], dict[tuple[int, int], int]]:
    """(scenario, arm) → (first seed, last seed) → enemy wins, from the progress lines of
    strength logs. A chunk met in two logs (an arm replayed by a later run) must agree:
    the same seeds give the same battles; chunks that overlap otherwise are an error."""
    chunks: dict[tuple[str, str], dict[tuple[int, int], int]] = {}
    for path in paths:
        with open(path, encoding="utf-8") as log:
            for number, line in enumerate(log, 1):
                m = _CHUNK.match(line.strip())
                if m is None:
                    continue
                seeds = (int(m["first"]), int(m["last"]))
                wins, count = int(m["wins"]), int(m["count"])
                if count != seeds[1] - seeds[0] + 1 or wins > count:
                    raise LogError(f"{path}:{number}: chunk {seeds} says {wins}/{count}")
                arm = chunks.setdefault((m["name"], m["arm"]), {})
                if seeds in arm:
                    if arm[seeds] != wins:
                        raise LogError(
                            f"{path}:{number}: {m['name']} {m['arm']} seeds {seeds[0]}–"
                            f"{seeds[1]}: {wins} wins here, {arm[seeds]} in an earlier log"
                        )
                    continue
                for first, last in arm:
                    if first <= seeds[1] and seeds[0] <= last:
                        raise LogError(
                            f"{path}:{number}: {m['name']} {m['arm']} seeds {seeds[0]}–"
                            f"{seeds[1]} overlap the chunk {first}–{last} of an earlier log"
                        )
                arm[seeds] = wins
    return chunks


def _ranges(seeds: set[int]) -> str:
    """``{0, 1, 2, 5, 6}`` → ``0–2, 5–6``."""
    spans: list[list[int]] = []
    for s in sorted(seeds):
        if spans and s == spans[-1][1] + 1:
            spans[-1][1] = s
        else:
            spans.append([s, s])
    return ", ".join(f"{a}–{b}" for a, b in spans)


def combine(paths: list[str]) -> list[str]:
    """The strength table of several logs' chunks, each scenario over the seeds both arms
    played (the heuristic arm is usually replayed whole by every run)."""
    chunks = read_chunks(paths)
    lines, diffs = [], []
    for name in sorted({name for name, _ in chunks}):
        arms = {arm: chunks.get((name, arm), {}) for arm in ("heuristic", "mcts")}
        seeds = {arm: {s for a, b in c for s in range(a, b + 1)} for arm, c in arms.items()}
        common = seeds["heuristic"] & seeds["mcts"]
        totals: dict[str, tuple[int, int]] = {}
        for arm, c in arms.items():
            wins = n = 0
            for (a, b), w in c.items():
                inside = sum(a <= s <= b for s in common)
                if inside not in (0, b - a + 1):
                    raise LogError(f"{name} {arm}: chunk {a}–{b} is only partly paired")
                if inside:
                    wins, n = wins + w, n + inside
            totals[arm] = (wins, n)
        (hw, n), (mw, _) = totals["heuristic"], totals["mcts"]
        if n == 0:
            lines.append(f"{name:34s} no seeds played by both arms")
            continue
        (ph, hl, hh), (pm, ml, mh), half = _compare(hw, n, mw, n)
        diffs.append(pm - ph)
        lines.append(
            f"{name:34s} {n} paired battles (seeds {_ranges(common)}): heuristic "
            f"{hw}/{n} = {ph:.1%} ({hl:.1%}–{hh:.1%}), mcts {mw}/{n} = {pm:.1%} "
            f"({ml:.1%}–{mh:.1%}), {(pm - ph) * 100:+.1f} pts (±{half * 100:.1f})"
        )
    if diffs:
        lines.append(
            f"mean difference over {len(diffs)} scenarios: {statistics.mean(diffs) * 100:+.1f} "
            "points"
        )
    return lines


def latency(
    samples: int, budget_ms: float, seed: int, progress: bool = False, name: str = LATENCY_SCENARIO
) -> list[str]:
    bar = progress_bar(samples, "latency", progress, unit="decisions")
    with bar:
        return _latency(samples, budget_ms, seed, bar, name)


def _latency(samples: int, budget_ms: float, seed: int, bar: Any, name: str) -> list[str]:
    scenario = load_scenario(name)
    # The kernel's one-time load (or compile) is a process's start-up, measured by
    # benchmarks/fast_path.py, not a suggestion's latency: paid before the clock.
    suggest(new_battle(scenario, RandomRoller(0)), budget_ms=None, iterations=1)
    rng = random.Random(seed)
    times: list[float] = []
    counts: list[int] = []
    rollouts = 0
    searched = 0.0
    hero = HeuristicAgent()
    while len(times) < samples:
        battle_seed = rng.randrange(1 << 30)
        roller = RandomRoller(battle_seed)
        state = new_battle(scenario, roller)
        steps = rng.randrange(0, 60)
        for _ in range(steps):
            if state.outcome is not None:
                break
            apply_action(state, hero.act(state, rng), roller)
        if state.outcome is not None or state.pending is None:
            continue
        t0 = time.perf_counter()
        result = suggest(state, budget_ms=budget_ms, seed=battle_seed)
        times.append((time.perf_counter() - t0) * 1000.0)
        bar.update(1)
        rollouts += result.iterations
        counts.append(result.iterations)
        searched += result.elapsed_ms
    times.sort()
    p95 = times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)]
    return [
        f"suggest on {name}, budget {budget_ms:g} ms, {samples} decisions sampled "
        f"from heuristic battles ({machine_threads()} threads on the kernel):",
        f"  latency median {statistics.median(times):.0f} ms, p95 {p95:.0f} ms, "
        f"max {times[-1]:.0f} ms",
        f"  rollouts per second: {rollouts / (searched / 1000.0):.0f}; "
        f"rollouts per suggestion: median {statistics.median(counts):.0f}, "
        f"min {min(counts)}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--battles", type=int, default=100, help="battles per arm and scenario")
    parser.add_argument(
        "--iterations",
        type=int,
        default=AGENT_ITERATIONS,
        help="MCTS iterations a decision (the mcts agent's default)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=25, help="battles per worker job")
    parser.add_argument("--scenarios", nargs="*", default=None, help="default: every shipped one")
    parser.add_argument(
        "--latency-scenario",
        default=LATENCY_SCENARIO,
        help=f"scenario of the latency samples (default {LATENCY_SCENARIO})",
    )
    parser.add_argument("--latency-samples", type=int, default=40)
    parser.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS)
    parser.add_argument(
        "--bias",
        type=float,
        default=DEFAULT_BIAS,
        help="progressive bias towards the heuristic's pick (root ucb)",
    )
    parser.add_argument(
        "--root", choices=ROOT_POLICIES, default=AGENT_ROOT, help="root policy of the mcts arm"
    )
    parser.add_argument(
        "--horizon",
        type=int,
        default=AGENT_HORIZON,
        help="rounds a rollout plays before it is cut (0: to the end)",
    )
    parser.add_argument(
        "--candidates",
        type=int,
        default=None,
        help="root restricted to the heuristic's pick and K others",
    )
    parser.add_argument(
        "--no-halving", action="store_true", help="root sweep without sequential halving"
    )
    parser.add_argument(
        "--expand-after",
        type=int,
        default=0,
        help=f"visits before a deeper node grows children (0: never, the "
        f"agent's default; {DEFAULT_EXPAND_AFTER} for a tree)",
    )
    parser.add_argument(
        "--draw", type=float, default=DRAW, help="value of a draw before shaping (win +1, loss -1)"
    )
    parser.add_argument(
        "--z",
        type=float,
        default=DEFAULT_Z,
        help="paired test of the sweep agent (standard errors)",
    )
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="battle seeds first-seed … first-seed+battles-1 (to extend a run)",
    )
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (shown on stderr when it is a terminal)",
    )
    parser.add_argument("--skip-strength", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument(
        "--combine",
        nargs="+",
        metavar="LOG",
        help="instead of playing: the strength table of these logs' chunk "
        "lines, each scenario over the seeds both arms played",
    )
    args = parser.parse_args(argv)
    with quiet(args.no_progress):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    if args.combine:
        try:
            lines = combine(args.combine)
        except (OSError, LogError) as err:
            print(f"planner.py: {err}", file=sys.stderr)
            return 2
        try:
            for line in lines:
                print(line)
            sys.stdout.flush()
        except BrokenPipeError:
            # The reader closed the pipe (``| head -1``): what it read is all it wanted.
            # stdout goes to devnull so the interpreter's own flush at exit stays quiet.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    names = args.scenarios or list(shipped_scenarios())
    if not args.skip_latency:
        for line in latency(
            args.latency_samples,
            args.budget_ms,
            seed=1,
            progress=not args.no_progress,
            name=args.latency_scenario,
        ):
            print(line, flush=True)
    if not args.skip_strength:
        config: dict[str, Any] = {
            "iterations": args.iterations,
            "bias": args.bias,
            "root": args.root,
            "horizon": args.horizon or None,
            "candidates": args.candidates,
            "halving": not args.no_halving,
            "z": args.z,
            "expand_after": args.expand_after or None,
            "draw": args.draw,
        }
        print(
            f"\nstrength: {args.battles} battles per arm, seeds {args.first_seed}–"
            f"{args.first_seed + args.battles - 1} for both "
            f"arms; heroes heuristic; mcts enemies {config}",
            flush=True,
        )
        lines = strength(
            names,
            args.battles,
            args.workers,
            args.chunk,
            config,
            args.first_seed,
            progress=not args.no_progress,
        )
        print(lines[-1], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
