"""The kernel boundary: no out-of-range value reaches compiled code (docs/fast-path.md,
"The kernel boundary").

A kernel indexes its arrays and tables by the numbers it exports, without bounds checks,
and adds them in int64; the engine's Python does neither. So a kernel must refuse
(``KernelRefusal``, the driver then plays on the engine) every state or scenario holding a
value outside the range it computes with — and play the rest exactly as the engine does.
These tests push mid-battle states of every ruleset to extreme values and check just that,
rollout by rollout; and the three cases an audit found: a Destiny Dice PV of a million
(an O(PV) table), a 19-digit damage modifier (an int64 overflow in the export) and a huge
negative PV (a read far outside a table: a segmentation fault, checked in a subprocess).
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from escaramuza.agents import make_agent
from escaramuza.agents.fast import choose_engine, compare, find_kernel, play_records
from escaramuza.agents.runner import play_battle
from escaramuza.rules.core.kernel import BOUND, KernelRefusal, check_range
from escaramuza.rules.core.model import Action, Condition, Side, Status
from escaramuza.rules.core.scenario import Scenario, load_scenario
from escaramuza.rules.core.state import BattleState
from tests.fastpath_helpers import engine_rollout, rollout_row

pytestmark = pytest.mark.compile

# -- the shared check ------------------------------------------------------------------


def test_check_range_names_the_field_and_the_range() -> None:
    check_range(12, 0, 12, "brann: pv")
    with pytest.raises(KernelRefusal, match=r"^brann: pv -5 is outside 0–12$"):
        check_range(-5, 0, 12, "brann: pv")
    with pytest.raises(KernelRefusal, match=r"pv 10{30} is outside 0–2\*\*40"):
        check_range(10**30, 0, BOUND, "pv")  # a Python int no int64 holds
    with pytest.raises(KernelRefusal, match=r"order\[1\] 7 is outside 0–3"):
        check_range((0, 7), 0, 3, "order")
    with pytest.raises(ValueError, match="not an integer"):
        check_range(1.5, 0, 3, "pv", ValueError)


# -- mid-battle states pushed to extremes ------------------------------------------------

#: One shipped scenario per ruleset, the positions (decisions played) the states come from,
#: and the condition names tried on a combatant (the kernel's own and one it does not know).
CASES: dict[str, tuple[str, tuple[int, ...], tuple[str, ...]]] = {
    "destiny_dice": (
        "destiny_dice/kaspar-tiroteo",
        (2, 7),
        ("derribado", "ciego", "asustado", "desconocida"),
    ),
    "cairn": ("cairn/duelo_bugbear", (1, 4), ("privado", "desjarretado", "desconocida")),
    "donjon": ("donjon/duelo", (3, 8), ("inconsciente", "quebrado", "desconocida")),
    "sistema_2d10": (
        "sistema_2d10/duelo",
        (2, 6),
        ("aturdido", "sangrado", "derribado", "moribundo", "desconocida"),
    ),
}
SEEDS = (3, 2**40 + 7)
MAX_DECISIONS = 400
HUGE = 2**62

#: A resource's value from its maximum.
RESOURCE_VALUES: tuple[Callable[[int], int], ...] = (
    lambda top: -1,
    lambda top: -HUGE,
    lambda top: 0,
    lambda top: top,
    lambda top: top + 1,
    lambda top: HUGE,
)
#: A counter's value from its natural top (the round limit, the last turn).
COUNTER_VALUES: tuple[Callable[[int], int], ...] = (
    lambda top: -1,
    lambda top: -HUGE,
    lambda top: 0,
    lambda top: 1,
    lambda top: top,
    lambda top: top + 1,
    lambda top: HUGE,
    lambda top: 10**30,
)
CONDITION_VALUES = (-1, 0, 1, 99, -HUGE, HUGE)


@cache
def _positions(ruleset: str) -> tuple[BattleState, ...]:
    """Engine states waiting on a decision, a few decisions into heuristic battles."""
    name, stops, _ = CASES[ruleset]
    scenario = load_scenario(name)
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    out = []
    for stop in stops:
        state = play_battle(scenario, agents, seed=stop, stop_after=stop, narrate=False)
        assert state.outcome is None and state.pending is not None, (name, stop)
        out.append(state)
    return tuple(out)


def _order_field(state: BattleState) -> str | None:
    """Where the state keeps who acts next: the initiative order, or Cairn's queue."""
    if state.order:
        return "order"
    return "queue" if "queue" in state.data else None


def _mutate(state: BattleState, mutation: tuple[Any, ...]) -> None:
    """Apply one mutation (drawn by :func:`_mutations`) to ``state`` (a clone)."""
    kind = mutation[0]
    combatants = state.combatants
    if kind == "resource":
        _, i, k, value = mutation
        c = combatants[i % len(combatants)]
        name = sorted(c.resources)[k % len(c.resources)]
        c.resources[name] = RESOURCE_VALUES[value](c.maxima[name])
    elif kind == "round":
        state.round = COUNTER_VALUES[mutation[1]](state.scenario.round_limit)
    elif kind == "turn":
        state.turn = COUNTER_VALUES[mutation[1]](max(len(state.order) - 1, 0))
    elif kind == "order":
        _mutate_order(state, *mutation[1:])
    elif kind == "condition":
        _, i, k, value = mutation
        c = combatants[i % len(combatants)]
        names = CASES[state.scenario.ruleset.id][2]
        name = names[k % len(names)]
        old = c.conditions.get(name)
        until = old.until if old is not None else None
        c.conditions[name] = Condition(name, value=CONDITION_VALUES[value], until=until)
    elif kind == "count":
        # Donjon's initiative count and a combatant's carried dice.
        _, i, value = mutation
        die = getattr(state.options, "die_size", 20)
        if "count" in state.data:
            state.data["count"] = COUNTER_VALUES[value](die)
        c = combatants[i % len(combatants)]
        if "bonus" in c.data:
            c.data["bonus"] = COUNTER_VALUES[value](die)
        if "ayuda" in c.data or state.scenario.ruleset.id == "destiny_dice":
            c.data["ayuda"] = COUNTER_VALUES[value](2)


def _mutate_order(state: BattleState, op: str, i: int, j: int) -> None:
    """Swap, replace (by another combatant or an unknown id), repeat or drop an entry of
    the initiative order (Cairn: of the queue of declarers)."""
    where = _order_field(state)
    if where is None:
        return
    entries = list(state.order if where == "order" else state.data["queue"])
    ids = [c.id for c in state.combatants]
    if not entries:
        entries = [ids[i % len(ids)]]
    i, j = i % len(entries), j % len(ids)
    if op == "swap":
        entries[i], entries[-1] = entries[-1], entries[i]
    elif op == "replace":
        entries[i] = ids[j]
    elif op == "unknown":
        entries[i] = "nadie"
    elif op == "twice":
        entries.append(entries[i])
    else:
        del entries[i]
    if where == "order":
        state.order = tuple(entries)
    else:
        state.data["queue"] = tuple(entries)


def _mutations() -> st.SearchStrategy[tuple[Any, ...]]:
    index = st.integers(0, 7)
    return st.one_of(
        st.tuples(st.just("resource"), index, index, st.integers(0, len(RESOURCE_VALUES) - 1)),
        st.tuples(st.just("round"), st.integers(0, len(COUNTER_VALUES) - 1)),
        st.tuples(st.just("turn"), st.integers(0, len(COUNTER_VALUES) - 1)),
        st.tuples(
            st.just("order"),
            st.sampled_from(["swap", "replace", "unknown", "twice", "drop"]),
            index,
            index,
        ),
        st.tuples(st.just("condition"), index, index, st.integers(0, len(CONDITION_VALUES) - 1)),
        st.tuples(st.just("count"), index, st.integers(0, len(COUNTER_VALUES) - 1)),
    )


def _kernel_or_engine(
    state: BattleState, actions: list[Action], horizon: int | None, legal: bool
) -> None:
    """The kernel's rollouts of ``state``: a clean refusal, or exactly the engine's
    (``MCTS.rollout``), rollout by rollout. ``legal``: the actions are the engine's legal
    list for this state (else the engine could not list them, and only a crash of the
    kernel is a failure)."""
    kernel = find_kernel(state.ruleset.id)
    assert kernel is not None
    try:
        batch = kernel.rollouts(state, actions, list(SEEDS), horizon, None, MAX_DECISIONS)
    except KernelRefusal:
        return
    if not legal:
        return
    for a, action in enumerate(actions):
        for s, seed in enumerate(SEEDS):
            try:
                expected = engine_rollout(state, action, seed, horizon, None, MAX_DECISIONS)
            except Exception as exc:  # any engine failure is the finding
                pytest.fail(f"the kernel played a state the engine cannot ({exc!r})")
            assert rollout_row(batch, a, s) == expected, (action, seed)


@pytest.mark.parametrize("ruleset", sorted(CASES))
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_extreme_states_are_refused_or_played_as_the_engine_plays_them(
    ruleset: str, data: st.DataObject
) -> None:
    positions = _positions(ruleset)
    base = positions[data.draw(st.integers(0, len(positions) - 1), label="position")]
    state = base.clone()
    for mutation in data.draw(st.lists(_mutations(), max_size=3), label="mutations"):
        _mutate(state, mutation)
    horizon = data.draw(st.sampled_from([None, 2]), label="horizon")
    try:
        actions = state.ruleset.legal_actions(state)[:4]
        legal = True
    except Exception:  # a state the engine cannot list actions for
        actions = base.ruleset.legal_actions(base)[:4]
        legal = False
    _kernel_or_engine(state, actions, horizon, legal)


# -- a PV of a million (Destiny Dice) ---------------------------------------------------


def _with_resource(scenario: Scenario, cid: str, name: str, value: int) -> Scenario:
    """``scenario`` with combatant ``cid``'s resource and its maximum set to ``value`` —
    built as an object, as a program (the web page, a test) may, whatever limits the
    scenario files put on it."""
    combatants = []
    for c in scenario.combatants:
        if c.id == cid:
            c = c.clone()
            c.maxima = {**c.maxima, name: value}
            c.resources[name] = value
        combatants.append(c)
    return dataclasses.replace(scenario, combatants=tuple(combatants))


def test_a_million_pv_plays_on_the_kernel_as_on_the_engine() -> None:
    from escaramuza.agents.heuristics.destiny_dice_kernel import KERNEL
    from escaramuza.rules.core.dialect import WEAPON
    from escaramuza.rules.destiny_dice import kernel as dk
    from escaramuza.rules.destiny_dice.exact import drop_probability

    scenario = _with_resource(
        load_scenario("destiny_dice/brann-vs-saqueador"), "brann", "pv", 1_000_000
    )
    agents = ["heuristic", "heuristic:tactician"]
    assert KERNEL.refusal(scenario, agents) is None
    s = dk.export_scenario(scenario).static
    weapon, zones, drop = s[WEAPON], s[dk.ZONES], s[dk.DROP]
    # Sized by the most PV one attack takes, not by the PV.
    assert drop.shape[1] <= 64, drop.shape
    nw = weapon.shape[1]
    _, profiles = dk.attack_profiles(scenario, nw, int(zones[:, dk.ZONE.COVER].max()))
    last = drop.shape[1] - 1
    for p, pid in profiles.items():
        for pv in (0, 1, last, last + 1, 999_999, 1_000_000, BOUND):
            # attack_score's clamped read
            assert drop[pid, min(pv, last)] == drop_probability(p, pv), (p, pv)
    assert [str(m) for m in compare(scenario, agents, [1, 2, 3])] == []


def test_a_pv_past_the_bound_is_refused_naming_it() -> None:
    from escaramuza.agents.heuristics.destiny_dice_kernel import KERNEL

    scenario = _with_resource(
        load_scenario("destiny_dice/brann-vs-saqueador"), "brann", "pv", 9_000_000_000_000_000_000
    )
    agents = ["heuristic", "heuristic"]
    why = KERNEL.refusal(scenario, agents)
    assert why is not None and "brann: maximum pv 9000000000000000000 is outside 1–2**40" in why
    assert choose_engine("auto", scenario, agents) == ("reference", why)


# -- a temperament the compiled temperaments do not know ---------------------------------


@pytest.mark.parametrize("ruleset", sorted(CASES))
def test_an_unknown_temperament_plays_the_tactician_as_on_the_engine(ruleset: str) -> None:
    # A loaded scenario knows only KNOWN_TEMPERAMENTS; one built in code may hold any
    # name, which every engine's choose plays as the tactician.
    scenario = load_scenario(CASES[ruleset][0])
    combatants = [c.clone() for c in scenario.combatants]
    for c in combatants:
        c.temperament = "berserk"
    scenario = dataclasses.replace(scenario, combatants=tuple(combatants))
    agents = ["heuristic", "heuristic"]
    assert choose_engine("fast", scenario, agents) == ("fast", None)
    assert [str(m) for m in compare(scenario, agents, [1, 2, 3])] == []


# -- a combatant out of the fight from the start ------------------------------------------


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("destiny_dice/emboscada", Status.DOWN),
        ("destiny_dice/emboscada", Status.DEFEATED),
        ("donjon/emboscada", Status.DOWN),
        ("donjon/emboscada", Status.DEAD),
        ("cairn/emboscada_goblin", Status.DOWN),
        ("cairn/emboscada_goblin", Status.DEAD),
    ],
)
def test_a_combatant_out_from_the_start_is_recorded_as_the_engine_records_it(
    name: str, status: Status
) -> None:
    # record_from_events: knocked out in round 0 (and dead if so) before any event.
    scenario = load_scenario(name)
    combatants = [c.clone() for c in scenario.combatants]
    heroes = [c for c in combatants if c.side is Side.HEROES]
    enemies = [c for c in combatants if c.side is Side.ENEMIES]
    (heroes[1:] or enemies[1:])[0].status = status
    scenario = dataclasses.replace(scenario, combatants=tuple(combatants))
    assert [str(m) for m in compare(scenario, ["heuristic", "heuristic"], [1, 2, 3])] == []


# -- a 19-digit damage modifier (Sistema 2d10) ------------------------------------------


def test_a_nineteen_digit_modifier_is_refused_naming_the_field() -> None:
    scenario = load_scenario("sistema_2d10/duelo")
    combatants = []
    for c in scenario.combatants:
        if c.id == "diego":
            c = c.clone()
            prof = c.data["profile"]
            weapon = prof.weapons[0]
            huge = dataclasses.replace(
                weapon.damage, modifier=9_000_000_000_000_000_000, text="1d10+9000000000000000000"
            )
            c.data["profile"] = dataclasses.replace(
                prof, weapons=(dataclasses.replace(weapon, damage=huge), *prof.weapons[1:])
            )
        combatants.append(c)
    scenario = dataclasses.replace(scenario, combatants=tuple(combatants))
    agents = ["heuristic", "heuristic"]
    used, why = choose_engine("auto", scenario, agents)
    assert used == "reference"
    assert why is not None and "diego" in why and "damage modifier" in why, why
    assert "9000000000000000000" in why
    with pytest.raises(KernelRefusal, match="damage modifier"):
        play_records(scenario, "heuristic", "heuristic", 1, 0, 2)


# -- a huge negative PV: a refusal, not a signal ------------------------------------------

_NEGATIVE_PV = textwrap.dedent("""
    from escaramuza.agents import make_agent
    from escaramuza.agents.runner import play_battle
    from escaramuza.agents.suggest import suggest
    from escaramuza.rules.core.model import Side
    from escaramuza.rules.core.scenario import load_scenario

    scenario = load_scenario("destiny_dice/emboscada")
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    state = play_battle(scenario, agents, seed=2, stop_after=2, narrate=False)
    for c in state.combatants:
        c.resources["pv"] = -10**15
    result = suggest(state, budget_ms=None, iterations=24, seed=1, engine="auto", threads=1)
    print("engine:", result.engine, "|", result.engine_refusal)
""")


def test_a_huge_negative_pv_is_refused_not_a_crash() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _NEGATIVE_PV],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}: {proc.stderr[-2000:]}"
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "engine: reference" in proc.stdout, proc.stdout
    assert "pv -1000000000000000 is outside" in proc.stdout, proc.stdout


# -- an action the kernel cannot name -----------------------------------------------------
#: A scenario of each ruleset whose first decisions attack with a weapon and (but in
#: Donjon, whose moves name a foe) move to a zone.
AMBUSHES = {
    "destiny_dice": "destiny_dice/emboscada",
    "cairn": "cairn/emboscada_goblin",
    "donjon": "donjon/emboscada",
    "sistema_2d10": "sistema_2d10/escuadra",
}


@pytest.mark.parametrize("ruleset", sorted(CASES))
def test_an_action_with_a_name_the_scenario_lacks_is_refused_naming_the_field(
    ruleset: str,
) -> None:
    """Every legal action has its own legal-list row; the same action with a verb, actor,
    target, zone, item or option that the scenario does not have (an empty name included)
    is none of the engine's legal actions, and the kernel refuses it naming that field."""
    kernel = find_kernel(ruleset)
    assert kernel is not None
    fields = ("verb", "actor", "target", "zone", "item")
    if ruleset in ("donjon", "sistema_2d10"):  # the kernels that read an action's option
        fields += ("option",)
    tried = set()
    scenario = load_scenario(AMBUSHES[ruleset])
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    for stop in range(0, 40, 3):
        state = play_battle(scenario, agents, seed=stop, stop_after=stop, narrate=False)
        if state.pending is None:
            continue
        exported = kernel.exported(state.scenario)
        actions = state.ruleset.legal_actions(state)
        rows = [tuple(kernel.action_row(exported, state, a)) for a in actions]
        assert len(set(rows)) == len(rows), "two legal actions share a row"
        for action in actions:
            for field in fields:
                if getattr(action, field) is None:
                    continue
                for bad in ("nadie", ""):
                    wrong = dataclasses.replace(action, **{field: bad})
                    with pytest.raises(KernelRefusal, match=f"unknown {field} '{bad}'"):
                        kernel.action_row(exported, state, wrong)
                tried.add(field)
    assert {"verb", "actor", "target", "item"} <= tried, tried
    assert ruleset == "donjon" or "zone" in tried, tried
