"""``escaramuza balance SCENARIO --target LEVEL --vary SPEC…``: search an encounter's variants
for the one closest to a target difficulty.

Each variant plays battles in looks of 100, 200, 400… (up to ``--max-battles``) until a
time-uniform 1 − α confidence sequence (:func:`~escaramuza.rules.core.stats.mixture_radius`,
Howard et al. 2021) decides whether it is above, below or on the target: with the
sequence valid at every look at once, a decision is wrong with probability at most α
however many looks it took (docs/playtest.md, "Balancing an encounter"). The next
variant is chosen by bisection on an ordered dimension (enemy count, a stat's scale or
die) and by a grid over unordered ones (starting zones). Every variant plays battle
``i`` with the same seed as playtest's battle ``i`` (common random numbers), so the
written variant reproduces its rates with ``escaramuza playtest FILE --seed S -n N``, and
the search is the same for any worker count and either backend.

One module per part, each importing only the ones above it:

* :mod:`~escaramuza.balance.dimensions`: the target, each battle's measures, and what a
  variant varies (``--vary``);
* :mod:`~escaramuza.balance.search`: the sequential test of one variant, the search over
  the variants, and its run on the playtest runner (:func:`balance`);
* :mod:`~escaramuza.balance.report`: the text table, the ``--out`` YAML and the plot;
* :mod:`~escaramuza.balance.cli`: the ``balance`` command.

The names below are re-exported so ``from escaramuza.balance import X`` keeps working.
"""

from __future__ import annotations

from escaramuza.balance.cli import add_parser, cmd_balance
from escaramuza.balance.dimensions import LEVELS, MEASURES, Dimension, Target, parse_vary
from escaramuza.balance.report import out_text, plot, render_text
from escaramuza.balance.search import (
    SCHEMA,
    BalanceRun,
    Tried,
    balance,
    bisect,
    choose,
    looks,
    sequential,
    verdict,
)

__all__ = [
    "LEVELS",
    "MEASURES",
    "SCHEMA",
    "BalanceRun",
    "Dimension",
    "Target",
    "Tried",
    "add_parser",
    "balance",
    "bisect",
    "choose",
    "cmd_balance",
    "looks",
    "out_text",
    "parse_vary",
    "plot",
    "render_text",
    "sequential",
    "verdict",
]
