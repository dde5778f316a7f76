"""Expert iteration: a policy-and-value network distilled from the planner's search.

One round (:func:`run_round`) labels positions in one of two ways:

* ``labels="games"`` (the default of ``train --distill-rounds``,
  :func:`game_positions`): the planner (``planner``: an ``mcts`` spec, by default the
  ``mcts`` agent itself, or the network-guided planner of the previous round) plays the
  learner's side of the battles against the heuristic, and the battles label themselves:
  each of the planner's decisions with a choice by the action it took, every decision of
  either side, seen from the learner's side, by the battle's result (+1 won, −1 lost, 0
  otherwise) — the value of a state under the planner's play. Either side's decisions
  are value positions because the network's value is asked at the planner's horizon
  cut, where either side may be to act.
* ``labels="search"`` (:func:`battle_states`, :class:`Labeller`): battles of the
  ``players`` (the heuristic, a ``policy:`` agent…) against the heuristic; each of the
  learner's decisions is searched by the planner and labelled by its pick
  (:meth:`SearchResult.choice`), each decision of either side by the learner side's mean
  result over ``value_rollouts`` rollouts to the end of the heuristic's play from it (the
  kernel's, on shared dice): the chance to win minus the chance to lose, the scale of
  ``2 × side_value − 1`` that scores a cut rollout.

The network is the MaskablePPO ``OnceMaskedPolicy`` MLP that ``escaramuza train`` builds
(the same hyperparameters and ``net_arch``), on the env's observation and mask: its actor
learns the labels by cross-entropy over the legal slots, its critic the values by squared
error. It is saved as ``final.zip`` (a whole MaskablePPO model, so ``escaramuza train
--resume`` fine-tunes it) and ``policy.zip`` (the ``policy:`` agent's file), both with
``escaramuza.json``.

The next round's planner is ``mcts:…:net=<this round's policy.zip>``
(:mod:`escaramuza.agents.search.guided`): the network's policy orders and restricts the
root's candidates, its value scores the rollouts cut at the horizon.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from escaramuza.agents.base import Agent
from escaramuza.envs.common import STANDARD_LIMITS, EnvLimits, codecs
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _f
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.state import BattleState
from escaramuza.training.fitting import BATCH, EPOCHS, fit, new_model

if TYPE_CHECKING:
    from escaramuza.agents.search import MCTSAgent

#: Rollouts per value position: the label's standard error is at most 1/√64 ≈ 0.125.
VALUE_ROLLOUTS = 64


@dataclass(slots=True)
class Positions:
    """A round's labelled positions, as arrays for the network.

    ``obs``/``mask``: the env's observation and legal-slot mask of each position, seen
    from the learner's side; ``target`` the slot the planner picked (-1: a value
    position only, no policy label); ``value`` the learner side's result in [−1, 1]."""

    obs: np.ndarray
    mask: np.ndarray
    target: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return len(self.value)

    def save(self, path: Path) -> None:
        np.savez_compressed(
            path, obs=self.obs, mask=self.mask, target=self.target, value=self.value
        )

    @classmethod
    def load(cls, path: Path) -> Positions:
        with np.load(path) as data:
            return cls(data["obs"], data["mask"], data["target"], data["value"])

    @classmethod
    def join(cls, parts: Sequence[Positions]) -> Positions:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.__slots__))


class _Recorder:
    """An agent that plays as ``agent`` and keeps a copy of every state it is asked (and,
    given ``actions``, the action it took there)."""

    def __init__(
        self, agent: Agent, states: list[BattleState], actions: list[Action | None] | None = None
    ) -> None:
        self.agent = agent
        self.states = states
        self.actions = actions
        self.name = getattr(agent, "name", "recorder")

    def act(self, state: BattleState, rng: random.Random) -> Action:
        self.states.append(state.clone(keep_log=False))
        action = self.agent.act(state, rng)
        if self.actions is not None:
            self.actions.append(action)
        return action


def battle_states(
    scenario: str, side: Side, players: Sequence[str], battles: int, seed: int
) -> list[BattleState]:
    """Every decision's state (either side's) of ``battles`` battles of ``scenario``,
    battle ``i`` on seed ``seed + i`` with ``players[i % len(players)]`` as ``side`` and
    the heuristic as the other side."""
    from escaramuza.agents import make_agent
    from escaramuza.agents.runner import play_battle
    from escaramuza.rules.core.scenario import load_scenario

    loaded = load_scenario(scenario)
    agents = [make_agent(p) for p in players]
    heuristic = make_agent("heuristic")
    states: list[BattleState] = []
    for i in range(battles):
        own = _Recorder(agents[i % len(agents)], states)
        other = _Recorder(heuristic, states)
        play_battle(loaded, {side: own, side.other: other}, seed=seed + i, narrate=False)
    return states


def _planner_agent(spec: str) -> MCTSAgent:
    """The ``mcts`` agent ``spec`` names, searching every decision afresh (no reused tree:
    a label is the search's own, whatever the previous decision was)."""
    from escaramuza.agents import make_agent
    from escaramuza.agents.search import MCTSAgent

    agent = make_agent(spec)
    if not isinstance(agent, MCTSAgent):
        raise EscaramuzaError(
            _f("--distill-planner {spec}: not an mcts planner (mcts, mcts:300it…)", repr(spec))
        )
    agent.reuse = False
    return agent


def game_positions(
    scenario: str,
    side: Side,
    planner: str,
    battles: int,
    seed: int,
    limits: EnvLimits = STANDARD_LIMITS,
) -> tuple[Positions, int, int]:
    """Positions of ``battles`` battles the ``planner`` plays as ``side`` against the
    heuristic (seed ``seed + i``), labelled by the games themselves: each of the
    planner's decisions (with a choice) by the action it took, every decision of either
    side by the battle's result for ``side`` (+1 won, −1 lost, 0 otherwise) — the value
    of a state under the planner's play. Also how many decisions were labelled and in how
    many the planner left the heuristic's pick."""
    from escaramuza.agents import make_agent
    from escaramuza.agents.runner import play_battle
    from escaramuza.rules.core.scenario import load_scenario

    loaded = load_scenario(scenario)
    agent = _planner_agent(planner)
    heuristic = make_agent("heuristic")
    codec, encoder = codecs(loaded.ruleset, limits)
    obs, masks, targets, values = [], [], [], []
    searched = deviated = 0
    for i in range(battles):
        states: list[BattleState] = []
        actions: list[Action | None] = []
        before = agent.deviated
        own = _Recorder(agent, states, actions)
        other = _Recorder(heuristic, states, actions)
        end = play_battle(loaded, {side: own, side.other: other}, seed=seed + i, narrate=False)
        deviated += agent.deviated - before
        outcome = end.outcome
        result = 0.0
        if outcome is not None and outcome.winner is not None:
            result = 1.0 if outcome.winner is side else -1.0
        for state, action in zip(states, actions, strict=True):
            pending = state.pending
            assert pending is not None and action is not None
            legal = state.ruleset.legal_actions(state)
            mask = np.zeros(codec.n, dtype=bool)
            mask[list(codec.legal_map(state, legal))] = True
            target = -1
            if pending.side is side and len(legal) > 1:
                target = codec.encode(state, action)
                searched += 1
            obs.append(encoder.encode(state, side))
            masks.append(mask)
            targets.append(target)
            values.append(result)
    data = Positions(
        np.asarray(obs, dtype=np.float32).reshape(len(obs), encoder.size),
        np.asarray(masks, dtype=bool).reshape(len(masks), codec.n),
        np.asarray(targets, dtype=np.int64),
        np.asarray(values, dtype=np.float32),
    )
    return data, searched, deviated


def continuation_values(state: BattleState, side: Side, seeds: Sequence[int]) -> float:
    """``side``'s mean result (+1 won, −1 lost, 0 otherwise) over rollouts of the
    heuristic's play from ``state`` to the end, one per seed (the planner's rollouts
    with no horizon: on the kernel when it takes the state, else on the engine)."""
    from escaramuza.agents.fast import find_kernel
    from escaramuza.agents.heuristic import heuristic_choice
    from escaramuza.agents.search import MAX_ROLLOUT_DECISIONS, MCTS
    from escaramuza.rules.core.kernel import KernelRefusal

    pending = state.pending
    assert pending is not None
    actions = state.ruleset.legal_actions(state)
    action = heuristic_choice(state, actions, random.Random(seeds[0]))
    sign = 1.0 if pending.side is side else -1.0
    kernel = find_kernel(state.ruleset.id)
    if kernel is not None:
        try:
            batch = kernel.rollouts(state, [action], list(seeds), None, None, MAX_ROLLOUT_DECISIONS)
            return sign * float(batch.winner[0].mean())
        except KernelRefusal:
            pass
    planner = MCTS(1, horizon=None, expand_after=None, engine="reference")
    total = 0.0
    for s in seeds:
        sim, _ = planner.rollout(state, action, s)
        outcome = sim.outcome
        if outcome is not None and outcome.winner is not None:
            total += 1.0 if outcome.winner is pending.side else -1.0
    return sign * total / len(seeds)


@dataclass(slots=True)
class Labeller:
    """Labels positions of one scenario for the learner's ``side``: ``planner`` (an
    ``mcts`` agent spec) picks, :func:`continuation_values` values; the observation
    and mask are the env's (``policy:`` agents see the same)."""

    scenario: str
    side: Side
    planner: str = "mcts"
    value_rollouts: int = VALUE_ROLLOUTS
    seed: int = 0
    limits: EnvLimits = STANDARD_LIMITS
    searched: int = 0
    deviated: int = 0
    _codec: Any = field(default=None, init=False)
    _encoder: Any = field(default=None, init=False)
    _agent: Any = field(default=None, init=False)

    def __post_init__(self) -> None:
        from escaramuza.rules.core.scenario import load_scenario

        self._codec, self._encoder = codecs(load_scenario(self.scenario).ruleset, self.limits)
        self._agent = _planner_agent(self.planner)

    def label(self, states: Sequence[BattleState]) -> Positions:
        rng = random.Random(self.seed)
        obs, masks, targets, values = [], [], [], []
        for state in states:
            pending = state.pending
            assert pending is not None
            actions = state.ruleset.legal_actions(state)
            legal = self._codec.legal_map(state, actions)
            mask = np.zeros(self._codec.n, dtype=bool)
            mask[list(legal)] = True
            target = -1
            if pending.side is self.side and len(actions) > 1:
                pick = self._agent.act(state, random.Random(rng.getrandbits(63)))
                self.searched += 1
                self.deviated += pick != self._agent.last.heuristic
                target = self._codec.encode(state, pick)
            seeds = [rng.getrandbits(63) for _ in range(self.value_rollouts)]
            obs.append(self._encoder.encode(state, self.side))
            masks.append(mask)
            targets.append(target)
            values.append(continuation_values(state, self.side, seeds))
        return Positions(
            np.asarray(obs, dtype=np.float32).reshape(len(obs), self._encoder.size),
            np.asarray(masks, dtype=bool).reshape(len(masks), self._codec.n),
            np.asarray(targets, dtype=np.int64),
            np.asarray(values, dtype=np.float32),
        )


@dataclass(slots=True)
class RoundResult:
    out: Path
    positions: int
    labelled: int
    deviated: int
    seconds: dict[str, float]
    fit: dict[str, float]
    evaluation: dict[str, Any] | None


def run_round(
    env: str,
    scenario: str,
    side: str,
    out: Path,
    *,
    players: Sequence[str] = ("heuristic",),
    planner: str = "mcts",
    battles: int = 200,
    seed: int = 0,
    value_rollouts: int = VALUE_ROLLOUTS,
    previous: Sequence[Path] = (),
    epochs: int = EPOCHS,
    batch: int = BATCH,
    learning_rate: float | None = None,
    schedule: str = "constant",
    eval_battles: int = 400,
    eval_seed: int = 10_001,
    hyperparameters: Any = None,
    labels: str = "search",
    limits: EnvLimits = STANDARD_LIMITS,
    log: TextIO | None = None,
) -> RoundResult:
    """One round of expert iteration into ``out`` (``positions.npz``, ``final.zip``,
    ``policy.zip``, ``round.json``): positions from ``battles`` battles labelled by
    ``planner`` (``labels="search"``: the ``players``' battles, each decision searched,
    :class:`Labeller`; ``"games"``: the planner's own battles, :func:`game_positions`),
    joined with the ``previous`` rounds' ``positions.npz``, and the network fitted from
    scratch on all of them (:func:`fit`: ``epochs`` over them in minibatches of ``batch``,
    at ``learning_rate``, None the model's, along ``schedule``); then its paired
    evaluation against the heuristic on ``eval_battles`` battles (seeds ``eval_seed``…:
    ``train``'s evaluation battles, not those of the positions)."""
    import torch

    from escaramuza.agents.policy import write_meta
    from escaramuza.training.paired import evaluate_policy
    from escaramuza.training.train import export_policy, meta_for

    torch.set_num_threads(1)
    out.mkdir(parents=True, exist_ok=True)
    learner = Side(side)
    seconds: dict[str, float] = {}
    began = time.perf_counter()
    if labels == "games":
        data, searched, deviated = game_positions(scenario, learner, planner, battles, seed, limits)
        seconds["games"] = time.perf_counter() - began
    elif labels == "search":
        states = battle_states(scenario, learner, players, battles, seed)
        seconds["positions"] = time.perf_counter() - began
        began = time.perf_counter()
        labeller = Labeller(scenario, learner, planner, value_rollouts, seed, limits)
        data = labeller.label(states)
        searched, deviated = labeller.searched, labeller.deviated
        seconds["labels"] = time.perf_counter() - began
    else:
        raise EscaramuzaError(f"expert iteration: labels must be search or games, not {labels!r}")
    data.save(out / "positions.npz")
    everything = Positions.join([data, *(Positions.load(p) for p in previous)])
    if log is not None:
        log.write(
            f"{len(data)} positions ({searched} searched by {planner}, which left the "
            f"heuristic's pick in {deviated}) in {sum(seconds.values()):.0f} s; "
            f"fitting on {len(everything)}\n"
        )
        log.flush()
    began = time.perf_counter()
    model, config = new_model(env, scenario, side, seed, hyperparameters, limits)
    stats = fit(
        model,
        everything,
        epochs=epochs,
        batch=batch,
        seed=seed,
        learning_rate=learning_rate,
        schedule=schedule,
        log=log,
    )
    seconds["fit"] = time.perf_counter() - began
    meta = meta_for(config)
    model.save(out / "final.zip")
    write_meta(out / "final.zip", meta)
    export_policy(model, out / "policy.zip", meta)
    evaluation = None
    if eval_battles:
        began = time.perf_counter()
        result = evaluate_policy(
            model.policy,
            True,
            meta.ruleset,
            scenario,
            learner.value,
            n=eval_battles,
            seed=eval_seed,
            **limits._asdict(),
        )
        seconds["evaluation"] = time.perf_counter() - began
        doc = result.document()
        evaluation = next(a for a in doc["arms"] if a["agent"] == "policy")
        evaluation["heuristic"] = next(a for a in doc["arms"] if a["agent"] == "heuristic")["win"]
        if log is not None:
            pair = evaluation["paired"]
            lo, hi = pair["ci95"]
            log.write(
                f"evaluation on {eval_battles} battles: policy {evaluation['win']['rate']:.1%}, "
                f"heuristic {evaluation['heuristic']['rate']:.1%}, paired "
                f"{100 * pair['difference']:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}] points\n"
            )
    result_doc = RoundResult(out, len(data), searched, deviated, seconds, stats, evaluation)
    (out / "round.json").write_text(
        json.dumps(
            {
                "scenario": scenario,
                "side": side,
                "players": list(players) if labels == "search" else [planner],
                "planner": planner,
                "labels": labels,
                "battles": battles,
                "seed": seed,
                "value_rollouts": value_rollouts,
                "previous": [str(p) for p in previous],
                "epochs": epochs,
                "batch": batch,
                "learning_rate": learning_rate,
                "schedule": schedule,
                "positions": len(data),
                "searched": searched,
                "deviated": deviated,
                "seconds": {k: round(v, 1) for k, v in seconds.items()},
                "fit": stats,
                "evaluation": evaluation,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    return result_doc


def distill(
    env: str,
    scenario: str,
    side: str,
    out: Path,
    *,
    rounds: int = 1,
    battles: int = 300,
    planner: str = "mcts",
    seed: int = 1,
    value_rollouts: int = VALUE_ROLLOUTS,
    epochs: int = EPOCHS,
    batch: int = BATCH,
    learning_rate: float | None = None,
    schedule: str = "constant",
    eval_battles: int = 400,
    hyperparameters: Any = None,
    labels: str = "games",
    limits: EnvLimits = STANDARD_LIMITS,
    log: TextIO | None = None,
) -> Path:
    """Expert iteration, ``rounds`` rounds into ``out/round-<r>/`` (:func:`run_round`).
    Round 1's planner is ``planner``; round r > 1's is ``planner`` guided by round
    r − 1's policy (``net=``). With ``labels="games"`` the planner plays the battles and
    they label themselves; with ``"search"`` round 1 labels the heuristic's battles and
    round r > 1 also round r − 1's policy's. Each round is fitted on every round's
    positions so far. The round whose policy
    has the highest paired difference from the heuristic is copied to ``out/policy.zip``
    and ``out/final.zip``; ``out/summary.json`` lists the rounds. Returns
    ``out/policy.zip``."""
    import shutil

    from escaramuza.training.callbacks import EVAL_SEED_OFFSET

    if rounds < 1 or battles < 1 or epochs < 1 or batch < 1 or value_rollouts < 1:
        raise EscaramuzaError(
            "distill: rounds, battles, epochs, batch and value rollouts must be positive"
        )
    out.mkdir(parents=True, exist_ok=True)
    done: list[RoundResult] = []
    began = time.perf_counter()
    for r in range(1, rounds + 1):
        players: list[str] = ["heuristic"]
        guided = planner
        if done:
            last = done[-1].out / "policy.zip"
            players.append(f"policy:{last}")
            guided = f"{planner}:net={last}"
        if log is not None:
            who = guided if labels == "games" else ", ".join(players)
            log.write(f"round {r}: {battles} battles of {who}, labelled by {guided}\n")
            log.flush()
        done.append(
            run_round(
                env,
                scenario,
                side,
                out / f"round-{r}",
                players=players,
                planner=guided,
                battles=battles,
                seed=seed + 100_000 * (r - 1),
                value_rollouts=value_rollouts,
                previous=[d.out / "positions.npz" for d in done],
                epochs=epochs,
                batch=batch,
                learning_rate=learning_rate,
                schedule=schedule,
                eval_battles=eval_battles,
                eval_seed=seed + EVAL_SEED_OFFSET,
                hyperparameters=hyperparameters,
                labels=labels,
                limits=limits,
                log=log,
            )
        )
    best = max(
        done,
        key=lambda d: d.evaluation["paired"]["difference"] if d.evaluation else 0.0,
    )
    for name in ("policy.zip", "final.zip"):
        shutil.copyfile(best.out / name, out / name)
    seconds = time.perf_counter() - began
    (out / "summary.json").write_text(
        json.dumps(
            {
                "seconds": round(seconds, 1),
                "best_round": done.index(best) + 1,
                "rounds": [json.loads((d.out / "round.json").read_text()) for d in done],
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    if log is not None:
        log.write(
            f"distilled in {seconds:.0f} s; round {done.index(best) + 1}'s policy is "
            f"{out / 'policy.zip'}\n"
        )
    return out / "policy.zip"
