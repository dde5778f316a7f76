"""An opponent pool: each training battle's opponent drawn from several agents.

``opponent_pool: [heuristic, heuristic:brute, heuristic:cautious, random]`` (``train
--opponent-pool A,B,…``) trains against every member: each episode's (scenario, side,
member) is drawn by the lane's sampler (``training.envs.ScenarioSampler``, and the
batched ``training.kernel_env.KernelTrainEnv`` alike, so the kernel steps the same
battles) with the pool's weights. With ``pool_weighting: beats`` (the default) a
member's weight is how often it has beaten the learner — its smoothed win rate against
it, (wins + 1) / (battles + 2) — recomputed after every rollout from the battles that
ended in it, so the learner spends its battles where it still loses (prioritised
fictitious self-play, Vinyals et al. 2019, with the "hard" weighting). ``uniform``
keeps every weight equal. The table is written to ``RUN_DIR/pool.json`` and kept in
``summary.json``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def beats_weights(wins: Sequence[int], battles: Sequence[int]) -> list[float]:
    """Each member's weight: its smoothed win rate against the learner,
    ``(wins + 1) / (battles + 2)``, normalised."""
    w = [(k + 1) / (n + 2) for k, n in zip(wins, battles, strict=True)]
    total = sum(w)
    return [x / total for x in w]


def pool_callback(members: Sequence[str], weighting: str, run: Path) -> Any:
    """A stable-baselines3 callback counting each member's battles and wins against the
    learner and, for ``beats``, sending the new weights to the training envs after each
    rollout (``env_method("set_pool_weights", …)``)."""
    from stable_baselines3.common.callbacks import BaseCallback

    from escaramuza.rules.core.files import write_file

    class PoolWeights(BaseCallback):
        def __init__(self) -> None:
            super().__init__(verbose=0)
            self.battles = np.zeros(len(members), dtype=np.int64)
            self.wins = np.zeros(len(members), dtype=np.int64)
            self.weights = [1.0 / len(members)] * len(members)

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", ()):
                member = info.get("pool_member")
                if member is None or "is_success" not in info:
                    continue
                self.battles[member] += 1
                self.wins[member] += not info["is_success"]
            return True

        def _on_rollout_end(self) -> None:
            if weighting == "beats":
                self.weights = beats_weights(self.wins.tolist(), self.battles.tolist())
                self.training_env.env_method("set_pool_weights", self.weights)

        def table(self) -> list[dict[str, Any]]:
            return [
                {
                    "opponent": name,
                    "battles": int(self.battles[m]),
                    "opponent_wins": int(self.wins[m]),
                    "weight": round(self.weights[m], 6),
                }
                for m, name in enumerate(members)
            ]

        def _on_training_end(self) -> None:
            doc = {"weighting": weighting, "members": self.table()}
            text = json.dumps(doc, indent=2) + "\n"
            write_file(run / "pool.json", text)

    return PoolWeights()
