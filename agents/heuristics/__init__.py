"""Per-ruleset scripted heuristics, found by ruleset id.

Each module ``escaramuza.agents.heuristics.<ruleset_id>`` defines
``choose(state, actions, rng) -> Action`` over the engine state and the
ruleset's exact helpers. :class:`escaramuza.agents.heuristic.HeuristicAgent`
dispatches to it, so the agent name ``heuristic`` works for every ruleset.
"""

from pathlib import Path

from escaramuza.rules.core.jit import register_sources

# The compiled temperaments (``<ruleset>_kernel.py``) are built on the rules' kernels:
# their numba cache is stamped with this tree and the rules' (rules.core.jit).
register_sources(Path(__file__).parent)
