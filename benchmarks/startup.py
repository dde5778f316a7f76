"""Start-up time of each fast command, as a ratio to a bare ``python -c pass``.

Targets: ``--version`` and ``--help`` in ≤ 0.3 s, ``scenarios``,
``validate`` and ``schema`` in ≤ 0.5 s on an idle machine. Absolute times depend on
the machine and on its load, so each command is reported beside the interpreter's
own start-up measured in the same rounds: the runs are interleaved (one run of every
command per round), so a burst of load hits them all alike, and the median of the
rounds is kept.

    .venv/bin/python benchmarks/startup.py [--rounds 9]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (label, argv after the interpreter). The first is the baseline.
COMMANDS: list[tuple[str, list[str]]] = [
    ("python -c pass", ["-c", "pass"]),
    ("--version", ["-m", "escaramuza", "--version"]),
    ("--help", ["-m", "escaramuza", "--help"]),
    ("scenarios", ["-m", "escaramuza", "scenarios"]),
    ("validate (1 scenario)", ["-m", "escaramuza", "validate", "scenarios/donjon/duelo.yaml"]),
    (
        "schema scenario --ruleset cairn",
        ["-m", "escaramuza", "schema", "scenario", "--ruleset", "cairn"],
    ),
]


def run_once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *argv], cwd=ROOT, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9, help="runs of each command (default 9)")
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {label: [] for label, _ in COMMANDS}
    for _ in range(args.rounds):
        for label, command in COMMANDS:
            times[label].append(run_once(command))
    base = statistics.median(times[COMMANDS[0][0]])
    print(f"{'command':34} {'median s':>9} {'× python':>9}")
    for label, _ in COMMANDS:
        median = statistics.median(times[label])
        print(f"{label:34} {median:9.3f} {median / base:9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
