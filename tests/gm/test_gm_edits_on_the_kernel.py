"""Every edit a GM can make in ``gm`` leaves a state each ruleset's kernel resumes: the
suggestion after it is searched on the fast engine and is the reference engine's, rollout
for rollout, on an iteration budget."""

from __future__ import annotations

import io

import pytest

from escaramuza.agents.suggest import suggest
from escaramuza.gm import GMSession, run_session
from escaramuza.rules.core.state import BattleState

#: A battle per ruleset with several combatants a side, so an edit never ends it.
SCENARIOS = (
    "destiny_dice/emboscada",
    "donjon/emboscada",
    "cairn/bandidos_destacamento",
    "sistema_2d10/escuadra",
)


def session(scenario: str, lines: list[str]) -> GMSession:
    return run_session(scenario, io.StringIO("\n".join(lines) + "\n"), io.StringIO(), False, seed=1)


def edits_of(state: BattleState) -> list[str]:
    """One of each edit command, on a combatant who is not the one deciding."""
    assert state.pending is not None
    rs = state.ruleset
    other = next(c for c in state.combatants if c.id != state.pending.actor)
    foes = [c for c in state.combatants if c.side != other.side]
    out = []
    for key, value in other.resources.items():
        top = other.maxima.get(key)
        out.append(f"set {other.id} {key} {(top if top is not None else value) // 2}")
    out.append(f"move {other.id} {state.battlefield.neighbours(other.zone)[-1]}")
    out.append(f"status {foes[-1].id} down")
    out.append(f"status {other.id} down")
    for name in rs.conditions:
        # A value where the ruleset reads one (Destiny Dice's Envenenado X is dice; a
        # Sistema 2d10 stun's or limb's MS is negative).
        for value in ("", " 2", " -2"):
            try:
                rs.condition_from_gm(name, value.strip() or None)
            except ValueError:
                continue
            out.append(f"cond add {other.id} {name}{value}")
    return out


def ranking(state: BattleState, engine: str) -> tuple[object, ...]:
    result = suggest(state, iterations=48, budget_ms=None, engine=engine)
    assert result.engine == engine, result.engine_refusal
    return (
        result.verdict,
        tuple(s.to_dict() for s in result.items),
    )


@pytest.mark.compile
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_gm_edit_then_suggest_on_the_kernel_is_the_engines(scenario: str) -> None:
    edits = edits_of(session(scenario, []).state)
    assert any(e.startswith("cond add") for e in edits) and any(e.startswith("set") for e in edits)
    for edit in edits:
        state = session(scenario, [edit]).state
        assert state.outcome is None and state.pending is not None, edit
        assert ranking(state, "fast") == ranking(state, "reference"), edit
