"""The Destiny Dice kernel's own cases: what the kernel equality suite over every
ruleset (tests/agents/test_kernel_equality.py: shipped scenarios × agent pairings, odd
seeds, generated scenarios, rollouts, refusals) does not reach.

The generated scenarios of this ruleset (``_scenario``, drawn by that suite via
tests/kernel_cases.py); a battle nobody can fight; rollouts resumed from DD-08's
reaction; the refusal of a keep-highest heal. The kernel's read-back equals what the
engine's own battle gives (tests/fastpath_helpers.py: play_battle's final state +
playtest.record_battle), field by field.
"""

from __future__ import annotations

import pytest
import yaml
from hypothesis import strategies as st

from escaramuza.agents import make_agent
from escaramuza.agents.heuristics.destiny_dice_kernel import KERNEL
from escaramuza.agents.runner import play_battle
from escaramuza.rules.core.events import (
    AttackResolved,
    ConditionApplied,
    ConditionEnded,
    Damaged,
    Event,
    Note,
    Rolled,
    StatusChanged,
    TurnStarted,
)
from escaramuza.rules.core.loops import TEMPERAMENTS
from escaramuza.rules.core.model import Side, Status
from escaramuza.rules.core.scenario import load_scenario, parse_scenario_text
from tests.fastpath_helpers import engine_battle, engine_rollout, rollout_row, same_as_engine
from tests.rules.destiny_dice.destiny_dice_helpers import GRITO, dd_options, enemy, hero, scenario
from tests.scenario_texts import VALID

pytestmark = pytest.mark.compile


def _duel(brann: int | None, saqueador: int | None):
    """tests/scenario_texts.VALID with each side's PV at the start (None: full)."""
    text = VALID
    for pv, current in (("    pv: 12", brann), ("    pv: 8", saqueador)):
        if current is not None:
            text = text.replace(pv, f"{pv}\n    pv_current: {current}")
    return parse_scenario_text(text, "<duel>", default_name="duel")


@pytest.mark.parametrize("hero_status", [Status.DOWN, Status.DEFEATED])
def test_dd_nobody_able_to_fight_passes_its_rounds_as_on_the_engine(hero_status):
    # Refused at load; a state can still come to it (every combatant put out of the
    # fight after loading): nobody acts and the rounds pass, empty, to the limit, on the
    # engine as on the kernel. A hero down rolls initiative (DD-16: healed, it would
    # act); one a GM marks defeated does not, and the order is empty.
    scenario = _duel(1, 1)
    for c in scenario.combatants:
        c.resources["pv"] = 0
        c.status = hero_status if c.side is Side.HEROES else Status.DEFEATED
    for seed in range(3):
        battle = engine_battle(scenario, ("heuristic", "heuristic"), seed)
        assert (battle.winner, battle.reason, battle.rounds) == (None, "timeout", 10)
        assert battle.decisions == 0
    same_as_engine(scenario, ("heuristic", "heuristic"), [0, 1, 2])


# -- DD-16 and DD-19 at a turn's start ---------------------------------------------------
_SWORD = {"name": "espada", "tier": "media"}
_HEAL = {"name": "poción", "heal": "1d4", "bands": ["cuerpo_a_cuerpo", "cerca"]}
#: h1 starts Fuera de Combate; h2 is Asustado with no source; h3 starts Derribado and
#: Envenenado with 3 PV; the enemies, two zones off, net, knock down and poison.
_TURN_STARTS = scenario(
    hero("h1", pv=8, pv_current=0, weapons=[_SWORD]),
    hero("h2", pv=10, heals=[_HEAL], weapons=[_SWORD], conditions=[{"name": "asustado"}]),
    hero(
        "h3",
        pv=8,
        pv_current=3,
        weapons=[_SWORD],
        heals=[_HEAL],
        conditions=[{"name": "derribado"}, {"name": "envenenado", "x": "1"}],
    ),
    enemy(
        "e1",
        zone="c",
        pv=8,
        weapons=[
            {"name": "red", "tier": "ligera", "inflicts": {"name": "paralizado"}},
            {"name": "maza", "tier": "media", "inflicts": {"name": "derribado"}},
        ],
    ),
    enemy(
        "e2",
        zone="d",
        pv=6,
        weapons=[
            {
                "name": "dardos",
                "tier": "ligera",
                "kind": "distancia",
                "bands": ["cerca", "lejos"],
                "inflicts": {"name": "envenenado", "x": "1d4"},
            }
        ],
    ),
    round_limit=10,
)


def _turn_start_cases(log: list[Event]) -> tuple[bool, bool, bool, bool]:
    """Whether a battle's log has: h1's turn (down at the start, healed: DD-16); a turn
    whose start ends a temporal state and whose poison drops the bearer (DD-19); h2's
    Alma test against its sourceless fear (DD-19); a temporal state ending at the start
    of a turn its bearer, down, does not have (DD-19)."""
    h1_acts = any(isinstance(e, TurnStarted) and e.actor == "h1" for e in log)
    dropped = False
    for k, e in enumerate(log):
        if isinstance(e, TurnStarted):
            start = []
            for x in log[k + 1 :]:
                if not isinstance(x, (Note, ConditionEnded, Rolled, Damaged, StatusChanged)):
                    break
                start.append(x)
            ended = any(
                isinstance(x, ConditionEnded) and x.condition in ("derribado", "paralizado")
                for x in start
            )
            down = any(isinstance(x, StatusChanged) and x.status == "down" for x in start)
            dropped = dropped or (ended and down)
    fear = any(isinstance(e, Rolled) and (e.actor, e.what) == ("h2", "asustado") for e in log)
    turn, skipped = None, False
    for e in log:
        if isinstance(e, TurnStarted):
            turn = e.actor
        elif isinstance(e, ConditionEnded) and e.condition in ("derribado", "paralizado"):
            skipped = skipped or e.target != turn
    return h1_acts, dropped, fear, skipped


@pytest.mark.parametrize("agents", [("heuristic", "heuristic"), ("random", "heuristic")])
def test_dd16_dd19_kernel_plays_turn_starts_as_the_engine(agents):
    """A hero down from the start rolls initiative and, healed, takes its turns (DD-16);
    temporal states end at the turn's start though the poison then drops the bearer, and
    a sourceless Asustado tests Alma to approach any foe (DD-19): the kernel plays the
    engine's battles, and they meet each case."""
    seeds = list(range(120))
    same_as_engine(_TURN_STARTS, agents, seeds)
    players = {Side.HEROES: make_agent(agents[0]), Side.ENEMIES: make_agent(agents[1])}
    met = [
        _turn_start_cases(play_battle(_TURN_STARTS, players, seed, narrate=False).log)
        for seed in seeds
    ]
    assert all(any(case) for case in zip(*met, strict=True))


# -- DD-19: Asustado of two sources -----------------------------------------------------
#: Two swordsmen between two shouters, each a zone off: every blow of theirs is a step
#: towards one of the two who frighten them.
_TWO_FEARS = scenario(
    hero("h1", zone="b", alma="d8", weapons=[_SWORD]),
    hero("h2", zone="b", alma="d8", weapons=[_SWORD]),
    enemy("e1", zone="a", pv=8, mente="d6", weapons=[GRITO]),
    enemy("e2", zone="c", pv=8, mente="d6", weapons=[GRITO]),
    round_limit=10,
)


def _fear_tests_of_two_sources(log: list[Event]) -> int:
    """Alma tests against Asustado (DD-19) taken by a bearer two foes have frightened."""
    frightened: dict[str, set[str]] = {}
    attacker, tests = "", 0
    for e in log:
        if isinstance(e, AttackResolved):
            attacker = e.actor
        elif isinstance(e, ConditionApplied) and e.condition == "asustado":
            frightened.setdefault(e.target, set()).add(attacker)
        elif isinstance(e, ConditionEnded) and e.condition == "asustado":
            frightened.pop(e.target, None)
        elif isinstance(e, Rolled) and e.what == "asustado":
            tests += len(frightened.get(e.actor, ())) >= 2
    return tests


@pytest.mark.parametrize("agents", [("heuristic", "heuristic"), ("random", "heuristic")])
def test_dd19_kernel_fears_every_source_of_asustado_as_the_engine(agents):
    """A second fright adds its source and the first still holds (Asustado is
    "Persistente"): the kernel plays the engine's battles, in which heroes two shouters
    frightened take the Alma test to step towards them."""
    seeds = list(range(60))
    same_as_engine(_TWO_FEARS, agents, seeds)
    players = {Side.HEROES: make_agent(agents[0]), Side.ENEMIES: make_agent(agents[1])}
    met = sum(
        _fear_tests_of_two_sources(play_battle(_TWO_FEARS, players, seed, narrate=False).log)
        for seed in seeds
    )
    assert met >= 10


# -- hypothesis scenarios ---------------------------------------------------------------
DICE = (4, 6, 8, 10, 12)
TIER_NEEDS = {"ligera": 4, "media": 6, "pesada": 8}
INFLICTS = (
    None,
    "derribado",
    "ciego",
    "inmovil",
    "paralizado",
    "asustado",
    "desarmado",
    "envenenado",
)


@st.composite
def _weapon(draw, i, cuerpo, mente, escudo):
    ranged = draw(st.booleans())
    die = mente if ranged else cuerpo
    tiers = ["desarmado"] + [t for t, need in TIER_NEEDS.items() if die >= need]
    if escudo and "pesada" in tiers:
        tiers.remove("pesada")
    tier = draw(st.sampled_from(tiers))
    spec = {"name": f"arma{i}", "tier": tier}
    if ranged:
        spec["kind"] = "distancia"
        spec["bands"] = draw(
            st.lists(
                st.sampled_from(["cuerpo_a_cuerpo", "cerca", "lejos"]),
                min_size=1,
                max_size=3,
                unique=True,
            )
        )
        spec["shoots"] = draw(st.booleans())
    elif draw(st.booleans()):
        spec["bands"] = ["cuerpo_a_cuerpo", "cerca"]
    spec["bonus"] = draw(st.integers(-1, 2))
    inflicts = draw(st.sampled_from(INFLICTS))
    if inflicts:
        spec["inflicts"] = {"name": inflicts}
        if inflicts == "envenenado":
            spec["inflicts"]["x"] = draw(st.sampled_from(["1", "1d4", "2", "1d6+1"]))
    return spec


@st.composite
def _combatant(draw, i, side, zones):
    cuerpo, mente, alma = (draw(st.sampled_from(DICE)) for _ in range(3))
    escudo = draw(st.integers(0, 1))
    pv = draw(st.integers(3, 14))
    c = {
        "id": f"c{i}",
        "side": side,
        "zone": draw(st.sampled_from(zones)),
        "temperament": draw(st.sampled_from(TEMPERAMENTS)),
        "cuerpo": f"d{cuerpo}",
        "mente": f"d{mente}",
        "alma": f"d{alma}",
        "pv": pv,
        "pv_current": draw(st.one_of(st.none(), st.integers(0, pv))),
        "armour": draw(st.integers(0, 1)),
        "shield": escudo,
        "energy": {"pc": draw(st.integers(0, 3)), "pa": draw(st.integers(0, 4))},
        "energy_max": draw(st.integers(2, 10)),
        "weapons": [
            draw(_weapon(f"{i}{k}", cuerpo, mente, escudo)) for k in range(draw(st.integers(0, 2)))
        ],
    }
    if side == "enemies":
        c["defensa"] = f"d{draw(st.sampled_from(DICE))}"
    if draw(st.booleans()):
        c["heals"] = [
            {
                "name": f"cura{i}",
                "heal": draw(st.sampled_from(["1d4", "1d6", "2d4", "3"])),
                "bands": draw(
                    st.lists(
                        st.sampled_from(["cuerpo_a_cuerpo", "cerca", "lejos"]),
                        min_size=1,
                        max_size=2,
                        unique=True,
                    )
                ),
                "uses": draw(st.one_of(st.none(), st.integers(1, 2))),
                "cost": draw(st.sampled_from([{}, {"pa": 1}, {"pc": 1, "pm": 1}])),
                "cures": draw(st.sampled_from([[], ["envenenado"], ["ciego", "asustado"]])),
            }
        ]
    start = draw(
        st.sampled_from([None, "ciego", "envenenado", "derribado", "desarmado", "asustado"])
    )
    if start:
        c["conditions"] = [{"name": start, **({"x": "1"} if start == "envenenado" else {})}]
    return c


@st.composite
def _scenario(draw):
    nz = draw(st.integers(1, 4))
    zones = [f"z{k}" for k in range(nz)]
    links = [[zones[k], zones[draw(st.integers(0, k - 1))]] for k in range(1, nz)]
    nh, ne = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    combatants = [draw(_combatant(i, "heroes", zones)) for i in range(nh)]
    combatants += [draw(_combatant(nh + i, "enemies", zones)) for i in range(ne)]
    for first, members in ((0, combatants[:nh]), (nh, combatants[nh:])):
        if all(c["pv_current"] == 0 for c in members):
            # A side nobody can fight for is refused at load (test_scenario_errors).
            combatants[first]["pv_current"] = None
    spec = {
        "name": "hypothesis",
        "ruleset": "destiny_dice",
        "round_limit": draw(st.integers(2, 8)),
        "victory": draw(st.sampled_from(["defeat_all", "survive"])),
        "options": draw(dd_options(2)),
        "battlefield": {
            "zones": [
                {"id": z, "cover": draw(st.integers(0, 2)), "exit": draw(st.booleans())}
                for z in zones
            ],
            "links": links,
        },
        "combatants": combatants,
    }
    return parse_scenario_text(yaml.safe_dump(spec), "<hypothesis>", default_name="hypothesis")


# -- rollouts ---------------------------------------------------------------------------
def test_dd_kernel_rollouts_resume_a_perfect_defence_reaction():
    # Script an engine state whose pending decision is DD-08's reaction, by playing until
    # one comes up, and roll out from it.
    scenario = load_scenario("destiny_dice/brann-vs-saqueador")
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    found = 0
    for seed in range(400):
        for stop in range(1, 30):
            state = play_battle(scenario, agents, seed, stop_after=stop, narrate=False)
            if state.outcome is not None:
                break
            if state.pending.name != "defensa_perfecta":
                continue
            actions = state.ruleset.legal_actions(state)
            batch = KERNEL.rollouts(state, actions, [1, 2, 3], None, None, 5000)
            for a, action in enumerate(actions):
                for s, rseed in enumerate([1, 2, 3]):
                    expected = engine_rollout(state, action, rseed, None, None, 5000)
                    assert rollout_row(batch, a, s) == expected
            found += 1
            break
        if found >= 3:
            break
    assert found >= 3


# -- refusals ---------------------------------------------------------------------------
def test_dd_kernel_refuses_a_keep_highest_heal():
    # Other agents and rulesets are refused in the suite, as by every kernel.
    text = yaml.safe_dump(
        {
            "name": "kh",
            "ruleset": "destiny_dice",
            "battlefield": {"zones": [{"id": "a"}], "links": []},
            "combatants": [
                {
                    "id": "h",
                    "side": "heroes",
                    "zone": "a",
                    "cuerpo": "d6",
                    "mente": "d6",
                    "alma": "d6",
                    "pv": 5,
                    "heals": [{"name": "suerte", "heal": "2d6kh1"}],
                },
                {
                    "id": "e",
                    "side": "enemies",
                    "zone": "a",
                    "cuerpo": "d6",
                    "mente": "d6",
                    "alma": "d6",
                    "defensa": "d6",
                    "pv": 5,
                },
            ],
        }
    )
    kh = parse_scenario_text(text, "<kh>", default_name="kh")
    reason = KERNEL.refusal(kh, ("heuristic", "heuristic"))
    assert reason is not None and "keeps the highest" in reason and "suerte" in reason
