"""``train --limits``: the envs' limits fitted to a run's scenarios, kept with the run and
its policy, and a policy refusing a scenario beyond them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("sb3_contrib")

from escaramuza.agents import make_agent
from escaramuza.agents.policy import read_meta
from escaramuza.agents.runner import play_battle
from escaramuza.agents.search.guided import load_guide
from escaramuza.cli import main
from escaramuza.envs.codec import ActionCodec
from escaramuza.envs.common import (
    STANDARD_LIMITS,
    EnvLimitError,
    EnvLimits,
    check_limits,
    fitted_limits,
    needed_limits,
)
from escaramuza.envs.observation import ObservationEncoder
from escaramuza.rules import get_ruleset
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.ruleset import new_battle
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from escaramuza.training.config import load_config
from escaramuza.training.envs import run_limits, with_fitted_limits
from escaramuza.training.train import check_config
from tests.training.tiny import tiny_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", shipped_scenarios())
def test_fitted_limits_are_the_least_the_env_accepts(name: str) -> None:
    scenario = load_scenario(name)
    need = needed_limits(scenario)
    # Combatants and zones as the file lists them (no shipped scenario skips an index).
    data = yaml.safe_load((ROOT / "scenarios" / f"{name}.yaml").read_text(encoding="utf-8"))
    assert need.max_combatants == len(data["combatants"])
    assert need.max_zones == len(data["battlefield"]["zones"])
    check_limits(scenario, *need)
    for i, field in enumerate(EnvLimits._fields):
        if need[i] == 0:
            continue
        smaller = list(need)
        smaller[i] -= 1
        with pytest.raises(EnvLimitError, match=field) as caught:
            check_limits(scenario, *smaller)
        assert (caught.value.limit, caught.value.needed) == (field, need[i])
    assert all(a <= b for a, b in zip(need, STANDARD_LIMITS, strict=True))


def test_fitted_limits_of_several_scenarios_take_each_of_them() -> None:
    names = [
        "destiny_dice/emboscada",
        "destiny_dice/kaspar-tiroteo",
        "destiny_dice/brann-vs-saqueador",
    ]
    scenarios = [load_scenario(n) for n in names]
    fit = fitted_limits(scenarios)
    for scenario in scenarios:
        check_limits(scenario, *fit)
    for i in range(3):
        assert fit[i] == max(needed_limits(s)[i] for s in scenarios) or fit[i] == 1
    with pytest.raises(ValueError, match="at least one scenario"):
        fitted_limits([])


def _config(**extra: object) -> object:
    return load_config(None, {"env": "escaramuza/Donjon-v0", **extra})


def test_run_limits_standard_fit_and_given() -> None:
    assert run_limits(_config()) == STANDARD_LIMITS  # type: ignore[arg-type]
    fit = _config(limits="fit", scenarios=["donjon/duelo"])
    # donjon/duelo: two swordsmen, three zones, one weapon each.
    assert run_limits(fit) == EnvLimits(2, 3, 1)  # type: ignore[arg-type]
    # No scenario named: the ruleset's default one.
    default = load_scenario(get_ruleset("donjon").default_scenario)
    assert run_limits(_config(limits="fit")) == needed_limits(default)  # type: ignore[arg-type]
    resolved = with_fitted_limits(fit)  # type: ignore[arg-type]
    assert resolved.limits != "fit"
    assert run_limits(resolved) == EnvLimits(2, 3, 1)
    given = _config(limits={"max_combatants": 4, "max_zones": 5, "max_items": 2})
    assert run_limits(given) == EnvLimits(4, 5, 2)  # type: ignore[arg-type]


def test_given_limits_below_a_scenario_are_refused_by_name() -> None:
    config = _config(
        limits={"max_combatants": 4, "max_zones": 8, "max_items": 2},
        scenarios=["donjon/emboscada"],
    )
    with pytest.raises(EscaramuzaError, match=r"limits\.max_combatants: 4 .*need 10"):
        check_config(config)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("limits", "field"),
    [
        ({"max_combatants": 1, "max_zones": 3, "max_items": 1}, "max_combatants"),
        ({"max_combatants": 2, "max_zones": 0, "max_items": 1}, "max_zones"),
        ({"max_combatants": 2, "max_zones": 3}, "max_items"),
        ("narrow", "limits"),
    ],
)
def test_bad_limits_in_a_config_name_the_field(limits: object, field: str) -> None:
    with pytest.raises(EscaramuzaError, match=field):
        _config(limits=limits)


@pytest.mark.training
def test_a_fitted_run_keeps_its_limits_and_its_policy_refuses_a_larger_scenario(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    config = tiny_config(tmp_path, timesteps=256, eval_battles=4)
    args = ["train", "--env", "escaramuza/Donjon-v0", "--scenario", "donjon/duelo"]
    args += ["--limits", "fit", "--config", str(config), "--no-progress", "--out", str(run)]
    assert main(args) == 0
    saved = yaml.safe_load((run / "config.yaml").read_text(encoding="utf-8"))
    assert saved["limits"] == {"max_combatants": 2, "max_zones": 3, "max_items": 1}
    for name in ("policy.zip", "final.zip", "best/policy.zip"):
        meta = read_meta(run / name)
        assert meta is not None
        assert (meta.max_combatants, meta.max_zones, meta.max_items) == (2, 3, 1)
    agent = make_agent(f"policy:{run / 'policy.zip'}")
    ruleset = load_scenario("donjon/duelo").ruleset
    narrow = ObservationEncoder(ruleset, 2, 3).size
    assert agent.model.observation_shape == (narrow,)  # type: ignore[attr-defined]
    assert narrow < ObservationEncoder(ruleset, 16, 16).size
    assert agent.model.n_actions == ActionCodec(ruleset, 2, 3, 1).n  # type: ignore[attr-defined]
    state = play_battle(
        load_scenario("donjon/duelo"),
        {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: agent},
        seed=4,
        validate=True,
    )
    assert state.outcome is not None
    # The planner guided by it reads the rollouts' ends under the policy's own limits.
    guided = make_agent(f"mcts:40it:net={run / 'policy.zip'}")
    state = play_battle(
        load_scenario("donjon/duelo"),
        {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: guided},
        seed=4,
        stop_after=6,
    )
    assert guided.last is not None  # type: ignore[attr-defined]  # it searched, guided
    capsys.readouterr()
    code = main(["play", "donjon/emboscada", "--enemies", f"policy:{run / 'policy.zip'}"])
    err = capsys.readouterr().err
    assert code == 2
    assert "max_combatants=2" in err and "'donjon/emboscada' needs 10" in err
    assert "Traceback" not in err
    # The planner guided by it refuses that battle too, before its network sees it.
    guide = load_guide(str(run / "policy.zip"), None)
    battle = new_battle(load_scenario("donjon/emboscada"), RandomRoller(0))
    with pytest.raises(EscaramuzaError, match=r"mcts guide .* max_combatants=2 .* needs 10"):
        guide.check(battle)
