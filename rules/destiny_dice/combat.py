"""Destiny Dice's fight mechanics: distance bands, the weapons a combatant can use now,
the opposed attack and its damage, falling and waking, healing (DD-05 … DD-18).

:class:`Combat` is the base class of
:class:`~escaramuza.rules.destiny_dice.ruleset.DestinyDice` and holds the methods the
seed's "Distancias", "Atacar y Defender", "Resolución del Ataque", "Cálculo de Daño" and
"Heridas" sections describe; each names the rule id it follows.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from escaramuza.rules.core.battlefield import Battlefield
from escaramuza.rules.core.dice import Roller, parse_dice
from escaramuza.rules.core.events import (
    AttackResolved,
    ConditionApplied,
    ConditionEnded,
    Damaged,
    Event,
    Healed,
    Note,
    ResourceChanged,
    Rolled,
    StatusChanged,
)
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import (
    SOURCE_SEP,
    Action,
    Combatant,
    Condition,
    Decision,
    DecisionKind,
    Status,
    interned,
    interned_action,
)
from escaramuza.rules.core.ruleset import Ruleset
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.destiny_dice.exact import AttackProfile
from escaramuza.rules.destiny_dice.sheets import PERSISTENT, Heal, Weapon

#: Energy pool earned by hitting with each characteristic (DD-14).
ENERGY = {"cuerpo": "pc", "mente": "pm", "alma": "pa"}
CHAR_NAME = {"cuerpo": "Cuerpo", "mente": "Mente", "alma": "Alma"}
#: The attack die's purpose per characteristic name. The purposes the dice are rolled for
#: are msgids left untranslated here (N_): only a GM's manual dice prompt shows them, and
#: it translates them (escaramuza.gm.PromptRoller), so the hot loop pays nothing for them.
ATTACK_ROLL = {"Cuerpo": N_("attack (Cuerpo)"), "Mente": N_("attack (Mente)")}

#: Builds an AttackProfile from its fields in order, without the named tuple's Python-level
#: ``__new__`` (see :meth:`Combat.profile`).
_new_tuple = tuple.__new__
#: Who is still in the fight (DD-15, DD-16): the active and the heroes Fuera de Combate,
#: whom an ally can heal back ("te levantas inmediatamente y puedes actuar en tu
#: siguiente turno"); a defeated enemy is out of the battle.
IN_THE_FIGHT = (Status.ACTIVE, Status.DOWN)


def frightened_by(held: Condition | None, source: str) -> str | None:
    """The source of an Asustado that ``source`` inflicts on a bearer holding ``held``.

    DD-19: Asustado is "Persistente": it lasts "hasta curarse con magia, pociones
    específicas o completar un Descanso Largo", so a second fright adds its source to those
    already feared ("No puedes acercarte voluntariamente a la fuente del miedo") and ends
    none; a fear with no source already fears every foe.
    """
    if held is None:
        return source
    if held.source is None or source in held.sources():
        return held.source
    return held.source + SOURCE_SEP + source


#: Poison and healing dice are rolled from their notation (``1d8``, ``2``): parse each text
#: once. A DiceExpr is a frozen value and parse_dice a pure function, so sharing is safe.
cached_dice = lru_cache(maxsize=256)(parse_dice)


class Combat(Ruleset):
    """The fight mechanics :class:`~escaramuza.rules.destiny_dice.ruleset.DestinyDice`
    inherits: bands, usable weapons, attacks, damage, falling and waking, healing."""

    # -- distances ------------------------------------------------------------
    def band(self, hops: int) -> int:
        # DD-05: 0 hops cuerpo a cuerpo, 1 cerca, 2 or more lejos (hot path: no len()/min()).
        return hops if hops < 2 else 2

    def bands_from(self, battlefield: Battlefield, zone: str) -> Mapping[str, int]:
        """The :meth:`band` from ``zone`` to every zone: one row of a table built once per
        map (the hot loops ask it for every target of every decision)."""
        return battlefield.derived("destiny_dice.bands", self._band_table)[zone]

    def _band_table(self, battlefield: Battlefield) -> dict[str, dict[str, int]]:
        return {
            a: {b: self.band(hops) for b, hops in battlefield.distances_from(a).items()}
            for a in battlefield.zone_ids
        }

    # -- weapons in hand ------------------------------------------------------
    def _usable_weapons(self, c: Combatant) -> list[Weapon]:
        disarmed = "desarmado" in c.conditions
        return [
            w
            for name, w in c.stats.weapons.items()
            if not (disarmed and not w.unarmed) and not (w.shoots and c.data.get(f"jam:{name}"))
        ]

    def _impaired(self, c: Combatant) -> bool:
        """Whether a weapon of ``c`` is out of use now (Desarmado, or jammed: DD-18)."""
        if "desarmado" in c.conditions:
            return True
        data = c.data
        for _name, key in c.stats.jam_keys:
            if data.get(key):
                return True
        return False

    def usable_by_band(self, c: Combatant) -> tuple[tuple[str, ...], ...]:
        """Band index → names of the weapons ``c`` can attack with now that reach it."""
        if not self._impaired(c):
            # Nothing disarmed or jammed: every weapon is usable, as the sheet lists them.
            return c.stats.by_band
        usable = self._usable_weapons(c)
        return tuple(tuple(w.name for w in usable if band in w.bands) for band in range(3))

    def usable_bands(self, c: Combatant) -> frozenset[int]:
        """The distance bands at which ``c`` has a usable weapon now."""
        if not self._impaired(c):
            return c.stats.all_bands
        return frozenset(band for w in self._usable_weapons(c) for band in w.bands)

    def _attacks(self, state: BattleState, c: Combatant, verb: str) -> list[Action]:
        out: list[Action] = []
        reach = self.usable_by_band(c)
        band_to = self.bands_from(state.battlefield, c.zone)
        side, cid, active = c.side, c.id, Status.ACTIVE
        for t in state.combatants:
            if t.side is side or t.status is not active:
                continue
            tid = t.id
            for name in reach[band_to[t.zone]]:
                out.append(interned(Action, verb, cid, tid, None, name, None))
        return out

    # -- attack ---------------------------------------------------------------
    def profile(
        self, state: BattleState, att: Combatant, dfn: Combatant, w: Weapon
    ) -> AttackProfile:
        """The modifiers an attack would get now (exact odds, heuristic, GM view)."""
        att_mod = att.data.get("ayuda", 0)
        if "ciego" in att.conditions:
            att_mod -= 2
        dfn_stats, options = dfn.stats, state.options
        def_mod = dfn_stats.defence_bonus + dfn.data.get("ayuda", 0)
        if w.characteristic == "mente":
            def_mod += options.cover_defense * state.battlefield.zones[dfn.zone].cover
            att_die = att.stats.mente
        else:
            att_die = att.stats.cuerpo  # Sheet.die(): melee attacks roll Cuerpo
        # This runs for every attack the heuristic or the planner weighs: the tuple is built
        # by tuple.__new__ with the fields in AttackProfile's order (the same value its
        # generated __new__ makes, without that Python-level call).
        return _new_tuple(
            AttackProfile,
            (
                att_die,
                dfn_stats.defensa,  # def_die
                att_mod,
                def_mod,
                w.unarmed,
                w.tier_bonus,
                w.extra,
                w.shoots,  # shooting
                options.ties_favor,
                options.fumble_damage,
            ),
        )

    def attack(
        self, state: BattleState, att: Combatant, dfn: Combatant, w: Weapon, roller: Roller
    ) -> list[Event]:
        """DD-06 … DD-11, DD-14, DD-18: one opposed attack roll and its damage."""
        events: list[Event] = []
        p = self.profile(state, att, dfn, w)
        att.data.pop("ayuda", None)
        char = CHAR_NAME[w.characteristic]
        a = roller.roll(p.att_die, ATTACK_ROLL[char])
        d20a = roller.roll(20, N_("d20 del Destino (attack)"))
        mods = f" {p.att_mod:+d}" if p.att_mod else ""
        events.append(
            Rolled(
                _f(
                    "{att} attacks {dfn} with {w}: {char} d{att_die} {a}{mods} = {total}; d20 del "
                    "Destino {d20a}.",
                    att.name,
                    dfn.name,
                    w.name,
                    char,
                    p.att_die,
                    a,
                    mods,
                    a + p.att_mod,
                    d20a,
                ),
                att.id,
                "ataque",
                (a, d20a),
                a + p.att_mod,
            )
        )
        if w.shoots and d20a == 1:
            # DD-18: "Si sacas 1 en el Dado del Destino al disparar, fallas automáticamente".
            jam = state.options.jam_on_one
            if jam:
                att.data[f"jam:{w.name}"] = True
            events.append(
                AttackResolved(
                    _f(
                        "A 1 on the d20 while shooting: automatic miss; {w} jams and needs an "
                        "action to reload.",
                        w.name,
                    )
                    if jam
                    else _("A 1 on the d20 while shooting: automatic miss."),
                    att.id,
                    dfn.id,
                    w.name,
                    False,
                )
            )
            return events
        dfn.data.pop("ayuda", None)
        d = roller.roll(p.def_die, N_("defence"))
        d20d = roller.roll(20, N_("d20 del Destino (defence)"))
        att_total, def_total = a + p.att_mod, d + p.def_mod
        hit = att_total > def_total or (att_total == def_total and p.ties_favor == "attacker")
        dmods = f" {p.def_mod:+d}" if p.def_mod else ""
        die_name = "Cuerpo" if dfn.pc else "Defensa"
        events.append(
            Rolled(
                _f(
                    "{dfn} defends: {die_name} d{def_die} {d}{dmods} = {def_total}; d20 del "
                    "Destino {d20d}.",
                    dfn.name,
                    die_name,
                    p.def_die,
                    d,
                    dmods,
                    def_total,
                    d20d,
                ),
                dfn.id,
                "defensa",
                (d, d20d),
                def_total,
            )
        )
        tie = (
            _(" (tie goes to the attacker)")
            if att_total == def_total and hit
            else (_(" (tie goes to the defender)") if att_total == def_total else "")
        )
        events.append(
            AttackResolved(
                (
                    _f("{att_total} vs {def_total}: HIT{tie}.", att_total, def_total, tie)
                    if hit
                    else _f("{att_total} vs {def_total}: miss{tie}.", att_total, def_total, tie)
                ),
                att.id,
                dfn.id,
                w.name,
                hit,
            )
        )
        if hit:
            events.extend(self._hit(state, att, dfn, w, p, roller))
        if d20d == 1 and dfn.active and (not hit or state.options.fumble_damage == "always"):
            # DD-09: "Aunque tu Defensa supere al Ataque, recibes 1 punto de daño automático".
            events.append(
                Note(_f("Fallo Defensivo: {dfn} rolled a 1 on the d20 and stumbles.", dfn.name))
            )
            events.extend(self._damage(state, dfn, 1, att.id, "fallo defensivo"))
        if not hit and d20d == 20 and dfn.active:
            # DD-08: the reaction is the defender's decision.
            events.append(
                Note(_f("Defensa Perfecta! {dfn} may counterattack or reposition.", dfn.name))
            )
            state.data["reaction_vs"] = att.id
            state.pending = Decision(DecisionKind.REACTION, dfn.id, dfn.side, "defensa_perfecta")
        return events

    def _hit(
        self,
        state: BattleState,
        att: Combatant,
        dfn: Combatant,
        w: Weapon,
        p: AttackProfile,
        roller: Roller,
    ) -> list[Event]:
        events: list[Event] = []
        # DD-11: "tira otra vez el mismo dado de característica ... y suma el Bono de Daño".
        face = roller.roll(p.att_die, N_("damage"))
        if w.unarmed:
            base, how = max(face - 1, 1), _f("{face} − 1 (unarmed, minimum 1)", face)
        else:
            base, how = face + w.tier_bonus, f"{face} + {w.tier_bonus}"
        dmg = max(base + w.extra, 0)
        extra = _f(" {extra:+d} special", w.extra) if w.extra else ""
        events.append(
            Rolled(
                _f("Damage: d{att_die} {how}{extra} = {dmg}.", p.att_die, how, extra, dmg),
                att.id,
                "daño",
                (face,),
                dmg,
            )
        )
        events.extend(self._damage(state, dfn, dmg, att.id, w.name))
        # DD-14: "Brann gana 2 PC por impactar."
        pool = ENERGY[w.characteristic]
        before = att.resources[pool]
        att.resources[pool] = min(before + 2, att.maxima[pool])
        gained = att.resources[pool] - before
        events.append(
            ResourceChanged(
                _f(
                    "{att} gains {gained} {pool} for the hit ({now}).",
                    att.name,
                    gained,
                    pool.upper(),
                    att.resources[pool],
                ),
                att.id,
                pool,
                gained,
                att.resources[pool],
            )
        )
        if w.inflicts and dfn.active:
            source: str | None = att.id
            if w.inflicts == "asustado":
                source = frightened_by(dfn.conditions.get("asustado"), att.id)
            cond = Condition(
                w.inflicts, source=source, persistent=w.inflicts in PERSISTENT, dice=w.inflicts_x
            )
            dfn.conditions[w.inflicts] = cond
            label = f"{w.inflicts} ({w.inflicts_x})" if w.inflicts_x else w.inflicts
            events.append(
                ConditionApplied(_f("{dfn} is now {label}.", dfn.name, label), dfn.id, w.inflicts)
            )
        return events

    def _damage(
        self, state: BattleState, c: Combatant, amount: int, source: str, what: str
    ) -> list[Event]:
        before = c.resources["pv"]
        c.resources["pv"] = max(before - amount, 0)
        events: list[Event] = [
            Damaged(
                _f(
                    "{c} loses {lost} PV ({what}): {pv}/{max} PV.",
                    c.name,
                    before - c.resources["pv"],
                    what,
                    c.resources["pv"],
                    c.maxima["pv"],
                ),
                c.id,
                before - c.resources["pv"],
                "pv",
                source,
                c.resources["pv"],
            )
        ]
        if c.resources["pv"] == 0 and c.active:
            if c.pc:
                # DD-16: "caes Fuera de Combate (inconsciente). No puedes actuar."
                events.append(
                    self.set_status(
                        c, Status.DOWN, _f("{c} falls Fuera de Combate!", c.name), source
                    )
                )
            else:
                # DD-15: "El enemigo queda derrotado".
                events.append(
                    self.set_status(c, Status.DEFEATED, _f("{c} is defeated!", c.name), source)
                )
        return events

    # -- healing and waking ---------------------------------------------------
    def _heals(self, state: BattleState, c: Combatant) -> list[Action]:
        out: list[Action] = []
        heals = c.stats.heals
        if not heals:
            return out
        hops_to = state.battlefield.distances_from(c.zone)
        for heal in heals.values():
            if heal.uses is not None and c.data.get(heal.uses_key, 0) <= 0:
                continue
            if any(c.resources[k] < v for k, v in heal.cost):
                continue
            for a in state.combatants:
                if a.side is not c.side or a.status not in IN_THE_FIGHT:
                    continue
                hurt = a.resources["pv"] < a.maxima["pv"] or any(
                    x in a.conditions for x in heal.cures
                )
                if hurt and self.band(hops_to[a.zone]) in heal.bands:
                    out.append(interned_action("curar", c.id, target=a.id, item=heal.name))
        return out

    def _heal(
        self,
        state: BattleState,
        c: Combatant,
        ally: Combatant,
        heal: Heal,
        roller: Roller,
        events: list[Event],
    ) -> None:
        if heal.uses is not None:
            c.data[heal.uses_key] = c.data[heal.uses_key] - 1
        for pool, cost in heal.cost:
            c.resources[pool] -= cost
        total, faces = cached_dice(heal.heal).roll(roller, _f("healing ({heal})", heal.name))
        before = ally.resources["pv"]
        ally.resources["pv"] = min(before + max(total, 0), ally.maxima["pv"])
        events.append(
            Healed(
                _f(
                    "{c} uses {heal} on {ally}: {dice} rolls {total}, {before} → {pv} PV.",
                    c.name,
                    heal.name,
                    ally.name,
                    heal.heal,
                    total,
                    before,
                    ally.resources["pv"],
                ),
                ally.id,
                ally.resources["pv"] - before,
                "pv",
                c.id,
                ally.resources["pv"],
            )
        )
        for name in heal.cures:
            if name in ally.conditions:
                del ally.conditions[name]
                events.append(
                    ConditionEnded(
                        _f("{ally} is cured of {name}.", ally.name, name),
                        ally.id,
                        name,
                    )
                )
        if ally.status is Status.DOWN and ally.resources["pv"] > 0:
            # DD-16: "Si lo hace, te levantas inmediatamente y puedes actuar en tu siguiente turno."
            events.append(
                self.set_status(
                    ally,
                    Status.ACTIVE,
                    _f("{ally} is back on their feet!", ally.name),
                    c.id,
                )
            )

    def on_battle_end(self, state: BattleState) -> list[Event]:
        events: list[Event] = []
        for c in state.combatants:
            if c.pc and c.status is Status.DOWN:
                # DD-16: "despiertas automáticamente al finalizar el combate ... con 1 PV".
                c.resources["pv"] = 1
                c.status = Status.ACTIVE
                events.append(
                    StatusChanged(
                        _f("{c} wakes up with 1 PV as the fight ends.", c.name),
                        c.id,
                        "active",
                    )
                )
        return events
