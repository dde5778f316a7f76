"""Expert iteration (training/expert.py): labels against known values, the distilled
network as a ``policy:`` file that loads without unpickling and plays, and ``train``
going on from the distilled weights."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
from pathlib import Path

import numpy as np
import pytest
import yaml

from escaramuza.agents import make_agent
from escaramuza.agents.fast import use_kernel
from escaramuza.agents.policy import PolicyAgent
from escaramuza.agents.runner import play_battle
from escaramuza.envs.codec import ActionCodec
from escaramuza.envs.common import DEFAULT_MAX_COMBATANTS, DEFAULT_MAX_ITEMS, DEFAULT_MAX_ZONES
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.rules.core.state import BattleState
from escaramuza.training.config import TrainConfig
from escaramuza.training.expert import (
    Labeller,
    Positions,
    battle_states,
    continuation_values,
    game_positions,
    run_round,
)
from escaramuza.training.train import train
from tests.agents.test_search_planner import FORCED_WIN, KILL


def forced(tmp_path: Path, temperament: str) -> tuple[str, BattleState]:
    """The forced-win state (the orc to decide, one sure kill) with the orc of
    ``temperament``, and the scenario's file."""
    spec = copy.deepcopy(FORCED_WIN)
    spec["combatants"][1]["temperament"] = temperament
    path = tmp_path / "forced_win.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    state = new_battle(load_scenario(str(path)), RandomRoller(0))
    apply_action(state, Action("esperar", "heroe"), RandomRoller(0))
    return str(path), state


@pytest.mark.compile
@pytest.mark.parametrize("kernel", [True, False], ids=["kernel", "engine"])
def test_forced_win_is_labelled_the_kill(tmp_path: Path, kernel: bool) -> None:
    """The orc's one sure kill: the planner's label is that attack, on the kernel or the
    engine alike. A brute orc takes it too, so the value of the state (the heuristic
    playing on) is a sure win: +1 for the enemies, −1 seen from the heroes; a tactician
    orc does not, and its value is below a sure win — the label improves on it."""
    for temperament in ("brute", "tactician"):
        path, state = forced(tmp_path, temperament)
        codec = ActionCodec(
            state.ruleset, DEFAULT_MAX_COMBATANTS, DEFAULT_MAX_ZONES, DEFAULT_MAX_ITEMS
        )
        with use_kernel("cairn", None) if not kernel else contextlib.nullcontext():
            enemies = Labeller(path, Side.ENEMIES, "mcts:40it", value_rollouts=6).label([state])
            heroes = Labeller(path, Side.HEROES, "mcts:40it", value_rollouts=6).label([state])
        assert codec.decode(state, int(enemies.target[0])) == KILL
        assert enemies.mask[0, enemies.target[0]]
        assert heroes.target.tolist() == [-1]  # not the heroes' decision: no policy label
        if temperament == "brute":
            assert enemies.value.tolist() == [1.0] and heroes.value.tolist() == [-1.0]
        else:
            assert enemies.value[0] < 1.0 and heroes.value[0] > -1.0
        # Each sees the state from its own side (the env's observation of that side).
        assert not np.array_equal(enemies.obs, heroes.obs)


@pytest.mark.compile
def test_continuation_values_are_the_same_on_kernel_and_engine() -> None:
    """A mid-battle value label is the mean result of rollouts to the end: the kernel's
    rollouts and the engine's give the same number, for either side's view."""
    states = battle_states("destiny_dice/emboscada", Side.ENEMIES, ["heuristic"], 1, 3)
    seeds = list(range(100, 112))
    for state in states[2:40:9]:
        for side in (Side.ENEMIES, Side.HEROES):
            fast = continuation_values(state, side, seeds)
            with use_kernel("destiny_dice", None):
                slow = continuation_values(state, side, seeds)
            assert fast == slow
            assert -1.0 <= fast <= 1.0 and fast * 12 == round(fast * 12)


def test_positions_join_and_round_trip(tmp_path: Path) -> None:
    gen = np.random.default_rng(0)
    parts = [
        Positions(
            gen.random((n, 5), dtype=np.float32),
            gen.random((n, 3)) > 0.5,
            gen.integers(-1, 3, n),
            gen.random(n, dtype=np.float32),
        )
        for n in (2, 3)
    ]
    joined = Positions.join(parts)
    assert len(joined) == 5
    joined.save(tmp_path / "p.npz")
    back = Positions.load(tmp_path / "p.npz")
    for name in Positions.__slots__:
        np.testing.assert_array_equal(getattr(back, name), getattr(joined, name))
    np.testing.assert_array_equal(back.obs[2:], parts[1].obs)


@pytest.mark.training
@pytest.mark.compile
def test_distilled_policy_is_a_safe_policy_file_that_learned_its_labels(tmp_path: Path) -> None:
    """A tiny round: the policy.zip loads through the safe loader (no --trust-policy),
    plays a battle, and on the positions it was fitted to picks the planner's labels."""
    out = tmp_path / "round"
    result = run_round(
        "escaramuza/DestinyDice-v0",
        "destiny_dice/emboscada",
        "enemies",
        out,
        planner="mcts:24it",
        battles=2,
        value_rollouts=2,
        epochs=800,
        eval_battles=0,
    )
    assert result.labelled > 0 and (out / "final.zip").is_file()
    agent = make_agent(f"policy:{out / 'policy.zip'}")
    assert isinstance(agent, PolicyAgent) and agent.meta.side == "enemies"
    scenario = load_scenario("destiny_dice/emboscada")
    heuristic = make_agent("heuristic")
    end = play_battle(scenario, {Side.HEROES: heuristic, Side.ENEMIES: agent}, seed=7)
    assert end.outcome is not None
    data = Positions.load(out / "positions.npz")
    labelled = data.target >= 0
    from escaramuza.agents.policy import masked_probabilities

    probs = masked_probabilities(agent.model.policy, True, data.obs[labelled], data.mask[labelled])
    agreement = float((probs.argmax(1) == data.target[labelled]).mean())
    assert agreement >= 0.9, agreement
    round_doc = json.loads((out / "round.json").read_text())
    assert round_doc["searched"] == int(labelled.sum()) == result.labelled


@pytest.mark.training
@pytest.mark.compile
def test_train_goes_on_from_the_distilled_weights(tmp_path: Path) -> None:
    """``train`` with ``distill``: the expert iteration's run in RUN_DIR/distill, its
    weights evaluated at step 0 (a candidate for the best), then PPO from them."""
    config = TrainConfig.model_validate(
        {
            "env": "escaramuza/DestinyDice-v0",
            "scenarios": ["destiny_dice/emboscada"],
            "timesteps": 64,
            "n_envs": 1,
            "eval_freq": 10_000,
            "eval_battles": 16,
            "distill": {
                "battles": 1,
                "planner": "mcts:16it",
                "value_rollouts": 2,
                "epochs": 2,
                "batch": 8,
                "learning_rate": 1e-3,
                "schedule": "cosine",
            },
            "hyperparameters": {"n_steps": 64, "batch_size": 32},
        }
    )
    log = io.StringIO()
    result = train(config, tmp_path / "run", progress_bar=False, log=log)
    run = tmp_path / "run"
    assert (run / "distill" / "policy.zip").is_file()
    summary = json.loads((run / "summary.json").read_text())
    assert summary["resumed_from"] == str(run / "distill" / "final.zip")
    assert summary["distill_seconds"] > 0
    history = [
        json.loads(line) for line in (run / "eval" / "paired.jsonl").read_text().splitlines()
    ]
    assert history[0]["timesteps"] == 0 and result.timesteps == 64
    # The distilled round's own evaluation: the same battles, the same policy at step 0.
    distilled = json.loads((run / "distill" / "round-1" / "round.json").read_text())
    assert distilled["evaluation"]["win"]["rate"] == history[0]["win_rate"]
    # The fitting settings reach the round's fit.
    fitting = {k: distilled[k] for k in ("epochs", "batch", "learning_rate", "schedule")}
    assert fitting == {"epochs": 2, "batch": 8, "learning_rate": 1e-3, "schedule": "cosine"}
    assert "round 1: 1 battles of mcts:16it, labelled by mcts:16it" in log.getvalue()


def test_distill_needs_one_scenario_and_one_side() -> None:
    from pydantic import ValidationError

    for extra in (
        {"side": "both"},
        {"scenarios": ["destiny_dice/emboscada", "destiny_dice/brann"]},
    ):
        with pytest.raises(ValidationError, match="distill"):
            TrainConfig.model_validate({"distill": {}, **extra})


def test_labeller_refuses_a_planner_that_is_not_mcts() -> None:
    from escaramuza.rules.core.errors import EscaramuzaError

    with pytest.raises(EscaramuzaError, match="not an mcts planner"):
        Labeller("destiny_dice/emboscada", Side.ENEMIES, "heuristic")


@pytest.mark.compile
def test_game_positions_are_labelled_by_the_planners_own_battles() -> None:
    """``labels="games"``: every decision of the planner's battles, the planner's with
    the action it took and all with the battle's result for its side — the same battles
    as the planner playing them again from the same seeds."""
    data, searched, _ = game_positions(
        "destiny_dice/emboscada", Side.ENEMIES, "mcts:20it", battles=2, seed=5
    )
    scenario = load_scenario("destiny_dice/emboscada")
    heuristic = make_agent("heuristic")
    results: list[float] = []
    taken: list[int] = []
    codec = ActionCodec(
        scenario.ruleset, DEFAULT_MAX_COMBATANTS, DEFAULT_MAX_ZONES, DEFAULT_MAX_ITEMS
    )

    class Counting:
        def __init__(self, agent: object, mine: bool) -> None:
            self.agent, self.mine, self.name = agent, mine, "counting"

        def act(self, state: BattleState, rng: random.Random) -> Action:
            action = self.agent.act(state, rng)  # type: ignore[attr-defined]
            several = len(state.ruleset.legal_actions(state)) > 1
            taken.append(codec.encode(state, action) if self.mine and several else -1)
            return action

    for i in range(2):
        before = len(taken)
        planner = make_agent("mcts:20it")
        planner.reuse = False  # type: ignore[attr-defined]
        end = play_battle(
            scenario,
            {Side.ENEMIES: Counting(planner, True), Side.HEROES: Counting(heuristic, False)},
            seed=5 + i,
            narrate=False,
        )
        assert end.outcome is not None
        won = end.outcome.winner
        result = 0.0 if won is None else (1.0 if won is Side.ENEMIES else -1.0)
        results += [result] * (len(taken) - before)
    assert data.value.tolist() == results
    assert data.target.tolist() == taken
    assert searched == sum(t >= 0 for t in taken) > 0
    assert all(data.mask[k, t] for k, t in enumerate(taken) if t >= 0)


def _tiny_positions(model: object, n: int = 40) -> Positions:
    """``n`` random positions of ``model``'s spaces, every other one with a policy label."""
    gen = np.random.default_rng(3)
    size = model.observation_space.shape[0]  # type: ignore[attr-defined]
    slots = model.action_space.n  # type: ignore[attr-defined]
    target = gen.integers(0, slots, n)
    target[1::2] = -1
    return Positions(
        gen.random((n, size), dtype=np.float32),
        np.ones((n, slots), dtype=bool),
        target,
        gen.uniform(-1, 1, n).astype(np.float32),
    )


def _fitted(learning_rate: float | None, schedule: str = "constant", epochs: int = 1) -> dict:
    from escaramuza.training.fitting import fit, new_model

    model, _ = new_model("escaramuza/Donjon-v0", "donjon/duelo", "enemies", 5)
    fit(
        model,
        _tiny_positions(model),
        epochs=epochs,
        batch=16,
        learning_rate=learning_rate,
        schedule=schedule,
    )
    return model.policy.state_dict()


def test_fit_uses_its_own_learning_rate_or_else_the_models() -> None:
    """``learning_rate=None`` fits at the model's rate (3e-4): the same weights as that rate
    given; another rate gives other weights."""
    import torch

    default, same, other = _fitted(None), _fitted(3e-4), _fitted(1e-2)
    assert all(torch.equal(default[k], same[k]) for k in default)
    assert any(not torch.equal(default[k], other[k]) for k in default)


def test_fit_anneals_the_rate_along_a_cosine(monkeypatch: pytest.MonkeyPatch) -> None:
    """``schedule="cosine"``: every step of epoch e of E runs at rate · (1 + cos(π e/E))/2,
    the first epoch at the full rate; ``"constant"`` holds it. Anything else is refused."""
    import math

    import torch

    seen: list[float] = []
    step = torch.optim.Adam.step

    def recording(self: torch.optim.Adam, *args: object, **kwargs: object) -> object:
        seen.append(self.param_groups[0]["lr"])
        return step(self, *args, **kwargs)

    monkeypatch.setattr(torch.optim.Adam, "step", recording)
    _fitted(1e-3, "cosine", epochs=4)
    per_epoch = len(seen) // 4  # 40 positions in minibatches of 16: 3 steps an epoch
    assert per_epoch == 3
    expected = [1e-3 * (1 + math.cos(math.pi * e / 4)) / 2 for e in range(4)]
    assert seen == pytest.approx([r for r in expected for _ in range(per_epoch)])
    seen.clear()
    _fitted(1e-3, "constant", epochs=2)
    assert seen == [1e-3] * 6
    with pytest.raises(ValueError, match="schedule"):
        _fitted(1e-3, "linear")


def test_distill_fitting_settings_are_checked() -> None:
    """``distill``'s fitting settings are taken (the fit's defaults when absent), and a
    schedule, batch or rate that cannot be is refused under ``distill``."""
    from pydantic import ValidationError

    base = {"env": "escaramuza/DestinyDice-v0"}
    spec = TrainConfig.model_validate({**base, "distill": {}}).distill
    assert spec is not None
    assert (spec.batch, spec.learning_rate, spec.schedule) == (256, None, "constant")
    wanted = {"batch": 1024, "learning_rate": 1e-3, "schedule": "cosine"}
    spec = TrainConfig.model_validate({**base, "distill": wanted}).distill
    assert spec is not None
    assert (spec.batch, spec.learning_rate, spec.schedule) == (1024, 1e-3, "cosine")
    for bad in ({"schedule": "linear"}, {"batch": 0}, {"learning_rate": 0}):
        with pytest.raises(ValidationError, match="distill"):
            TrainConfig.model_validate({**base, "distill": bad})


def test_distill_flags_keep_the_config_files_other_distill_keys(tmp_path: Path) -> None:
    """``--distill-rounds``/``--distill-battles`` over a ``--config`` with its own
    ``distill:`` section set those keys and keep the file's others (its fitting
    settings), not replace the section."""
    from escaramuza.training.config import load_config

    path = tmp_path / "distill.yaml"
    path.write_text(
        "env: escaramuza/DestinyDice-v0\n"
        "distill: {battles: 50, epochs: 7, batch: 64, schedule: cosine}\n",
        encoding="utf-8",
    )
    spec = load_config(path, {"distill": {"rounds": 2, "battles": 9}}).distill
    assert spec is not None
    assert (spec.rounds, spec.battles, spec.epochs, spec.batch, spec.schedule) == (
        2,
        9,
        7,
        64,
        "cosine",
    )


def test_the_distilled_alone_recipe_is_a_valid_config() -> None:
    """``agents/policies/distilled-3000.yaml`` (decision 0019) loads under ``train``'s own
    flags: seed 1, 3 000 battles, the [256, 256] MLP and its fitting settings."""
    from escaramuza.training.config import load_config

    recipe = Path(__file__).parents[2] / "agents" / "policies" / "distilled-3000.yaml"
    config = load_config(recipe, {"env": "escaramuza/DestinyDice-v0", "distill": {"rounds": 1}})
    spec = config.distill
    assert spec is not None and config.hyperparameters.net_arch == [256, 256]
    assert config.seed == 1  # the labelled battles and the weights of decision 0019
    assert (spec.battles, spec.epochs, spec.batch, spec.learning_rate, spec.schedule) == (
        3000,
        20,
        1024,
        1e-3,
        "cosine",
    )
