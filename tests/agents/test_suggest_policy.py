"""``suggest(policy=…)`` / ``escaramuza suggest --policy``: the policy's probability column."""

from __future__ import annotations

import dataclasses
import json

import pytest

pytest.importorskip("sb3_contrib")

from escaramuza.agents import make_agent
from escaramuza.agents.policy import PolicyAgent
from escaramuza.agents.suggest import SuggestError, suggest
from escaramuza.cli import main
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.ruleset import new_battle
from escaramuza.rules.core.scenario import load_scenario

pytestmark = pytest.mark.training

SCENARIO = "destiny_dice/emboscada"


@pytest.mark.parametrize(
    "given", ["object", "policy:destiny_dice/emboscada", "destiny_dice/emboscada"]
)
def test_policy_column_is_the_agents_distribution_over_legal_actions(given: str) -> None:
    state = new_battle(load_scenario(SCENARIO), RandomRoller(4))
    agent = make_agent("policy:destiny_dice/emboscada")
    assert isinstance(agent, PolicyAgent)
    expected = dict(agent.action_probabilities(state))
    policy = agent if given == "object" else given
    result = suggest(state, iterations=10, budget_ms=None, policy=policy)
    legal = state.ruleset.legal_actions(state)
    assert {s.action for s in result.items} == set(legal) and len(result.items) == len(legal)
    probs = [s.policy_probability for s in result.items]
    assert all(p is not None and 0.0 <= p <= 1.0 for p in probs)
    assert sum(probs) == pytest.approx(1.0, abs=1e-5)  # type: ignore[arg-type]
    for s in result.items:
        assert s.policy_probability == pytest.approx(expected[s.action], abs=1e-12)
    doc = json.loads(json.dumps(result.to_dict()))
    assert doc["policy"] == "policy:destiny_dice/emboscada"
    for row, s in zip(doc["suggestions"], result.items, strict=True):
        assert row["policy_probability"] == round(expected[s.action], 4)
    header = result.table().splitlines()[2]
    assert "POLICY" in header.split()


def test_without_a_policy_there_is_no_column_and_no_key() -> None:
    state = new_battle(load_scenario(SCENARIO), RandomRoller(4))
    result = suggest(state, iterations=5, budget_ms=None)
    assert all(s.policy_probability is None for s in result.items)
    doc = result.to_dict()
    assert "policy" not in doc
    assert all("policy_probability" not in row for row in doc["suggestions"])
    assert "POLICY" not in result.table()


def test_an_agent_without_probabilities_is_refused() -> None:
    state = new_battle(load_scenario(SCENARIO), RandomRoller(4))
    with pytest.raises(SuggestError, match="heuristic gives no action probabilities"):
        suggest(state, iterations=5, budget_ms=None, policy=make_agent("heuristic"))


def test_a_model_with_other_observation_sizes_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import escaramuza.agents.policy.agent as policy_module

    model, meta = policy_module.load_model(SCENARIO)
    # The same weights claimed for one more zone slot: the encoder's size no longer fits.
    wider = dataclasses.replace(meta, max_zones=meta.max_zones + 1)
    monkeypatch.setattr(policy_module, "load_model", lambda path, trust=False: (model, wider))
    with pytest.raises(EscaramuzaError, match=r"policy x\.zip: the model expects observations"):
        PolicyAgent("x.zip")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("policy:donjon/duelo", "policy donjon/duelo: ruleset: trained on 'donjon', but "),
        (
            "sistema_2d10/escuadra",
            "policy sistema_2d10/escuadra: ruleset: trained on 'sistema_2d10', but ",
        ),
        ("policy:no/such", "policy no/such: no such model file"),
    ],
)
def test_cli_mismatched_policy_exits_2_naming_it(
    capsys: pytest.CaptureFixture[str], spec: str, message: str
) -> None:
    code = main(["suggest", SCENARIO, "--iterations", "5", "--policy", spec])
    out, err = capsys.readouterr()
    assert code == 2
    assert message in err
    assert "Traceback" not in err and out == ""


def test_cli_policy_column_and_json_key(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["suggest", SCENARIO, "--iterations", "8", "--policy", "destiny_dice/emboscada"]
    assert main(argv) == 0
    out, _ = capsys.readouterr()
    assert "POLICY" in out.splitlines()[2].split()
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    total = sum(row["policy_probability"] for row in doc["suggestions"])
    assert total == pytest.approx(1.0, abs=len(doc["suggestions"]) * 5e-5)
