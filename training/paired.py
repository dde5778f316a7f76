"""Paired evaluation: a learned policy and the baselines on the very same battles.

A policy's win rate alone cannot tell a good policy from a lucky one: 40 battles swing
±15 points. Here every arm plays the *same* ``n`` battles — lane ``i`` of a batched
kernel env (:class:`~escaramuza.envs.vector.KernelVectorEnv`) reset with seed
``seed + i`` — so two arms differ only where their choices do, and their difference is
measured on pairs:

* the **policy** arm: the model's most probable legal action at each of its side's
  decisions (``PolicyAgent``'s choice, row by row through the same network);
* **baselines** the kernel plays on the learner's battles: ``heuristic`` (the scenario's
  temperaments, played inside the compiled step: ``KernelVectorEnv.autoplay``),
  ``first-legal`` (the first legal action, in the ruleset's order) and ``random``
  (uniform over the legal actions, from a generator seeded with ``seed``).

Each arm's result is a 0/1 win per battle. :func:`paired` compares two arms: the
difference of their win rates with Newcombe's paired interval
(:func:`~escaramuza.rules.core.stats.paired_difference_interval`), and the discordant
battles (won by one arm only).

A policy has **collapsed** (:func:`collapse`) when it has stopped choosing: its mean
entropy over its decisions is below :data:`COLLAPSED_ENTROPY` nats, or it took exactly
the first-legal baseline's actions in every battle (and so played its battles), or the
first legal action in at least :data:`COLLAPSED_FIRST_LEGAL` of its decisions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from escaramuza.envs.vector import KernelVectorEnv
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.stats import paired_difference, wilson_interval

#: Below this mean entropy (nats) a policy's choices are a fixed rule.
COLLAPSED_ENTROPY = 0.01
#: At least this share of first legal actions is a policy playing "the first one".
COLLAPSED_FIRST_LEGAL = 0.98
#: The baselines every evaluation plays, in the order reports list them.
BASELINES = ("heuristic", "first-legal", "random")
#: A battle still running after this many of the learner's steps is cut (a no-op loop).
MAX_STEPS = 5_000

#: ``chooser(observations, masks, slots, counts) -> (actions, entropies)``: one action
#: per lane (ignored where the lane's battle is over), and each lane's entropy of its
#: choice (NaN when the arm has no distribution).
Chooser = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(slots=True)
class Arm:
    """One agent's ``n`` battles: a win (1) or not (0) each, from the learner's side."""

    name: str
    wins: np.ndarray
    draws: np.ndarray
    #: Each battle's digest of the arm's own actions (None: played inside the kernel).
    traces: list[str] | None = None
    decisions: int = 0
    first_legal: int = 0
    entropy: float | None = None

    @property
    def n(self) -> int:
        return int(self.wins.shape[0])

    def win_rate(self) -> dict[str, Any]:
        k = int(self.wins.sum())
        lo, hi = wilson_interval(k, self.n)
        return {"wins": k, "battles": self.n, "rate": k / self.n, "ci95": [lo, hi]}


@dataclass(slots=True)
class Evaluation:
    """The arms of one paired evaluation, and what it was played on."""

    scenario: str
    side: str
    opponent: str
    seed: int
    arms: dict[str, Arm] = field(default_factory=dict)

    def document(self, reference: str = "heuristic") -> dict[str, Any]:
        ref = self.arms[reference]
        return {
            "scenario": self.scenario,
            "side": self.side,
            "opponent": self.opponent,
            "seed": self.seed,
            "battles": ref.n,
            "reference": reference,
            "arms": [
                {
                    "agent": arm.name,
                    "win": arm.win_rate(),
                    "draws": int(arm.draws.sum()),
                    "decisions": arm.decisions,
                    "first_legal_share": (
                        arm.first_legal / arm.decisions if arm.decisions else None
                    ),
                    "mean_entropy": arm.entropy,
                    "paired": None if name == reference else paired(arm, ref),
                    # A baseline is a fixed rule by design; only a policy can collapse.
                    "collapsed": (
                        [] if name in BASELINES else collapse(arm, self.arms.get("first-legal"))
                    ),
                }
                for name, arm in self.arms.items()
            ],
        }


def paired(arm: Arm, reference: Arm) -> dict[str, Any]:
    """``arm``'s win rate minus ``reference``'s on the same battles, with Newcombe's
    paired 95 % interval and the discordant battles."""
    if arm.n != reference.n:
        raise ValueError(f"{arm.name}: {arm.n} battles, {reference.name}: {reference.n}")
    got = paired_difference(arm.wins.astype(bool).tolist(), reference.wins.astype(bool).tolist())
    return {
        "difference": got["difference"],
        "ci95": got["ci95"],
        "won_only_by_agent": got["first_only"],
        "won_only_by_reference": got["second_only"],
        "battles": arm.n,
    }


def collapse(arm: Arm, first_legal: Arm | None) -> list[str]:
    """Why ``arm`` is a constant rule rather than a policy (empty: it is not)."""
    why: list[str] = []
    if arm.entropy is not None and arm.entropy < COLLAPSED_ENTROPY:
        why.append(f"mean entropy {arm.entropy:.4f} nats (below {COLLAPSED_ENTROPY})")
    if arm.decisions and arm.first_legal / arm.decisions >= COLLAPSED_FIRST_LEGAL:
        share = arm.first_legal / arm.decisions
        why.append(f"the first legal action in {share:.1%} of its decisions")
    if (
        first_legal is not None
        and arm.name != first_legal.name
        and arm.traces is not None
        and arm.traces == first_legal.traces
    ):
        why.append(f"first-legal's actions in every one of its {arm.n} battles")
    return why


def play(env: KernelVectorEnv, name: str, choose: Chooser, seed: int) -> Arm:
    """Each lane's first battle after ``reset(seed=seed)``, the learner's side played by
    ``choose``; the other lanes wait once their battle is over."""
    n = env.num_envs
    obs, _ = env.reset(seed=seed)
    masks = env.action_masks()
    live = np.ones(n, dtype=np.bool_)
    wins = np.zeros(n, dtype=np.int64)
    draws = np.zeros(n, dtype=np.int64)
    digests = [hashlib.blake2b(digest_size=16) for _ in range(n)]
    decisions = first = 0
    entropy_sum = 0.0
    entropy_count = 0
    mine = 0 if env.side is Side.HEROES else 1
    for _ in range(MAX_STEPS):
        if not live.any():
            break
        slots, counts = env.legal_slots()
        actions, entropies = choose(obs, masks, slots, counts)
        actions = np.asarray(actions, dtype=np.int64)
        deciding = live & (counts > 0)
        for b in np.flatnonzero(deciding).tolist():
            a = int(actions[b])
            digests[b].update(a.to_bytes(4, "little", signed=True))
            decisions += 1
            first += int(a == slots[b, 0])
            if not np.isnan(entropies[b]):
                entropy_sum += float(entropies[b])
                entropy_count += 1
        _, terminated, truncated, _ = env.step_only(live, actions)
        obs, masks = env.observations(), env.action_masks()
        done = live & (terminated | truncated)
        if done.any():
            winners = env.last_winners()
            wins[done] = winners[done] == mine
            draws[done] = winners[done] == 2
            live &= ~done
    if live.any():
        raise RuntimeError(f"{name}: {int(live.sum())} battles still running after {MAX_STEPS}")
    return Arm(
        name,
        wins,
        draws,
        [h.hexdigest() for h in digests],
        decisions,
        first,
        entropy_sum / entropy_count if entropy_count else None,
    )


def first_legal_chooser() -> Chooser:
    def choose(
        obs: np.ndarray, masks: np.ndarray, slots: np.ndarray, counts: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        return slots[:, 0].copy(), np.full(len(counts), np.nan)

    return choose


def random_chooser(seed: int) -> Chooser:
    rng = np.random.default_rng(seed)

    def choose(
        obs: np.ndarray, masks: np.ndarray, slots: np.ndarray, counts: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        pick = (rng.random(len(counts)) * np.maximum(counts, 1)).astype(np.int64)
        return slots[np.arange(len(counts)), pick], np.log(np.maximum(counts, 1)).astype(float)

    return choose


#: A batch's top two probabilities closer than this are recomputed row by row: a batched
#: forward pass may round differently from one row's, and only a near-tie can flip.
NEAR_TIE = 1e-6


def policy_chooser(policy: Any, maskable: bool) -> Chooser:
    """The greedy choice of a stable-baselines3 ``policy`` (MaskablePPO's when
    ``maskable``, else PPO's) — ``PolicyAgent``'s choice, so the arm is the ``policy:``
    agent — with the entropy of its masked distribution. One batched forward pass per
    step; a row whose two best slots are within :data:`NEAR_TIE` is recomputed alone,
    exactly as ``PolicyAgent`` computes it
    (:func:`~escaramuza.agents.policy.masked_probabilities`)."""
    from escaramuza.agents.policy import greedy_slot, masked_probabilities

    def choose(
        obs: np.ndarray, masks: np.ndarray, slots: np.ndarray, counts: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        n = len(counts)
        actions = np.zeros(n, dtype=np.int64)
        entropies = np.full(n, np.nan)
        rows = np.flatnonzero(counts > 0)
        if not len(rows):
            return actions, entropies
        probs = masked_probabilities(policy, maskable, obs[rows], masks[rows])
        top2 = -np.partition(-probs, 1, axis=1)[:, :2] if probs.shape[1] > 1 else None
        for k, b in enumerate(rows.tolist()):
            p = probs[k]
            if top2 is not None and top2[k, 0] - top2[k, 1] < NEAR_TIE:
                p = masked_probabilities(policy, maskable, obs[b], masks[b])
            actions[b] = greedy_slot(p, masks[b])
            q = p[p > 0]
            entropies[b] = float(-(q * np.log(q)).sum())
        return actions, entropies

    return choose


def baselines(env: KernelVectorEnv, seed: int) -> dict[str, Arm]:
    """The three baselines on ``env``'s battles after ``reset(seed=seed)``."""
    n = env.num_envs
    mine = 0 if env.side is Side.HEROES else 1
    winners = env.autoplay("heuristic", seed=seed)
    arms = {
        "heuristic": Arm(
            "heuristic", (winners == mine).astype(np.int64), (winners == 2).astype(np.int64)
        )
    }
    arms["first-legal"] = play(env, "first-legal", first_legal_chooser(), seed)
    arms["random"] = play(env, "random", random_chooser(seed), seed)
    assert all(arm.n == n for arm in arms.values())
    return arms


def evaluate_policy(
    policy: Any,
    maskable: bool,
    ruleset: str,
    scenario: str | None,
    side: Literal["enemies", "heroes"] | Side,
    opponent: str = "heuristic",
    n: int = 500,
    seed: int = 1,
    name: str = "policy",
    extra: Sequence[tuple[str, Chooser]] = (),
    **env_kwargs: Any,
) -> Evaluation:
    """The stable-baselines3 ``policy`` (:func:`policy_chooser`) and the baselines on
    the same ``n`` battles of ``scenario`` (the learner's ``side`` against
    ``opponent``)."""
    env = KernelVectorEnv(
        ruleset,
        n,
        scenario=scenario,
        side=side,
        opponent=opponent,
        illegal_action="noop",
        **env_kwargs,
    )
    result = Evaluation(env.scenario.name, env.side.value, opponent, seed)
    result.arms[name] = play(env, name, policy_chooser(policy, maskable), seed)
    for label, chooser in extra:
        result.arms[label] = play(env, label, chooser, seed)
    result.arms.update(baselines(env, seed))
    return result
