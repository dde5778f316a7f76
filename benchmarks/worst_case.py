"""Seconds per battle of the most expensive scenario each ruleset's bounds accept.

For every ruleset the script builds scenarios at the loader's bounds (read from the
models and the named constants, so it follows them when they change) and plays them
heuristic against heuristic on the engine (what ``--engine reference`` plays):

* ``caps`` — every value at its bound: the most combatants, the biggest map (most zones,
  most links), the highest round limit, the most weapons (and heals) a sheet, every stat
  at its maximum and the longest dice expression wherever dice are written;
* ``stalemate`` — the same sizes and defences with the offence at its floor, so that
  nobody falls and the battle lasts the whole round limit;
* ``mixed`` — the same sizes with every combatant's stats spread over their ranges, so
  that the exact-odds caches meet as many different pools and modifiers as they can.

Every scenario goes through ``parse_scenario``, so it is one the loader accepts. Each one
runs in a fresh interpreter: its first battle pays for the exact-odds caches a process
fills once (what a server's first request pays), the later seeds show the warm cost. The
target is one second a battle on the engine; the last column is the slowest battle over
that target.

    python benchmarks/worst_case.py [--seeds 3] [--ruleset donjon] [--variant stalemate]

Timings need an otherwise idle machine: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from escaramuza.rules.core import dice
from escaramuza.rules.core.scenario import (
    MAX_COMBATANTS,
    MAX_LINKS,
    MAX_ROUND_LIMIT,
    MAX_WEAPONS,
    MAX_ZONES,
)

#: Seconds a battle of any accepted scenario should cost on the engine at most.
TARGET_SECONDS = 1.0
VARIANTS = ("caps", "stalemate", "mixed")

Scenario = dict[str, Any]


def cap(model: type[BaseModel], name: str) -> int:
    """The upper bound (``le`` or ``max_length``) of ``model.name``: the constraint objects
    pydantic keeps in the field's metadata."""
    for item in model.model_fields[name].metadata:
        for attribute in ("le", "max_length"):
            bound = getattr(item, attribute, None)
            if isinstance(bound, int):
                return bound
    raise LookupError(f"{model.__name__}.{name} has no upper bound")


def longest_dice(floor: int = 0) -> str:
    """An expression at every dice bound: the most terms, the most dice (one term keeping
    the highest, the costliest to enumerate), the largest die and the largest constant,
    within the longest text. Its minimum is at least ``floor`` (damage cannot be negative).
    """
    sides = dice.MAX_DIE_SIDES
    groups = dice.MAX_DICE_TERMS - 1
    counts = [dice.MAX_DICE // groups + (i < dice.MAX_DICE % groups) for i in range(groups)]
    terms = [f"{counts[0]}d{sides}kh{counts[0] - 1}"]
    terms += [f"{n}d{sides}" for n in counts[1:]]
    text = "+".join(terms) + f"+{dice.MAX_DICE_MODIFIER}"
    expr = dice.parse_dice(text)
    assert len(text) <= dice.MAX_DICE_TEXT and expr.minimum >= floor, text
    return text


def spread(i: int, top: int, low: int = 0) -> int:
    """Combatant ``i``'s value of a stat spread evenly from ``low`` to ``top``; a stat
    spread in another order passes ``i`` times a step coprime with the combatant count."""
    i %= MAX_COMBATANTS
    return low + round(i * (top - low) / (MAX_COMBATANTS - 1))


def battlefield() -> dict[str, Any]:
    """The most zones, joined by the most links: a ring and three rings of chords."""
    n = MAX_ZONES
    zones = [{"id": f"z{i}", "cover": i % 3, "elevation": i % 2} for i in range(n)]
    pairs: list[list[str]] = []
    for step in (1, 2, 5, 11):
        pairs += [[f"z{i}", f"z{(i + step) % n}"] for i in range(n)]
    return {"zones": zones, "links": pairs[:MAX_LINKS]}


def _scenario(
    ruleset: str, sheets: list[dict[str, Any]], options: dict[str, Any], spread: bool = True
) -> Scenario:
    """Half the sheets are heroes, half enemies; ``spread`` puts the heroes on one side of
    the ring and the enemies on the other (a few hops to close), else the two sides in two
    neighbouring zones."""
    half = MAX_COMBATANTS // 2
    combatants = []
    for i, sheet in enumerate(sheets[:MAX_COMBATANTS]):
        side = "heroes" if i < half else "enemies"
        if spread:
            zone = f"z{(i % half) * 2 + (0 if side == 'heroes' else MAX_ZONES // 2)}"
        else:
            zone = "z0" if side == "heroes" else "z1"
        combatants.append({"id": f"c{i}", "side": side, "zone": zone, **sheet})
    return {
        "name": f"worst-{ruleset}",
        "ruleset": ruleset,
        "round_limit": MAX_ROUND_LIMIT,
        "options": options,
        "battlefield": battlefield(),
        "combatants": combatants,
    }


def destiny_dice(variant: str) -> Scenario:
    from escaramuza.rules.destiny_dice import sheets as dd

    top = f"d{max(dice.STANDARD_DICE)}"
    low = f"d{min(dice.STANDARD_DICE)}"
    stalemate = variant == "stalemate"
    # The stalemate fights bare-handed (DD-11: no die requirement) with the smallest dice.
    tier = "desarmado" if stalemate else "media"
    heal = {
        "name": "",
        "heal": longest_dice(),
        "bands": list(dd.BANDS),
        "uses": dd.MAX_HEAL_USES,
        "cost": {"pa": 1},
        "cures": list(dd.PERSISTENT),
    }
    poison = {"name": "envenenado", "x": "1" if stalemate else longest_dice()}
    sheets = []
    for i in range(MAX_COMBATANTS):
        enemy = i >= MAX_COMBATANTS // 2
        sheet: dict[str, Any] = {
            "cuerpo": low if stalemate else top,
            "mente": low if stalemate else top,
            "alma": top,
            "pv": dd.MAX_PV,
            "armour": cap(dd.Stats, "armour"),
            "shield": cap(dd.Stats, "shield"),
            "energy": {k: dd.MAX_ENERGY for k in ("pc", "pm", "pa")},
            "energy_max": cap(dd.Stats, "energy_max"),
            "weapons": [
                {
                    "name": f"arma{k}",
                    "tier": tier,
                    "kind": dd.RANGED if k % 2 else dd.MELEE,
                    "bands": list(dd.BANDS),
                    "bonus": 0 if stalemate else cap(dd.WeaponSpec, "bonus"),
                    "inflicts": poison,
                }
                for k in range(MAX_WEAPONS)
            ],
            "heals": [{**heal, "name": f"cura{k}"} for k in range(cap(dd.Stats, "heals"))],
        }
        if variant == "mixed":
            sizes = [d for d in dice.STANDARD_DICE if d >= dd.TIERS["media"][1]]
            sheet["cuerpo"] = sheet["mente"] = f"d{sizes[i % len(sizes)]}"
            sheet["armour"] = spread(i, cap(dd.Stats, "armour"))
            sheet["shield"] = spread(i * 3, cap(dd.Stats, "shield"))
            for k, weapon in enumerate(sheet["weapons"]):
                bonus = cap(dd.WeaponSpec, "bonus")
                weapon["bonus"] = spread(i * 5 + k, bonus, -bonus)
        if enemy:
            sheet["defensa"] = top if variant != "mixed" else f"d{dice.STANDARD_DICE[i % 8]}"
        sheets.append(sheet)
    return _scenario("destiny_dice", sheets, {"cover_defense": 3, "help_bonus": 2})


def donjon(variant: str) -> Scenario:
    from escaramuza.rules.donjon import sheets as dj

    stalemate = variant == "stalemate"
    skill = cap(dj.Skills, "ataque")
    sheet: dict[str, Any] = {
        "level": cap(dj.DonjonStats, "level"),
        "heridas": cap(dj.DonjonStats, "heridas"),
        "attributes": {a: cap(dj.Attributes, a) for a in dj.ATTRIBUTES},
        "skills": {s: skill for s in dj.Skills.model_fields},
        "weapons": [
            {
                "name": f"arma{k}",
                "kind": ("cuerpo_a_cuerpo", "distancia", "arrojadiza")[k % 3],
                "damage": 0 if stalemate else cap(dj.Weapon, "damage"),
            }
            for k in range(MAX_WEAPONS)
        ],
        "armour": cap(dj.DonjonStats, "armour"),
        "sorpresa": cap(dj.DonjonStats, "sorpresa"),
    }
    if stalemate:
        # PJ on both sides keep fighting at 0 Heridas (DJ-19); a one-die damage pool
        # against the largest soak almost never wins.
        sheet["attributes"]["virilidad"] = 1
        sheet["skills"]["dano"] = 0
        sheet["pc"] = True
    top = cap(dj.Dificultades, "dificil")
    options = {
        "die_size": cap(dj.DonjonOptions, "die_size"),
        "dificultades": {"facil": top, "media": top, "dificil": top},
    }
    # DJ-09: every pair of foes starts within two actions.
    sheets = [dict(sheet) for _ in range(MAX_COMBATANTS)]
    if variant == "mixed":
        damage = cap(dj.Weapon, "damage")
        for i, one in enumerate(sheets):
            one["skills"] = {
                s: spread(i * (2 * n + 1), skill) for n, s in enumerate(dj.Skills.model_fields)
            }
            one["armour"] = spread(i * 7, cap(dj.DonjonStats, "armour"))
            one["weapons"] = [
                {**w, "damage": spread(i * 5 + 4 * k, damage)}
                for k, w in enumerate(sheet["weapons"])
            ]
            one["attributes"] = {
                a: spread(i * (2 * n + 3), cap(dj.Attributes, a), 1)
                for n, a in enumerate(dj.ATTRIBUTES)
            }
    return _scenario("donjon", sheets, options, spread=False)


def cairn(variant: str) -> Scenario:
    from escaramuza.rules.cairn import sheets as ca

    stalemate = variant == "stalemate"
    top = f"d{max(ca.CAIRN_DICE)}"
    sheets = []
    for i in range(MAX_COMBATANTS):
        sheets.append(
            {
                "pi": cap(ca.CairnStats, "pi"),
                "fue": cap(ca.CairnStats, "fue"),
                "des": cap(ca.CairnStats, "des"),
                "vol": cap(ca.CairnStats, "vol"),
                "armour": cap(ca.CairnStats, "armour"),
                "weapons": [
                    {
                        "name": f"arma{k}",
                        "damage": f"{top}+{top}",
                        "kind": ca.RANGED if k % 2 else ca.MELEE,
                        "reach": cap(ca.Weapon, "reach"),
                        "blast": bool(k % 2),
                    }
                    for k in range(MAX_WEAPONS)
                ],
                # Impedido attacks roll a d4 against the largest armour: at most 1 a blow.
                "impaired": stalemate,
                **(
                    {
                        "armour": spread(i, cap(ca.CairnStats, "armour")),
                        "pi": spread(i * 3, cap(ca.CairnStats, "pi"), 1),
                        "fue": spread(i * 5, cap(ca.CairnStats, "fue"), 1),
                    }
                    if variant == "mixed"
                    else {}
                ),
                "destacamento": not stalemate and i == MAX_COMBATANTS - 1,
            }
        )
    return _scenario("cairn", sheets, {"morale": True})


def sistema_2d10(variant: str) -> Scenario:
    from escaramuza.rules.sistema_2d10 import sheets as s2

    stalemate = variant == "stalemate"
    # Each MHC pairs two scores whose sum is at most MAX_SCORE (S2-02): the largest MHC
    # every pair can reach at once.
    score = s2.MAX_SCORE // 2
    names = [f"h{k}" for k in range(s2.MAX_SCORES - 4)]
    attributes = {a: score for a in ("reflejos", "sentidos", "aguante", "destreza")}
    attributes.update({a: score for a in names})
    skills = {k: score for k in ("esquivar", "cubrir", "resistencia_al_dolor", "espada")}
    skills.update({k: score for k in names})
    if stalemate:
        # Attacks on the weakest scores against the best defences; the damage never beats
        # the largest CA, so only the rare crítico lands, for nothing.
        attributes["h0"] = 0
        skills["h0"] = 0
    ca_top = cap(s2.Sistema2d10Stats, "ca")
    damage = f"{dice.MAX_DICE}d2" if stalemate else longest_dice()
    if stalemate:
        assert dice.parse_dice(damage).maximum <= ca_top, damage
    weapon_skill = "h0" if stalemate else "espada"
    weapon_attr = "h0" if stalemate else "destreza"
    sheet = {
        "pv": cap(s2.Sistema2d10Stats, "pv"),
        "actions": cap(s2.Sistema2d10Stats, "actions"),
        "extra_actions": cap(s2.Sistema2d10Stats, "extra_actions"),
        "dados_expres": cap(s2.Sistema2d10Stats, "dados_expres"),
        "ca": ca_top,
        "attributes": attributes,
        "skills": skills,
        "weapons": [
            {
                "name": f"arma{k}",
                "kind": "distancia" if k % 2 else "cuerpo_a_cuerpo",
                "skill": weapon_skill,
                "attribute": weapon_attr,
                "damage": damage,
                "reach": cap(s2.Weapon, "reach") if k % 2 else 0,
            }
            for k in range(MAX_WEAPONS)
        ],
    }
    sheets = [{**sheet, "pc": i % 2 == 0} for i in range(MAX_COMBATANTS)]
    if variant == "mixed":
        for i, one in enumerate(sheets):
            one["attributes"] = {
                a: spread(i * (2 * n + 1), score) for n, a in enumerate(attributes)
            }
            one["skills"] = {k: spread(i * (2 * n + 3), score) for n, k in enumerate(skills)}
            one["ca"] = spread(i * 7, ca_top)
            one["weapons"] = [
                {
                    **w,
                    "skill": names[(i + k) % len(names)],
                    "attribute": names[(i + 2 * k) % len(names)],
                }
                for k, w in enumerate(sheet["weapons"])
            ]
    return _scenario("sistema_2d10", sheets, {})


BUILDERS: dict[str, Callable[[str], Scenario]] = {
    "destiny_dice": destiny_dice,
    "donjon": donjon,
    "cairn": cairn,
    "sistema_2d10": sistema_2d10,
}


def measure(ruleset: str, variant: str, seeds: int) -> dict[str, Any]:
    """In a fresh interpreter: load the scenario and play ``seeds`` battles, timed."""
    from escaramuza.agents import make_agent
    from escaramuza.agents.runner import play_battle
    from escaramuza.rules.core.model import Side
    from escaramuza.rules.core.scenario import parse_scenario

    data = BUILDERS[ruleset](variant)
    began = time.perf_counter()
    scenario = parse_scenario(data, f"<{ruleset} {variant}>", data["name"])
    load = time.perf_counter() - began
    agents = {side: make_agent("heuristic") for side in Side}
    battles = []
    for seed in range(1, seeds + 1):
        began = time.perf_counter()
        state = play_battle(scenario, agents, seed=seed, narrate=False)
        seconds = time.perf_counter() - began
        assert state.outcome is not None
        battles.append((seconds, state.outcome.rounds, len(state.log)))
    return {"load": load, "battles": battles}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="battles per scenario")
    parser.add_argument(
        "--ruleset", action="append", choices=sorted(BUILDERS), help="only these rulesets"
    )
    parser.add_argument("--variant", action="append", choices=VARIANTS, help="only these variants")
    args = parser.parse_args(argv)
    print(
        f"{os.cpu_count()} cores; Python {sys.version.split()[0]}; target "
        f"{TARGET_SECONDS:g} s a battle on the engine, heuristic against heuristic"
    )
    print(f"{os.getloadavg()[0]:.2f} load average (1 min) at the start")
    print(
        f"bounds: {MAX_COMBATANTS} combatants, {MAX_ZONES} zones, {MAX_LINKS} links, "
        f"round limit {MAX_ROUND_LIMIT}, {MAX_WEAPONS} weapons a sheet; dice "
        f"{longest_dice()!r}"
    )
    print(
        f"{'ruleset':14} {'variant':10} {'load s':>7} {'rounds':>7} {'events':>8} "
        f"{'first s':>8} {'later s':>8} {'max/target':>10}"
    )
    spawn = multiprocessing.get_context("spawn")
    worst = 0.0
    for ruleset in args.ruleset or list(BUILDERS):
        for variant in args.variant or VARIANTS:
            with spawn.Pool(1) as pool:
                result = pool.apply(measure, (ruleset, variant, args.seeds))
            battles = result["battles"]
            seconds = [b[0] for b in battles]
            later = seconds[1:] or seconds
            slowest = max(seconds)
            worst = max(worst, slowest)
            rounds = "/".join(str(b[1]) for b in battles)
            events = max(b[2] for b in battles)
            print(
                f"{ruleset:14} {variant:10} {result['load']:>7.3f} {rounds:>7} "
                f"{events:>8} {seconds[0]:>8.3f} {sum(later) / len(later):>8.3f} "
                f"{slowest / TARGET_SECONDS:>9.2f}x",
                flush=True,
            )
    print(
        f"{os.getloadavg()[0]:.2f} load average (1 min) at the end; slowest battle "
        f"{worst:.3f} s = {worst / TARGET_SECONDS:.2f}x the target"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
