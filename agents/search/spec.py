"""The ``mcts`` agent's spec: ``mcts``, ``mcts:N``, ``mcts:Nms``, ``mcts:Nit``, a network
guide (``net=``, ``prior=``, ``value=``), root candidates and the rollouts' engine
(:func:`parse_mcts_spec`)."""

from __future__ import annotations

from escaramuza.agents.fast import DEFAULT_ENGINE, ENGINES
from escaramuza.agents.search.agent import AGENT_ITERATIONS, MCTSAgent
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f

#: Guide words: what each takes from the network (prior, value at the cut).
GUIDES = {"net": (True, True), "prior": (True, False), "value": (False, True)}


def _bad(spec: str, why: str = "") -> EscaramuzaError:
    return EscaramuzaError(
        _f(
            "bad MCTS budget {spec}{why}: use mcts, mcts:500 or mcts:500ms (milliseconds a "
            "decision) or mcts:300it (iterations a decision), optionally followed by "
            "net=POLICY (a policy: file or shipped policy guiding the search: its prior at "
            "the root, its value at the horizon cut; prior=POLICY and value=POLICY one role "
            "each), cands=K (the root's K best candidates beside its reference) and "
            "{engines} (the rollouts' engine)",
            repr(spec),
            f" ({why})" if why else "",
            ":" + ", :".join(ENGINES),
        )
    )


def parse_mcts_spec(spec: str, engine: str | None = None, trust: bool = False) -> MCTSAgent:
    """``mcts`` (default iterations), ``mcts:N`` / ``mcts:Nms`` (N ms a decision),
    ``mcts:Nit`` (N iterations a decision); then, in any order, ``net=POLICY`` (the
    network-guided planner: POLICY's prior orders the root and picks its reference, its
    value scores the rollouts cut at the horizon; ``prior=POLICY`` / ``value=POLICY``
    one of the two; agents/search/guided.py), ``cands=K`` (K candidates beside the
    reference) and ``:auto``, ``:fast`` or ``:reference``, the engine of the rollouts
    (``mcts:fast``, ``mcts:96it:reference``; docs/fast-path.md). ``engine`` is the
    default when the spec names none (a playtest's ``--engine reference`` passes it
    on); ``trust`` is ``--trust-policy`` for the guide's file."""
    words = [w.strip() for w in spec.split(":")[1:]]
    budget: list[str] = []
    roles: dict[str, str] = {}
    guide_words: list[str] = []
    candidates = None
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key.lower() in GUIDES:
            prior, valued = GUIDES[key.lower()]
            wanted = [r for r, on in (("prior", prior), ("value", valued)) if on]
            if not value or any(r in roles for r in wanted):
                raise _bad(spec, _("one network a role (prior, value), each with its policy"))
            roles.update(dict.fromkeys(wanted, value))
            guide_words.append(word)
        elif eq and key.lower() == "cands":
            try:
                candidates = int(value)
            except ValueError:
                raise _bad(spec) from None
            if candidates < 1:
                raise _bad(spec, _("cands must be at least 1"))
            guide_words.append(word)
        elif eq:
            raise _bad(spec, _f("unknown option {key}", repr(key)))
        else:
            budget.append(word.lower())
    guide = None
    if roles:
        from escaramuza.agents.search.guided import load_guide

        guide = load_guide(roles.get("prior"), roles.get("value"), trust)
    if budget and budget[-1] in ENGINES:
        engine = budget.pop()
    engine = engine or DEFAULT_ENGINE
    iterations: int | None = None
    budget_ms: float | None = None
    try:
        if len(budget) > 1:
            raise ValueError(spec)
        if not budget:
            iterations = AGENT_ITERATIONS
        elif budget[0].endswith("it"):
            iterations = int(budget[0][:-2])
        else:
            budget_ms = float(budget[0].removesuffix("ms"))
    except ValueError:
        raise _bad(spec) from None
    return MCTSAgent(
        iterations=iterations,
        budget_ms=budget_ms,
        engine=engine,
        candidates=candidates,
        guide=guide,
        guide_spec=":".join(guide_words),
    )
