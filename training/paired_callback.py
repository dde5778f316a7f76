"""The training's periodic evaluation: the policy against the heuristic on fixed battles.

Every ``eval_freq`` timesteps the learner plays ``eval_battles`` battles of each
(scenario, side) of the run against the evaluation opponent on the batched kernel env
(:mod:`escaramuza.training.paired`), always the same battles (lane ``i`` reset with
``seed + i``). The heuristic — the scenario's temperaments on the learner's side —
played the very same battles once at the start, so each evaluation is a paired
comparison: the policy's win rate minus the heuristic's, with Newcombe's paired
interval, pooled over the run's (scenario, side) pairs. The best model is the one with
the highest paired difference (``best/best_model.zip`` and its slim
``best/policy.zip``); a collapsed policy (``paired.collapse``) is never the best. Each
evaluation is a line of ``eval/paired.jsonl`` and the logger's ``eval/*`` keys.

An evaluation due at a step is made once the weights have learnt from that step: at the
next rollout's start, after the update of the rollout the step is in, or at the end of
training. So its ``timesteps`` are those the evaluated weights were trained on, and the
last evaluation is of the weights the run saves (``final.zip``): evaluated at the step
itself, they were one update behind, and the final weights were never evaluated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from escaramuza.agents.policy import PolicyMeta, write_meta
from escaramuza.envs.vector import KernelVectorEnv
from escaramuza.training.paired import (
    Arm,
    baselines,
    collapse,
    paired,
    play,
    policy_chooser,
)


def pooled(arms: list[Arm], name: str) -> Arm:
    """One arm over every (scenario, side) of a run, its battles one after another."""
    decisions = sum(a.decisions for a in arms)
    weighted = [(a.entropy, a.decisions) for a in arms if a.entropy is not None]
    entropy = (
        sum(e * k for e, k in weighted) / sum(k for _, k in weighted)
        if weighted and sum(k for _, k in weighted)
        else None
    )
    traces: list[str] | None = []
    for a in arms:
        traces = None if traces is None or a.traces is None else [*traces, *a.traces]
    return Arm(
        name,
        np.concatenate([a.wins for a in arms]),
        np.concatenate([a.draws for a in arms]),
        traces,
        decisions,
        sum(a.first_legal for a in arms),
        entropy,
    )


def paired_eval_callback(
    envs: list[KernelVectorEnv],
    eval_freq: int,
    seed: int,
    maskable: bool,
    run: Path,
    meta: PolicyMeta,
    evaluate_start: bool = False,
) -> Any:
    """A stable-baselines3 callback evaluating every ``eval_freq`` calls (see the
    module's docstring) on ``envs`` (one per (scenario, side), ``eval_battles`` lanes);
    with ``evaluate_start``, the model training starts from too."""
    from stable_baselines3.common.callbacks import BaseCallback

    from escaramuza.rules.core.files import write_file
    from escaramuza.training.train import export_policy

    class PairedEval(BaseCallback):
        def __init__(self) -> None:
            super().__init__(verbose=0)
            self.history: list[dict[str, Any]] = []
            self.best: dict[str, Any] | None = None
            self._heuristic: Arm | None = None
            self._first_legal: Arm | None = None
            #: An evaluation is due (its step passed; the update it waits for not yet).
            self._due = False
            #: The weights changed since the last evaluation (a rollout ended: an update).
            self._stale = False

        def _on_training_start(self) -> None:
            if evaluate_start:
                # A run continued in its own folder keeps what it had found: its
                # evaluations so far and its best (which a worse model would replace).
                self.history, self.best = earlier_evaluations(run)
            base = [baselines(env, seed) for env in envs]
            self._heuristic = pooled([b["heuristic"] for b in base], "heuristic")
            self._first_legal = pooled([b["first-legal"] for b in base], "first-legal")
            if evaluate_start:
                # Trained weights to start from (a resume, a distilled policy) are a
                # candidate too: the best is never worse than where training began.
                self.evaluate()

        def _on_step(self) -> bool:
            if self.n_calls % eval_freq == 0:
                self._due = True
            return True

        def _on_rollout_end(self) -> None:
            self._stale = True  # the update follows

        def _on_rollout_start(self) -> None:
            if self._due:
                self.evaluate()

        def _on_training_end(self) -> None:
            # The model training ends with is evaluated too (and may be the best).
            if self._due or self._stale or not self.history:
                self.evaluate()

        def evaluate(self) -> dict[str, Any]:
            assert self._heuristic is not None
            self._due = self._stale = False
            choose = policy_chooser(self.model.policy, maskable)
            arm = pooled([play(env, "policy", choose, seed) for env in envs], "policy")
            pair = paired(arm, self._heuristic)
            entry = {
                "timesteps": int(self.num_timesteps),
                "battles": arm.n,
                "win_rate": float(arm.wins.mean()),
                "heuristic_win_rate": float(self._heuristic.wins.mean()),
                "difference": pair["difference"],
                "ci95": pair["ci95"],
                "mean_entropy": arm.entropy,
                "first_legal_share": arm.first_legal / arm.decisions if arm.decisions else None,
                "collapsed": collapse(arm, self._first_legal),
            }
            self.history.append(entry)
            self.logger.record("eval/win_rate", entry["win_rate"])
            self.logger.record("eval/paired_difference", entry["difference"])
            if arm.entropy is not None:
                self.logger.record("eval/mean_entropy", arm.entropy)
            folder = run / "eval"
            folder.mkdir(parents=True, exist_ok=True)
            lines = "".join(json.dumps(e, sort_keys=True) + "\n" for e in self.history)
            write_file(folder / "paired.jsonl", lines)
            if not entry["collapsed"] and (
                self.best is None or entry["difference"] > self.best["difference"]
            ):
                self.best = entry
                best = run / "best"
                best.mkdir(parents=True, exist_ok=True)
                self.model.save(best / "best_model.zip")
                write_meta(best / "best_model.zip", meta)
                export_policy(self.model, best / "policy.zip", meta)
                text = json.dumps(entry, indent=2, sort_keys=True) + "\n"
                write_file(best / "best.json", text)
            return entry

    return PairedEval()


def earlier_evaluations(run: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The evaluations ``run``'s folder holds (``eval/paired.jsonl``) and its best
    (``best/best.json``), read bounded; none where a file is missing or unreadable."""
    from escaramuza.rules.core.errors import EscaramuzaError
    from escaramuza.rules.core.files import read_text_file
    from escaramuza.rules.core.parsers import parse_json

    def entries(path: Path, lines: bool) -> list[Any]:
        if not path.is_file():
            return []
        try:
            text = read_text_file(path, EscaramuzaError, "an evaluation")
            docs = text.splitlines() if lines else [text]
            return [parse_json(d, str(path), EscaramuzaError) for d in docs if d.strip()]
        except EscaramuzaError:
            return []

    def valid(e: Any) -> bool:
        return isinstance(e, dict) and isinstance(e.get("difference"), float | int)

    history = [e for e in entries(run / "eval" / "paired.jsonl", True) if valid(e)]
    best = [e for e in entries(run / "best" / "best.json", False) if valid(e)]
    return history, best[0] if best else None
