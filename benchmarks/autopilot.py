"""How long the enemies' autopilot takes: each decision, and each round's enemy phase.

Plays the first rounds of a scenario in a ``gm`` session with the autopilot on at the
session's time budget, the heroes by their temperaments, and prints every enemy
decision's wall time (its search and ranking), its rollouts and why its search
stopped, then each round's sum, with the machine's load before and after. The kernel
is compiled (or loaded) before the clock starts, as ``gm`` warms it at a terminal.

    python benchmarks/autopilot.py [--scenario destiny_dice/emboscada] [--budget-ms 800]
                                   [--rounds 3] [--seed 1]

The targets (docs/decisions/0018-enemy-autopilot.md): one decision within the budget, a
whole enemy phase of the Destiny Dice ambush (six enemies) within 6 s on two cores.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import time
from collections import defaultdict

from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.agents.suggest import suggest
from escaramuza.gm import auto as auto_module
from escaramuza.gm import run_session
from escaramuza.gm.autopilot import AUTO_SIDE, AutoDecision


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="destiny_dice/emboscada")
    parser.add_argument("--budget-ms", type=float, default=800.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    load = os.getloadavg()
    session = run_session(
        args.scenario, io.StringIO(""), io.StringIO(), False, args.seed, budget_ms=args.budget_ms
    )
    suggest(session.state, iterations=4, budget_ms=None, seed=0)  # the kernel, warm
    timed: list[tuple[float, int, str, AutoDecision]] = []
    decide = auto_module.decide

    def timing(*a: object, **k: object) -> AutoDecision:
        state = a[0]
        began = time.perf_counter()
        decision = decide(*a, **k)  # type: ignore[arg-type]
        name = state.by_id[state.pending.actor].name  # type: ignore[attr-defined]
        timed.append((time.perf_counter() - began, state.round, name, decision))  # type: ignore[attr-defined]
        return decision

    auto_module.decide = timing  # type: ignore[assignment]
    session.onecmd("auto")
    rng = random.Random(args.seed)
    applied = time.perf_counter()
    while session.state.outcome is None and session.state.round <= args.rounds:
        st = session.state
        if st.pending is not None and st.pending.side is AUTO_SIDE:
            session.onecmd("auto")  # a stretch the autopilot paused
            continue
        legal = st.ruleset.legal_actions(st)
        session.onecmd(f"apply {legal.index(heuristic_choice(st, legal, rng)) + 1}")
    applied = time.perf_counter() - applied
    per_round: dict[int, float] = defaultdict(float)
    count: dict[int, int] = defaultdict(int)
    for seconds, rnd, name, decision in timed:
        ranking = decision.ranking
        print(
            f"round {rnd}  {name:<26} {seconds * 1000:6.0f} ms  {ranking.iterations:6d} rollouts"
            f"  {ranking.stopped}"
        )
        per_round[rnd] += seconds
        count[rnd] += 1
    for rnd in sorted(per_round):
        print(f"round {rnd}: {count[rnd]} enemy decisions in {per_round[rnd]:.2f} s")
    slowest = max(seconds for seconds, *_ in timed)
    print(
        f"slowest decision {slowest * 1000:.0f} ms (budget {args.budget_ms:g} ms); "
        f"session {applied:.1f} s; load average {load[0]:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after; {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
