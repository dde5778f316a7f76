"""The whole playtest run: every scenario's battles on the runner, summarized, and the
JSON document (``--json``, ``summary.json``) they make."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from escaramuza.playtest.records import BattleRecord
from escaramuza.playtest.runner import (
    PlaytestConfig,
    Progress,
    Runner,
    ScenarioRef,
    run_battles,
    scenario_engine,
)
from escaramuza.playtest.stats import summarize
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _

#: Version tag of the JSON document (``--json``, ``summary.json``); bumped on a breaking change.
SCHEMA = "escaramuza.playtest/1"


@dataclass(slots=True)
class PlaytestResult:
    config: PlaytestConfig
    summaries: list[dict[str, Any]] = field(default_factory=list)
    records: dict[str, list[BattleRecord]] = field(default_factory=dict)
    seconds: float = 0.0

    def document(self) -> dict[str, Any]:
        """The JSON document (``--json``, ``summary.json``). Run parameters that cannot
        change the numbers (workers, backend, timings) are left out on purpose, so the
        document is byte-identical for any worker count and either backend."""
        cfg = self.config
        return {
            "agents": {"enemies": cfg.enemies, "heroes": cfg.heroes},
            "battles": cfg.n,
            "scenarios": self.summaries,
            "schema": SCHEMA,
            "seed": cfg.seed,
        }

    def to_json(self) -> str:
        return json.dumps(self.document(), ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def playtest(
    scenarios: Sequence[str],
    config: PlaytestConfig,
    show_progress: bool = False,
    keep_records: bool = False,
    runner: Runner | None = None,
) -> PlaytestResult:
    """Play ``config.n`` battles of each scenario and summarize them."""
    config.validate()
    refs = [ScenarioRef.resolve(name) for name in scenarios]
    if not refs:
        raise EscaramuzaError(_("name at least one scenario to playtest"))
    result = PlaytestResult(config)
    began = time.perf_counter()
    own = runner is None
    active = runner if runner is not None else Runner(config)
    try:
        active.start()
        # Every scenario's engine first: --engine fast refuses before any battle.
        engines = [scenario_engine(ref.load(), config) for ref in refs]
        for ref, (engine, why) in zip(refs, engines, strict=True):
            bar = Progress(config.n, ref.name, show_progress)
            try:
                records = run_battles(ref, config, active, bar, engine)
            finally:
                bar.close()
            summary = summarize(ref.load(), records)
            # Which engine played (docs/fast-path.md): the only keys that differ between
            # --engine fast and --engine reference, since the battles are the same.
            summary["engine"] = engine
            summary["engine_refusal"] = why
            result.summaries.append(summary)
            if keep_records:
                result.records[ref.name] = records
    finally:
        if own:
            active.close()
    result.seconds = time.perf_counter() - began
    return result
