"""The ``mcts`` agent's spec: ``mcts``, ``mcts:N``, ``mcts:Nms``, ``mcts:Nit`` and the
rollouts' engine (:func:`parse_mcts_spec`)."""

from __future__ import annotations

from escaramuza.agents.fast import DEFAULT_ENGINE, ENGINES
from escaramuza.agents.search.agent import MCTSAgent
from escaramuza.rules.core.errors import EscaramuzaError


def parse_mcts_spec(spec: str, engine: str | None = None) -> MCTSAgent:
    """``mcts`` (default iterations), ``mcts:N`` / ``mcts:Nms`` (N ms a decision),
    ``mcts:Nit`` (N iterations a decision), each optionally followed by ``:auto``,
    ``:fast`` or ``:reference``, the engine of the rollouts (``mcts:fast``,
    ``mcts:96it:reference``; docs/fast-path.md). ``engine`` is the default when the
    spec names none (a playtest's ``--engine reference`` passes it on)."""
    words = [w.strip().lower() for w in spec.split(":")[1:]]
    if words and words[-1] in ENGINES:
        engine = words.pop()
    engine = engine or DEFAULT_ENGINE
    if not words:
        return MCTSAgent(engine=engine)
    arg = words[0]
    try:
        if len(words) > 1:
            raise ValueError(spec)
        if arg.endswith("it"):
            return MCTSAgent(iterations=int(arg[:-2]), engine=engine)
        return MCTSAgent(iterations=None, budget_ms=float(arg.removesuffix("ms")), engine=engine)
    except ValueError:
        raise EscaramuzaError(
            f"bad MCTS budget {spec!r}: use mcts, mcts:500 or mcts:500ms (milliseconds a "
            "decision) or mcts:300it (iterations a decision), optionally followed by "
            f":{', :'.join(ENGINES)} (the rollouts' engine)"
        ) from None
