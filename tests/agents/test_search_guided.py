"""The network-guided planner: its spec, its numpy network against the torch policy, the
plain planner's equal when the guide's cut is ``side_value``, and a guide's value really
scoring the rollouts cut at the horizon."""

from __future__ import annotations

import random

import numpy as np
import pytest

from escaramuza.agents import HeuristicAgent, make_agent
from escaramuza.agents.policy import PolicyAgent
from escaramuza.agents.runner import play_battle
from escaramuza.agents.search import MCTS, MCTSAgent
from escaramuza.agents.search.guided import Guide, Network, SideValueGuide
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.rules.core.state import BattleState

SHIPPED = "destiny_dice/emboscada"


def positions(name: str, stops: tuple[int, ...]) -> list[BattleState]:
    scenario = load_scenario(name)
    heuristic = HeuristicAgent()
    states = []
    for stop in stops:
        state = play_battle(
            scenario, {Side.HEROES: heuristic, Side.ENEMIES: heuristic}, seed=stop, stop_after=stop
        )
        assert state.outcome is None and state.pending is not None
        states.append(state)
    return states


@pytest.mark.training
@pytest.mark.parametrize(
    ("spec", "prior", "value", "iterations", "engine", "candidates"),
    [
        (f"mcts:net={SHIPPED}", True, True, 1000, "auto", None),
        (f"mcts:200it:prior={SHIPPED}:fast", True, False, 200, "fast", None),
        (f"mcts:value={SHIPPED}:cands=3:reference", False, True, 1000, "reference", 3),
        (f"mcts:cands=2:50it:NET={SHIPPED}", True, True, 50, "auto", 2),
        (f"mcts:prior={SHIPPED}:value=donjon/duelo", True, True, 1000, "auto", None),
    ],
)
def test_guided_spec(
    spec: str, prior: bool, value: bool, iterations: int, engine: str, candidates: int | None
) -> None:
    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    guide = agent.planner.guide
    assert isinstance(guide, Guide)
    assert (guide.use_prior, guide.use_value) == (prior, value)
    assert guide.prior_net is None or guide.prior_net.meta.ruleset == "destiny_dice"
    if "net=" in spec.lower():
        assert guide.prior_net is guide.value_net  # one network in both roles
    assert agent.planner.iterations == iterations
    assert agent.planner.engine == engine
    assert agent.planner.candidates == candidates
    assert SHIPPED in agent.name


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:net=",
        "mcts:guess=x",
        "mcts:cands=0",
        "mcts:cands=two",
        f"mcts:net={SHIPPED}:value={SHIPPED}",
        f"mcts:prior={SHIPPED}:prior={SHIPPED}",
    ],
)
def test_bad_guided_spec_is_a_user_error(spec: str) -> None:
    with pytest.raises(EscaramuzaError, match="bad MCTS budget"):
        make_agent(spec)


@pytest.mark.training
def test_a_guide_of_another_ruleset_is_refused() -> None:
    agent = make_agent("mcts:8it:value=donjon/duelo:reference")
    (state,) = positions(SHIPPED, (3,))
    with pytest.raises(EscaramuzaError, match="trained on 'donjon'"):
        agent.act(state, random.Random(0))


def test_plain_spec_has_no_guide() -> None:
    agent = make_agent("mcts:40it")
    assert isinstance(agent, MCTSAgent)
    assert agent.planner.guide is None and agent.name == "mcts:40it"


@pytest.mark.training
def test_numpy_network_is_the_torch_policy() -> None:
    """The guide's numpy actor picks what the ``policy:`` agent (torch) picks, and its
    critic gives the torch critic's value."""
    import torch

    network = Network(SHIPPED)
    agent = PolicyAgent(SHIPPED)
    guide = Guide(prior=network)
    for state in positions(SHIPPED, (0, 3, 5, 8, 11)):
        actions = state.ruleset.legal_actions(state)
        prior = guide.prior(state, actions)
        assert prior is not None
        assert max(actions, key=lambda a: prior[a]) == agent.act(state, random.Random(0))
        assert sum(prior.values()) == pytest.approx(1.0)
        pending = state.pending
        assert pending is not None
        obs = network.encoder.encode(state, pending.side)[None]
        with torch.no_grad():
            expected = agent.model.policy.predict_values(torch.as_tensor(obs)).numpy()[:, 0]
        np.testing.assert_allclose(network.values(obs), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.compile
@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_side_value_guide_is_the_plain_planner(engine: str) -> None:
    """A guide whose cut is ``side_value`` changes nothing: the same rollouts, values
    and pick, on the kernel (through the observed rollouts) and on the engine."""
    iterations = 120 if engine == "fast" else 24
    for state in positions("destiny_dice/emboscada", (3, 9, 14)) + positions(
        "sistema_2d10/duelo", (2, 5)
    ):
        plain = MCTS(iterations, horizon=1, root="sweep", expand_after=None, engine=engine)
        guided = MCTS(
            iterations,
            horizon=1,
            root="sweep",
            expand_after=None,
            engine=engine,
            guide=SideValueGuide(),
        )
        a = plain.search(state, random.Random(5))
        b = guided.search(state, random.Random(5))
        assert b.engine == engine
        assert a.iterations == b.iterations
        for action in a.actions:
            assert a.child(action).samples == b.child(action).samples
        assert a.choice() == b.choice()


class _Constant(Guide):
    """A guide whose value of every cut state is ``value`` (no prior)."""

    def __init__(self, value: float) -> None:
        super().__init__()
        self.use_value = True
        self.observes = True
        self.value = value

    def check(self, state: BattleState) -> None:
        return None

    def cut_state(self, sim: BattleState, side: Side) -> float:
        return self.value

    def cut_batch(self, obs: np.ndarray | None, own: np.ndarray, foe: np.ndarray) -> np.ndarray:
        assert obs is not None and obs.shape[:2] == own.shape and obs.any()
        return np.full(own.shape, self.value)


@pytest.mark.compile
@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_guide_scores_the_cut_rollouts(engine: str) -> None:
    """Every rollout cut at the horizon scores the guide's value; the ended ones ±1 or a
    draw's value as before. Horizon 1 from the ambush's first decision: most are cut."""
    (state,) = positions("destiny_dice/emboscada", (1,))
    plain = MCTS(
        40, horizon=1, root="sweep", expand_after=None, engine=engine, halving=False, settle=0
    )
    guided = MCTS(
        40,
        horizon=1,
        root="sweep",
        expand_after=None,
        engine=engine,
        halving=False,
        settle=0,
        guide=_Constant(0.375),
    )
    a = plain.search(state, random.Random(2))
    b = guided.search(state, random.Random(2))
    assert a.seeds == b.seeds
    cut = 0
    for action in a.actions:
        samples = zip(a.child(action).samples, b.child(action).samples, strict=True)
        for seed, (x, y) in zip(a.seeds, samples, strict=False):
            end, _ = plain.rollout(state, action, seed)  # the same rollout, on the engine
            if end.outcome is None:
                assert y == 0.375
                cut += 1
            else:
                assert y == x
    assert cut > 0


@pytest.mark.training
def test_guided_prior_sets_the_reference_and_the_order() -> None:
    """The root's reference (the pick unless another action is shown better) is the
    network's most probable action, the candidates in the order of its probabilities."""
    guide = Guide(prior=Network(SHIPPED))
    (state,) = positions(SHIPPED, (3,))
    actions = state.ruleset.legal_actions(state)
    prior = guide.prior(state, actions)
    assert prior is not None
    result = MCTS(
        6, horizon=1, root="sweep", expand_after=None, engine="reference", guide=guide
    ).search(state, random.Random(0))
    assert result.heuristic == max(actions, key=lambda a: prior[a])
    assert [prior[a] for a in result.candidates] == sorted(prior.values(), reverse=True)
