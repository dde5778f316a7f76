"""The paired evaluation (``escaramuza.training.paired``): arms on the same battles,
their paired differences, and collapse detection."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from escaramuza.agents.policy import PolicyAgent, load_model
from escaramuza.envs.single import EscaramuzaEnv
from escaramuza.envs.vector import KernelVectorEnv
from escaramuza.training.paired import (
    COLLAPSED_ENTROPY,
    Arm,
    Evaluation,
    baselines,
    collapse,
    first_legal_chooser,
    paired,
    play,
    policy_chooser,
)

pytestmark = pytest.mark.compile


def arm(name: str, wins: list[int], **kw: Any) -> Arm:
    return Arm(name, np.array(wins), np.zeros(len(wins), dtype=np.int64), **kw)


def test_paired_counts_the_discordant_battles() -> None:
    a = arm("a", [1, 1, 0, 0, 1, 0, 1, 1])
    r = arm("r", [1, 0, 0, 1, 0, 0, 1, 0])
    got = paired(a, r)
    # a alone won battles 1, 4 and 7; r alone battle 3: (3 - 1) / 8.
    assert (got["won_only_by_agent"], got["won_only_by_reference"]) == (3, 1)
    assert got["difference"] == 0.25
    lo, hi = got["ci95"]
    assert lo < 0.25 < hi


def test_arms_of_different_lengths_are_not_paired() -> None:
    with pytest.raises(ValueError, match="3 battles"):
        paired(arm("a", [1, 0, 1]), arm("r", [1, 0]))


def test_collapse_names_each_sign() -> None:
    first = arm("first-legal", [0, 1], traces=["x", "y"], decisions=10, first_legal=10)
    same = arm("p", [0, 1], traces=["x", "y"], decisions=10, first_legal=10, entropy=0.3)
    assert collapse(same, first) == [
        "the first legal action in 100.0% of its decisions",
        "first-legal's actions in every one of its 2 battles",
    ]
    flat = arm("p", [0, 1], traces=["x", "z"], decisions=10, first_legal=2, entropy=0.001)
    assert collapse(flat, first) == [f"mean entropy 0.0010 nats (below {COLLAPSED_ENTROPY})"]
    alive = arm("p", [0, 1], traces=["x", "z"], decisions=10, first_legal=5, entropy=0.4)
    assert collapse(alive, first) == []


def test_the_first_legal_arm_is_the_kernels_first_legal_agent() -> None:
    """The Python-side chooser through the step and the compiled FIRST_LEGAL agent inside
    it (``autoplay``) play the same battles."""
    env = KernelVectorEnv("donjon", 60, scenario="donjon/duelo", side="enemies")
    played = play(env, "first-legal", first_legal_chooser(), seed=5)
    winners = env.autoplay("first-legal", seed=5)
    assert played.wins.tolist() == (winners == 1).astype(int).tolist()
    assert played.first_legal == played.decisions > 0


def test_the_policy_arm_is_the_policy_agent_battle_for_battle() -> None:
    """Every battle of the policy arm is the one ``policy:`` plays on the Python env with
    the same seed."""
    name = "destiny_dice/emboscada"
    model, _ = load_model(name)
    env = KernelVectorEnv("destiny_dice", 6, scenario=name, side="enemies")
    got = play(env, "policy", policy_chooser(model.policy, model.maskable), seed=3)
    agent = PolicyAgent(name)
    for b in range(6):
        py = EscaramuzaEnv("destiny_dice", scenario=name, side="enemies", narrate=False)
        py.reset(seed=3 + b)
        while py.state.outcome is None:
            action = agent.act(py.state, py._rng)
            py.step(next(k for k, a in py.legal_actions().items() if a == action))
        winner = py.state.outcome.winner
        assert got.wins[b] == int(winner is not None and winner.value == "enemies"), b
    assert got.entropy is not None and got.entropy > COLLAPSED_ENTROPY


def test_a_document_flags_a_policy_that_is_first_legal() -> None:
    """A "policy" that always plays the first legal action is flagged; the baselines are
    never flagged, and the heuristic is the reference of every paired difference."""
    env = KernelVectorEnv("sistema_2d10", 40, scenario="sistema_2d10/duelo", side="enemies")
    result = Evaluation("sistema_2d10/duelo", "enemies", "heuristic", 2)
    result.arms["constant"] = play(env, "constant", first_legal_chooser(), 2)
    result.arms.update(baselines(env, 2))
    doc = result.document()
    by = {a["agent"]: a for a in doc["arms"]}
    assert "first-legal's actions in every one of its 40 battles" in by["constant"]["collapsed"]
    assert all(by[b]["collapsed"] == [] for b in ("heuristic", "first-legal", "random"))
    assert by["heuristic"]["paired"] is None
    assert by["constant"]["paired"] == by["first-legal"]["paired"]


@pytest.mark.parametrize(
    ("ci95", "shown"),
    [
        ((0.01, 0.2), "better than the heuristic"),
        ((-0.234, -0.156), "worse than the heuristic"),
        ((-0.05, 0.1), "no difference from the heuristic shown"),
        ((0.0, 0.1), "no difference from the heuristic shown"),
    ],
)
def test_the_evaluation_line_says_what_its_interval_shows(
    ci95: tuple[float, float], shown: str
) -> None:
    """A best checkpoint 19 points below the heuristic was printed as 'best …' with its
    numbers alone: the line now says what the paired interval shows, better or worse only
    when it excludes 0."""
    from escaramuza.training.train import paired_line

    entry = {
        "timesteps": 4096,
        "win_rate": 0.3,
        "battles": 400,
        "heuristic_win_rate": 0.4,
        "difference": (ci95[0] + ci95[1]) / 2,
        "ci95": list(ci95),
        "collapsed": [],
    }
    line = paired_line("best checkpoint (best/policy.zip)", entry, "heuristic")
    lo, hi = (f"{100 * x:+.1f}" for x in ci95)
    assert line.endswith(f"points [{lo}, {hi}], {shown}\n"), line
