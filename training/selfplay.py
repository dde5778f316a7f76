"""Self-play: train against a pool of frozen snapshots of the learner itself.

The learner steps the ordinary Gymnasium env; its ``opponent``
is a :class:`SnapshotPool` agent, which plays each battle with one frozen
snapshot drawn from the pool. Every ``selfplay.snapshot_freq`` timesteps the
:class:`SelfPlayCallback` saves the current model under ``RUN_DIR/pool/`` and
adds it to the pool of every worker env (``env_method("add_snapshot", path)``);
only the ``pool_size`` most recent snapshots stay. Using the snapshots as the
Gymnasium env's opponent (rather than stepping the PettingZoo AEC env with two
learners) keeps MaskablePPO's single-agent loop, masks and vectorised envs as
they are; the AEC env is the same battle with the same codecs, so the two are
equivalent for a frozen opponent.

The games are asymmetric (heroes and enemies differ), so a snapshot must be
able to play the other side: self-play runs train with ``side: both`` — each
episode samples the learner's side — and the snapshots play whichever side
the learner does not.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from escaramuza.agents import Agent, RandomAgent
from escaramuza.agents.policy import PolicyAgent, PolicyMeta, write_meta
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.state import BattleState


class SnapshotPool:
    """An agent that plays each battle with one snapshot drawn from a pool.

    The snapshot is drawn with the battle's agent ``rng`` at the battle's first
    decision (a new ``BattleState`` object means a new battle). Until the first
    snapshot arrives it plays uniformly at random.
    """

    name = "selfplay-pool"

    def __init__(self, pool_size: int) -> None:
        self.pool_size = pool_size
        self.paths: list[str] = []
        self._agents: dict[str, PolicyAgent] = {}
        self._battle: BattleState | None = None
        self._current: Agent = RandomAgent()

    def add(self, path: str) -> None:
        self.paths.append(path)
        del self.paths[: -self.pool_size]
        for stale in [p for p in self._agents if p not in self.paths]:
            del self._agents[stale]

    def _agent(self, path: str) -> PolicyAgent:
        agent = self._agents.get(path)
        if agent is None:
            # Sampled, not greedy: a varied opponent is a better sparring partner.
            agent = self._agents[path] = PolicyAgent(path, deterministic=False)
        return agent

    def act(self, state: BattleState, rng: random.Random) -> Action:
        if state is not self._battle:
            self._battle = state
            if self.paths:
                self._current = self._agent(self.paths[rng.randrange(len(self.paths))])
        return self._current.act(state, rng)


class SelfPlayCallback(BaseCallback):
    """Saves a snapshot every ``freq`` timesteps and adds it to every env's pool."""

    def __init__(self, folder: Path, freq: int, meta: PolicyMeta) -> None:
        super().__init__()
        self.folder = folder
        self.freq = freq
        self.meta = meta
        self._next = 0

    def snapshot(self) -> str:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"snapshot_{self.num_timesteps}.zip"
        self.model.save(path)
        write_meta(path, self.meta)
        self.training_env.env_method("add_snapshot", str(path))
        return str(path)

    def _on_training_start(self) -> None:
        self._next = self.num_timesteps + self.freq

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self.snapshot()
            self._next = self.num_timesteps + self.freq
        return True


def pool_opponent(config: Any) -> SnapshotPool:
    return SnapshotPool(config.selfplay.pool_size)
