"""Per-ruleset scripted heuristics, found by ruleset id.

Each module ``escaramuza.agents.heuristics.<ruleset_id>`` defines
``choose(state, actions, rng) -> Action`` over the engine state and the
ruleset's exact helpers. :class:`escaramuza.agents.heuristic.HeuristicAgent`
dispatches to it, so the agent name ``heuristic`` works for every ruleset.
"""
