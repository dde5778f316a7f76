"""How good is a suggestion? Regret against an oracle.

Positions: from every shipped scenario, mid-battle decisions of both sides at several
rounds — battle seed ``s`` played by heuristic agents and stopped before its ``d``-th
decision (``play_battle(stop_after=d)``), keeping only turn decisions with at least two
legal actions. A position is named by ``(scenario, seed, decisions)`` and replays
exactly, so the cache holds no state, only those three numbers and the oracle's ranking.

Oracle: ``suggest`` on that position with a budget 100 times the default (80 s against
800 ms — as two 40 s searches on different seeds, their estimates averaged, since one
search is capped at a minute — or ``--oracle-iterations N``), no extension past the
budget, its seeds apart from the evaluation's. It gives each action's win chance (paired over the
oracle's common dice) and its own tie group. The oracle is cached in
``benchmarks/results/suggest-quality-oracle.json`` with the command that made it
(``--make-oracle``; ``--resume`` adds the missing positions to a cache cut short).

Report (default): ``suggest`` at the default budget (``--budget-ms``, ``--max-ms``:
what the CLI does) on every cached position, ``--repeats`` times with different
search seeds, and for each ruleset: the mean and p95 regret in points (the oracle's
win chance of its best action minus that of the suggested one, the first row), the
share where the suggestion is the oracle's best or in its tie group, the share the
suggestion flagged too close to call, and the median rollouts and latency.

Run: ``python benchmarks/suggest_quality.py --make-oracle`` (long: positions × 80 s),
then ``python benchmarks/suggest_quality.py``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from escaramuza.agents import HeuristicAgent
from escaramuza.agents.fast import machine_threads
from escaramuza.agents.runner import agent_rng, play_battle
from escaramuza.agents.search import MAX_BUDGET_MS
from escaramuza.agents.suggest import DEFAULT_BUDGET_MS, suggest
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.files import atomic_write
from escaramuza.rules.core.model import DecisionKind, Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from escaramuza.rules.core.state import BattleState

CACHE = Path(__file__).parent / "results" / "suggest-quality-oracle.json"
#: The oracle's budget relative to the default (the issue's 100×).
ORACLE_FACTOR = 100
#: The oracle's search seed; the evaluation's seeds start elsewhere.
ORACLE_SEED = 1_000_003
#: The CLI's default maximum while too close to call (agents/suggest.py, cli).
CLI_MAX_MS = 3000.0


def position_state(name: str, seed: int, decisions: int) -> BattleState:
    """The position ``(scenario, seed, decisions)``: heuristic play stopped there."""
    agents = {Side.HEROES: HeuristicAgent(), Side.ENEMIES: HeuristicAgent()}
    return play_battle(load_scenario(name), agents, seed, stop_after=decisions, narrate=False)


def _turn_decisions(name: str, seed: int) -> tuple[list[tuple[int, Side]], int]:
    """Every turn decision with ≥ 2 legal actions of battle ``seed`` (heuristic play, as
    :func:`position_state` replays it): ``(decisions taken before it, side)``, and the
    battle's number of decisions."""
    scenario = load_scenario(name)
    roller, rng = RandomRoller(seed), agent_rng(seed)
    agent = HeuristicAgent()
    state = new_battle(scenario, roller)
    found: list[tuple[int, Side]] = []
    d = 0
    while d < 10**6:
        pending = state.pending
        if state.outcome is not None or pending is None:
            break
        if pending.kind is DecisionKind.TURN and len(state.ruleset.legal_actions(state)) >= 2:
            found.append((d, pending.side))
        apply_action(state, agent.act(state, rng), roller, validate=False)
        d += 1
    return found, d


def draw_positions(name: str, per_scenario: int, first_seed: int = 0) -> list[tuple[int, int]]:
    """``per_scenario`` positions of ``name``, one a battle seed: a turn decision with
    ≥ 2 legal actions, the sides alternating and the point in the battle spread (the
    decision nearest ¼, ½, ¾… of the battle's length), so both sides and early and late
    rounds appear."""
    out: list[tuple[int, int]] = []
    fractions = (0.25, 0.5, 0.75, 0.1, 0.4, 0.6)
    sides = (Side.ENEMIES, Side.HEROES)
    seed = first_seed
    while len(out) < per_scenario and seed < first_seed + 50 * per_scenario:
        found, total = _turn_decisions(name, seed)
        side, frac = sides[len(out) % 2], fractions[len(out) % len(fractions)]
        mine = [d for d, s in found if s is side]
        if mine:
            out.append((seed, min(mine, key=lambda d: (abs(d - frac * total), d))))
        seed += 1
    return out


def _threads(workers: int) -> int:
    """Each worker's share of the cores, so that workers × threads never oversubscribe
    the machine (suggest alone uses every core)."""
    return max(1, machine_threads() // max(1, workers))


def _oracle(job: tuple[str, int, int, float | None, int | None, int]) -> dict[str, Any]:
    """The oracle of one position. A time budget above the planner's cap
    (``MAX_BUDGET_MS``: a user's search must end within a minute) is split into equal
    searches on different seeds whose estimates are averaged (each search is paired on
    its own dice; independent searches average without bias); an action is tied with
    the best when no search separated it."""
    name, seed, decisions, budget_ms, iterations, threads = job
    state = position_state(name, seed, decisions)
    if iterations is not None:
        parts = [
            suggest(state, budget_ms=None, iterations=iterations, seed=ORACLE_SEED, threads=threads)
        ]
    else:
        assert budget_ms is not None
        k = math.ceil(budget_ms / MAX_BUDGET_MS)
        parts = [
            # No extension: the oracle's budget is its maximum.
            suggest(
                state,
                budget_ms=budget_ms / k,
                max_ms=budget_ms / k,
                seed=ORACLE_SEED + i,
                threads=threads,
            )
            for i in range(k)
        ]
    wins: dict[str, list[float]] = defaultdict(list)
    separated: dict[str, bool] = defaultdict(bool)
    for result in parts:
        for s in result.items:
            wins[str(s.action)].append(s.estimate if s.estimate is not None else s.win)
            tied = s.rank == 1 or s.tied_with_best
            separated[str(s.action)] |= not tied
    first = parts[0]
    return {
        "scenario": name,
        "seed": seed,
        "decisions": decisions,
        "side": first.side,
        "round": first.round,
        "rollouts": sum(r.iterations for r in parts),
        "searches": len(parts),
        "verdict": "too_close" if sum(not v for v in separated.values()) > 1 else "clear",
        "actions": {
            action: {"win": statistics.mean(w), "tied_with_best": not separated[action]}
            for action, w in wins.items()
        },
    }


def make_oracle(args: argparse.Namespace) -> int:
    names = args.scenarios or sorted(shipped_scenarios())
    done: dict[tuple[str, int, int], dict[str, Any]] = {}
    if args.resume and CACHE.exists():
        for row in json.loads(CACHE.read_text(encoding="utf-8"))["positions"]:
            done[(row["scenario"], row["seed"], row["decisions"])] = row
    budget = None if args.oracle_iterations else DEFAULT_BUDGET_MS * ORACLE_FACTOR
    jobs = []
    for name in names:
        for seed, d in draw_positions(name, args.positions):
            if (name, seed, d) not in done:
                jobs.append((name, seed, d, budget, args.oracle_iterations, _threads(args.workers)))
    command = " ".join([os.path.basename(sys.argv[0]), *sys.argv[1:]])
    print(f"{len(jobs)} oracle positions to search ({len(done)} cached)", flush=True)

    def save() -> None:
        doc = {
            "command": f"python benchmarks/{command}",
            "oracle": {
                "budget_ms": budget,
                "iterations": args.oracle_iterations,
                "seed": ORACLE_SEED,
            },
            "positions": sorted(
                done.values(), key=lambda r: (r["scenario"], r["seed"], r["decisions"])
            ),
        }
        atomic_write(CACHE, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")

    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for row in pool.map(_oracle, jobs):
            done[(row["scenario"], row["seed"], row["decisions"])] = row
            save()  # after each position: a run cut short keeps what it searched
            print(
                f"# {row['scenario']} seed {row['seed']} decision {row['decisions']}: "
                f"{row['rollouts']} rollouts, {row['verdict']}",
                flush=True,
            )
    save()
    return 0


def regret(oracle: dict[str, Any], suggested: str) -> tuple[float, bool]:
    """The oracle's best win chance minus the suggested action's, in points, and whether
    the suggestion is the oracle's best or in its tie group."""
    actions = oracle["actions"]
    best = max(v["win"] for v in actions.values())
    row = actions.get(suggested)
    if row is None:  # an action the oracle never saw cannot be judged: count it lost
        return 100.0 * best, False
    return 100.0 * (best - row["win"]), bool(row["tied_with_best"]) or row["win"] >= best


def _evaluate(job: tuple[dict[str, Any], int, float, float, int]) -> dict[str, Any]:
    oracle, search_seed, budget_ms, max_ms, threads = job
    state = position_state(oracle["scenario"], oracle["seed"], oracle["decisions"])
    start = time.perf_counter()
    result = suggest(state, budget_ms=budget_ms, seed=search_seed, max_ms=max_ms, threads=threads)
    elapsed = (time.perf_counter() - start) * 1000.0
    top = result.items[0]
    points, good = regret(oracle, str(top.action))
    return {
        "ruleset": load_scenario(oracle["scenario"]).ruleset.id,
        "regret": points,
        "good": good,
        "too_close": result.verdict == "too_close",
        "rollouts": result.iterations,
        "ms": elapsed,
    }


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, int(round(0.95 * len(ordered))) - 1))]


def report(args: argparse.Namespace) -> int:
    if not CACHE.exists():
        print(f"no oracle cache at {CACHE}: run with --make-oracle first", file=sys.stderr)
        return 2
    cache = json.loads(CACHE.read_text(encoding="utf-8"))
    positions = cache["positions"]
    if args.scenarios:
        positions = [p for p in positions if p["scenario"] in args.scenarios]
    jobs = [
        (p, 10_000 + r, args.budget_ms, max(args.max_ms, args.budget_ms), _threads(args.workers))
        for p in positions
        for r in range(args.repeats)
    ]
    print(f"oracle: {cache['command']} ({len(cache['positions'])} positions)")
    print(
        f"suggest at {args.budget_ms:g} ms (up to {args.max_ms:g} ms while too close), "
        f"{args.repeats} search seed(s) per position, {args.workers} worker(s)"
    )
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        rows = list(pool.map(_evaluate, jobs))
    by_ruleset: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_ruleset[row["ruleset"]].append(row)
    print(
        f"{'ruleset':14s} {'n':>4s} {'mean regret':>12s} {'p95 regret':>11s} "
        f"{'best/tied':>10s} {'too close':>10s} {'rollouts':>9s} {'ms (p95)':>9s}"
    )
    for ruleset, group in sorted(by_ruleset.items()):
        regrets = [r["regret"] for r in group]
        print(
            f"{ruleset:14s} {len(group):4d} {statistics.mean(regrets):11.2f}p "
            f"{p95(regrets):10.2f}p {100 * statistics.mean(r['good'] for r in group):9.0f}% "
            f"{100 * statistics.mean(r['too_close'] for r in group):9.0f}% "
            f"{statistics.median(r['rollouts'] for r in group):9.0f} "
            f"{p95([r['ms'] for r in group]):9.0f}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--make-oracle", action="store_true", help="search the oracle positions and write the cache"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --make-oracle: keep the cached positions, add the rest",
    )
    parser.add_argument("--positions", type=int, default=6, help="positions per scenario")
    parser.add_argument(
        "--oracle-iterations",
        type=int,
        default=None,
        help="oracle budget in rollouts instead of 100x the default time",
    )
    parser.add_argument("--scenarios", nargs="*", default=None)
    parser.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS)
    parser.add_argument("--max-ms", type=float, default=CLI_MAX_MS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    return make_oracle(args) if args.make_oracle else report(args)


if __name__ == "__main__":
    sys.exit(main())
