"""``escaramuza playtest`` and the parts ``balance`` and ``campaign`` share with it.

One module per part, each importing only the ones above it (no cycle;
tests/playtest/test_playtest_package.py walks the imports):

* :mod:`~escaramuza.playtest.records`: one battle → one compact record, battle seeds;
* :mod:`~escaramuza.playtest.runner`: configuration, chunks, the process pool and Ray,
  progress, the engine choice (:func:`~escaramuza.playtest.runner.run_battles`);
* :mod:`~escaramuza.playtest.stats`: Wilson proportions, percentiles, the difficulty
  rating, a scenario's summary;
* :mod:`~escaramuza.playtest.result`: the whole run (:func:`playtest`) and its JSON;
* :mod:`~escaramuza.playtest.text`: the text tables;
* :mod:`~escaramuza.playtest.report`: plots and the ``--report`` folder;
* :mod:`~escaramuza.playtest.cli`: the ``playtest`` command and the options the three
  commands share.

The names below are re-exported so ``from escaramuza.playtest import X`` keeps working.
"""

from __future__ import annotations

from escaramuza.playtest.cli import (
    add_parser,
    add_run_options,
    cmd_playtest,
    report_folder,
    run_config,
)
from escaramuza.playtest.records import (
    KNOCKED_OUT,
    NEVER,
    BattleRecord,
    CombatantRecord,
    battle_seed,
    battle_seeds,
    record_battle,
    record_from_events,
)
from escaramuza.playtest.result import SCHEMA, PlaytestResult, playtest
from escaramuza.playtest.runner import (
    BACKENDS,
    DEFAULT_AGENT,
    DEFAULT_N,
    DEFAULT_SEED,
    DEFAULT_WORKERS,
    ChunkJob,
    PlaytestConfig,
    Progress,
    Runner,
    ScenarioRef,
    chunk_ranges,
    chunk_size_for,
    play_one,
    run_battles,
    run_chunk,
    scenario_engine,
)
from escaramuza.playtest.stats import (
    DIFFICULTY_THRESHOLDS,
    TRIVIAL,
    difficulty,
    percentile_nearest_rank,
    proportion,
    summarize,
)
from escaramuza.playtest.text import combatant_table, render_text

__all__ = [
    "BACKENDS",
    "DEFAULT_AGENT",
    "DEFAULT_N",
    "DEFAULT_SEED",
    "DEFAULT_WORKERS",
    "DIFFICULTY_THRESHOLDS",
    "KNOCKED_OUT",
    "NEVER",
    "SCHEMA",
    "TRIVIAL",
    "BattleRecord",
    "ChunkJob",
    "CombatantRecord",
    "PlaytestConfig",
    "PlaytestResult",
    "Progress",
    "Runner",
    "ScenarioRef",
    "add_parser",
    "add_run_options",
    "battle_seed",
    "battle_seeds",
    "chunk_ranges",
    "chunk_size_for",
    "cmd_playtest",
    "combatant_table",
    "difficulty",
    "percentile_nearest_rank",
    "play_one",
    "playtest",
    "proportion",
    "record_battle",
    "record_from_events",
    "render_text",
    "report_folder",
    "run_battles",
    "run_chunk",
    "run_config",
    "scenario_engine",
    "summarize",
]
