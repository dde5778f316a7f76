"""How good the learned policies are: each against the heuristic on the same battles.

For every shipped policy (``agents/policies/<ruleset>/<scenario>.zip``), or the
``--model PATH`` given with its ``--scenario``, the paired evaluation of
``escaramuza.training.paired``: ``-n`` battles (default 500) of the policy's scenario as
its side against heuristic opponents, lane ``i`` reset with seed ``--seed + i``, played
by the policy and, on the very same battles, by the heuristic, first-legal and random.
Prints one markdown row per policy: each arm's win rate with its 95 % Wilson interval,
the policy's paired difference from the heuristic with Newcombe's paired interval, and
whether it has collapsed to a constant rule. The target (docs/training.md): every
shipped policy at least 10 points above the heuristic, the two win-rate intervals apart,
and not collapsed.

    python benchmarks/learned.py [-n 500] [--seed 1]
    python benchmarks/learned.py --model runs/x/best/policy.zip --scenario donjon/duelo
    python benchmarks/learned.py --timing 40

``--timing K`` also times, on K positions of the policy's side from heuristic battles,
one decision of the ``policy:`` agent and one of the ``mcts`` agent (the planner at its
default budget, on the kernel), and prints their ratio.

``--planner N`` also plays, on each policy's scenario, N battles (seeds ``--seed``…) of
the policy's side played by the heuristic, by ``mcts`` and by the planner guided by the
policy (``mcts:net=POLICY``: its prior at the root, its value at the horizon cut;
``--guide`` another spec suffix, e.g. ``value=POLICY``), against heuristic opponents on
the same seeds, and prints each planner's paired difference from the heuristic (the
guided one's also from the plain ``mcts``, on the same battles) and the mean over the
scenarios (the target: the guided planner ≥ 20 points on average, none
below the heuristic).

    python benchmarks/learned.py --planner 200 --timing 40
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from escaramuza.agents.policy import load_model, resolve_policy, shipped_policies
from escaramuza.training.paired import evaluate_policy

TARGET_POINTS = 10.0


def pct(win: dict[str, Any]) -> str:
    lo, hi = win["ci95"]
    return f"{100 * win['rate']:.1f} [{100 * lo:.1f}–{100 * hi:.1f}]"


def row(label: str, scenario: str, n: int, seed: int) -> tuple[str, bool]:
    model, meta = load_model(label)
    # A policy trained on both sides is measured as the enemies, as the shipped ones play.
    side = "heroes" if meta.side == "heroes" else "enemies"
    started = time.perf_counter()
    result = evaluate_policy(
        model.policy,
        model.maskable,
        meta.ruleset,
        scenario,
        side,
        n=n,
        seed=seed,
        **meta.limits._asdict(),
    )
    seconds = time.perf_counter() - started
    doc = result.document()
    arms = {a["agent"]: a for a in doc["arms"]}
    policy, heuristic = arms["policy"], arms["heuristic"]
    pair = policy["paired"]
    lo, hi = pair["ci95"]
    apart = policy["win"]["ci95"][0] > heuristic["win"]["ci95"][1]
    met = 100 * pair["difference"] >= TARGET_POINTS and apart and not policy["collapsed"]
    collapsed = "; ".join(policy["collapsed"]) or "no"
    line = (
        f"| {scenario} ({side}) | {pct(policy['win'])} | {pct(heuristic['win'])} | "
        f"{pct(arms['first-legal']['win'])} | {pct(arms['random']['win'])} | "
        f"{100 * pair['difference']:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}] | "
        f"{collapsed} | {'yes' if met else 'no'} | {seconds:.0f} s |"
    )
    return line, met


def timing(label: str, scenario: str, k: int) -> str:
    """Median seconds per decision of ``policy:label`` and of ``mcts`` on the same ``k``
    positions (the policy's side to decide, from heuristic battles)."""
    import random
    import statistics

    from escaramuza.agents import make_agent
    from escaramuza.agents.runner import play_battle
    from escaramuza.rules.core.model import Side
    from escaramuza.rules.core.scenario import load_scenario

    _, meta = load_model(label)
    side = Side.HEROES if meta.side == "heroes" else Side.ENEMIES
    loaded = load_scenario(scenario)
    heuristic = make_agent("heuristic")
    states = []
    seed = 0
    while len(states) < k and seed < 50 * k:
        state = play_battle(
            loaded,
            {Side.HEROES: heuristic, Side.ENEMIES: heuristic},
            seed=seed,
            stop_after=seed % 7,
        )
        seed += 1
        if state.outcome is None and state.pending is not None and state.pending.side is side:
            states.append(state)
    arms = {"policy": make_agent(f"policy:{label}"), "mcts": make_agent("mcts")}
    medians = {}
    for name, agent in arms.items():
        times = []
        for state in states:
            started = time.perf_counter()
            agent.act(state, random.Random(0))
            times.append(time.perf_counter() - started)
        medians[name] = statistics.median(times)
    return (
        f"{scenario}: {len(states)} positions, policy {1000 * medians['policy']:.2f} ms, mcts "
        f"{1000 * medians['mcts']:.0f} ms a decision (median): policy/mcts = "
        f"{medians['policy'] / medians['mcts']:.4f}"
    )


def planner_rows(label: str, scenario: str, n: int, seed: int, guide: str) -> list[str]:
    """The heuristic, ``mcts`` and ``mcts:<guide>`` as the policy's side of ``n`` battles
    of ``scenario`` (seed ``seed + i``) against heuristic opponents, on the engine with
    the planner's rollouts on the kernel; one row per planner."""
    from escaramuza.agents import make_agent
    from escaramuza.agents.runner import play_battle
    from escaramuza.rules.core.model import Side
    from escaramuza.rules.core.scenario import load_scenario
    from escaramuza.rules.core.stats import paired_difference, wilson_interval

    _, meta = load_model(label)
    side = Side.HEROES if meta.side == "heroes" else Side.ENEMIES
    loaded = load_scenario(scenario)
    heuristic = make_agent("heuristic")
    specs = ["heuristic", "mcts", f"mcts:{guide.replace('POLICY', label)}"]
    won: dict[str, list[bool]] = {}
    seconds: dict[str, float] = {}
    for spec in specs:
        agent = make_agent(spec)
        started = time.perf_counter()
        won[spec] = []
        for i in range(n):
            end = play_battle(
                loaded, {side: agent, side.other: heuristic}, seed=seed + i, narrate=False
            )
            won[spec].append(end.outcome is not None and end.outcome.winner is side)
        seconds[spec] = time.perf_counter() - started
    rows = []
    for spec in specs[1:]:
        pair = paired_difference(won[spec], won["heuristic"])
        if spec == "mcts":
            plain = "—"
        else:
            gap = paired_difference(won[spec], won["mcts"])
            plain = (
                f"{100 * gap['difference']:+.1f} [{100 * gap['ci95'][0]:+.1f}, "
                f"{100 * gap['ci95'][1]:+.1f}]"
            )
        lo, hi = pair["ci95"]
        mine, base = sum(won[spec]), sum(won["heuristic"])
        a, b = wilson_interval(mine, n)
        c, d = wilson_interval(base, n)
        rows.append(
            f"| {scenario} ({side.value}) | {spec.replace(label, 'POLICY')} | {n} | "
            f"{100 * mine / n:.1f} [{100 * a:.1f}–{100 * b:.1f}] | "
            f"{100 * base / n:.1f} [{100 * c:.1f}–{100 * d:.1f}] | "
            f"{100 * pair['difference']:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}] | "
            f"{plain} | {seconds[spec] / n:.2f} s |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=500, help="battles per arm")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--model", help="a policy zip (with --scenario) instead of the shipped")
    parser.add_argument("--scenario", help="the scenario --model is measured on")
    parser.add_argument("--timing", type=int, default=0, metavar="K", help="time K decisions")
    parser.add_argument(
        "--planner", type=int, default=0, metavar="N", help="N battles per planner arm"
    )
    parser.add_argument(
        "--guide", default="net=POLICY", help="the guided planner's spec suffix (net=POLICY)"
    )
    args = parser.parse_args()
    if args.model and not args.scenario:
        parser.error("--model needs --scenario")
    todo = (
        [(args.model, args.scenario)]
        if args.model
        else [(name, name) for name in shipped_policies()]
    )
    print(
        f"{args.n} battles per arm on the same seeds (lane i: seed {args.seed} + i), against "
        f"heuristic opponents; load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    print()
    print(
        "| scenario (side) | policy | heuristic | first-legal | random | "
        "policy − heuristic (paired) | collapsed | target | time |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    met = 0
    for label, scenario in todo:
        resolve_policy(label)  # a clear error for a missing file, before any battle
        line, ok = row(label, scenario, args.n, args.seed)
        met += ok
        print(line, flush=True)
    print()
    print(
        f"target (≥ {TARGET_POINTS:.0f} points above the heuristic, intervals apart, not "
        f"collapsed): {met} of {len(todo)}"
    )
    if args.planner:
        print()
        print(
            "| scenario (side) | planner | battles | planner wins | heuristic wins | "
            "planner − heuristic (paired) | planner − mcts (paired) | s/battle |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        gains: dict[str, list[float]] = {}
        for label, scenario in todo:
            for line in planner_rows(label, scenario, args.planner, args.seed, args.guide):
                print(line, flush=True)
                cells = line.split(" | ")
                gains.setdefault(cells[1], []).append(float(cells[5].split(" ")[0]))
        print()
        for spec, values in gains.items():
            print(
                f"{spec}: mean {sum(values) / len(values):+.1f} points over {len(values)} "
                f"scenarios, lowest {min(values):+.1f}"
            )
    if args.timing:
        print()
        for label, scenario in todo:
            print(timing(label, scenario, args.timing), flush=True)


if __name__ == "__main__":
    main()
