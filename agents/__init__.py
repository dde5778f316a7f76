"""Agents that play battles: random, scripted heuristics, search, learned policies."""

from __future__ import annotations

from escaramuza.agents.base import Agent, RandomAgent
from escaramuza.agents.heuristic import HeuristicAgent
from escaramuza.rules.core.errors import UnknownNameError

AGENT_NAMES = ("random", "heuristic")


def make_agent(spec: str | Agent) -> Agent:
    """An agent from its CLI name (``random``, ``heuristic``) or an agent object."""
    if not isinstance(spec, str):
        return spec
    if spec == "random":
        return RandomAgent()
    if spec == "heuristic":
        return HeuristicAgent()
    raise UnknownNameError(f"unknown agent {spec!r} (known: {', '.join(AGENT_NAMES)})")


__all__ = ["AGENT_NAMES", "Agent", "HeuristicAgent", "RandomAgent", "make_agent"]
