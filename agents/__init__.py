"""Agents that play battles: random, scripted heuristics, search, learned policies."""

from __future__ import annotations

from escaramuza.agents.base import Agent, FirstLegalAgent, RandomAgent
from escaramuza.agents.heuristic import TEMPERAMENTS, HeuristicAgent
from escaramuza.rules.core.errors import UnknownNameError
from escaramuza.rules.core.i18n import _f

AGENT_NAMES = (
    "random",
    "first-legal",
    "heuristic",
    *(f"heuristic:{t}" for t in TEMPERAMENTS),
    "mcts",
)


def make_agent(spec: str | Agent, trust_policy: bool = False, engine: str | None = None) -> Agent:
    """An agent from its CLI name or an agent object.

    Names: ``random``; ``first-legal`` (always the first legal action: a baseline);
    ``heuristic`` (each combatant's scenario temperament);
    ``heuristic:T`` or just ``T`` for a temperament T overriding the scenario's;
    ``mcts``, ``mcts:MS`` / ``mcts:Nit`` for the search planner (agents/search/),
    optionally ending in ``:auto`` / ``:fast`` / ``:reference``, the engine of its
    rollouts (``engine`` is the default for a spec naming none: docs/fast-path.md);
    ``policy:PATH`` for a trained model, loaded without unpickling unless
    ``trust_policy`` (``--trust-policy``, agents/policy/).
    """
    if not isinstance(spec, str):
        return spec
    if spec == "random":
        return RandomAgent()
    if spec == "first-legal":
        return FirstLegalAgent()
    if spec == "heuristic":
        return HeuristicAgent()
    if spec == "mcts" or spec.startswith("mcts:"):
        from escaramuza.agents.search import parse_mcts_spec

        return parse_mcts_spec(spec, engine, trust_policy)
    if spec.startswith("policy:"):  # a trained model (agents/policy/, docs/training.md)
        from escaramuza.agents.policy import parse_policy_spec

        return parse_policy_spec(spec, trust=trust_policy)
    temperament = spec.split(":", 1)[1] if spec.startswith("heuristic:") else spec
    if temperament in TEMPERAMENTS and spec != "random":
        return HeuristicAgent(temperament)
    known = ", ".join((*AGENT_NAMES, *TEMPERAMENTS[:-1]))
    raise UnknownNameError(_f("unknown agent {agent} (known: {known})", repr(spec), known))


__all__ = [
    "AGENT_NAMES",
    "TEMPERAMENTS",
    "Agent",
    "FirstLegalAgent",
    "HeuristicAgent",
    "RandomAgent",
    "make_agent",
]
