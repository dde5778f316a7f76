"""The ráfaga (DJ-04 … DJ-08): initiative, the count called down from the die size, who
acts on each number, and continuing or withdrawing once it reaches 1; and the tests
(DJ-01, DJ-02) every action of it rolls.

:class:`Rafaga` is the lowest of the classes :class:`~escaramuza.rules.donjon.ruleset.Donjon`
is built from (rafaga → damage → reactions → ruleset), each adding the methods of its
sections of the seed's "Combate" chapter.
"""

from __future__ import annotations

from collections.abc import Sequence

from escaramuza.rules.core.dice import Roller, faces_text, roll_pool
from escaramuza.rules.core.events import (
    BattleStarted,
    Event,
    InitiativeRolled,
    Note,
    Rolled,
    TurnStarted,
)
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import Action, Combatant, DecisionKind, Side, Status
from escaramuza.rules.core.ruleset import Ruleset
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.donjon import combat
from escaramuza.rules.donjon.decisions import CONTINUE, TURN, decision
from escaramuza.rules.donjon.exact import ATTACKER, OpposedResult, opposed_sorted
from escaramuza.rules.donjon.sheets import DonjonOptions

# Events are NOT interned although they are frozen values too: the planner's tree reuse
# (agents/search.py, MCTSAgent._reusable) tells a log that only moved forward by the
# IDENTITY of its last event, so every event must stay a fresh object.

#: ``str`` of every face a die of up to 100 sides shows (DonjonOptions.die_size ≤ 100).
_FACE_TEXT: dict[int, str] = {i: str(i) for i in range(101)}


def _faces_text(faces: Sequence[int]) -> str:
    """``faces_text`` (", ".join of the faces) with the faces' strings looked up, not built."""
    try:
        return ", ".join([_FACE_TEXT[f] for f in faces])
    except KeyError:
        return faces_text(faces)


#: _apply_continue's line per (heroes?, going on?) (DJ-07): whole sentences, so each
#: language words its own.
_GOING_ON = {
    (True, True): N_("The heroes want to go on."),
    (True, False): N_("The heroes would withdraw."),
    (False, True): N_("The enemies want to go on."),
    (False, False): N_("The enemies would withdraw."),
}


class Rafaga(Ruleset):
    """The ráfaga and the rolled tests of :class:`~escaramuza.rules.donjon.ruleset.Donjon`."""

    # -- helpers ----------------------------------------------------------------
    @staticmethod
    def _opts(state: BattleState) -> DonjonOptions:
        return state.options

    def _opposed(
        self,
        state: BattleState,
        roller: Roller,
        attacker: Combatant,
        a_dice: int,
        a_what: str,
        defender: Combatant | None,
        d_dice: int,
        d_what: str,
    ) -> tuple[OpposedResult, list[Event]]:
        """Roll both pools (attacker first) and resolve them (DJ-01)."""
        opts = self._opts(state)
        sides = opts.die_size
        a_faces = roll_pool(roller, max(0, a_dice), sides, f"{attacker.id} {a_what}")
        d_name = defender.id if defender else "DJ"
        d_faces = roll_pool(roller, max(0, d_dice), sides, f"{d_name} {d_what}")
        # Sorted once, for the narration and for the test (opposed_test sorts the same way).
        a_sorted = sorted(a_faces, reverse=True)
        d_sorted = sorted(d_faces, reverse=True)
        result = opposed_sorted(a_sorted, d_sorted, opts.all_tied)
        who = attacker.name if result.winner == ATTACKER else (defender.name if defender else "DJ")
        events: list[Event] = [
            Rolled(
                _f(
                    "{c} rolls {n}d{sides} for {what}: {faces}.",
                    attacker.name,
                    len(a_faces),
                    sides,
                    a_what,
                    _faces_text(a_sorted) or _("no dice"),
                ),
                attacker.id,
                a_what,
                tuple(a_faces),
                len(a_faces),
            ),
            Rolled(
                _f(
                    "{c} rolls {n}d{sides} for {what}: {faces}.",
                    defender.name,
                    len(d_faces),
                    sides,
                    d_what,
                    _faces_text(d_sorted) or _("no dice"),
                )
                if defender
                else _f(
                    "The DJ rolls {n}d{sides} for {what}: {faces}.",
                    len(d_faces),
                    sides,
                    d_what,
                    _faces_text(d_sorted) or _("no dice"),
                ),
                d_name,
                d_what,
                tuple(d_faces),
                len(d_faces),
            ),
            Note(
                _f(
                    "{who} wins the test with {n} éxito(s) ({aside} tied pair(s) set aside).",
                    who,
                    result.successes,
                    result.set_aside,
                )
                if result.set_aside
                else _f("{who} wins the test with {n} éxito(s).", who, result.successes)
            ),
        ]
        return result, events

    def _unopposed(
        self, state: BattleState, roller: Roller, c: Combatant, dice: int, what: str, level: str
    ) -> tuple[OpposedResult, list[Event]]:
        """DJ-02: an unopposed test is a test against the DJ's difficulty pool."""
        gm_dice = getattr(self._opts(state).dificultades, level)
        return self._opposed(state, roller, c, dice, what, None, gm_dice, f"dificultad {level}")

    # -- ráfaga -----------------------------------------------------------------
    def start(self, state: BattleState, roller: Roller) -> list[Event]:
        events: list[Event] = [
            BattleStarted(
                _f("{title}: a Donjon battle begins.", state.scenario.title),
                state.scenario.name,
                self.id,
            )
        ]
        events.extend(self._new_rafaga(state, roller))
        return events

    def _new_rafaga(self, state: BattleState, roller: Roller) -> list[Event]:
        events = self.begin_round(state)
        if state.outcome is not None:
            return events
        first = state.round == 1
        events.append(
            Note(
                _f(
                    "Ráfaga {round}: everyone rolls a new Prueba de Iniciativa.",
                    state.round,
                )
            )
        )
        opts = self._opts(state)
        for c in state.combatants:
            c.data["acted"] = (0, 0)
            if not c.active:
                c.data["init"] = ()
                continue
            events.extend(self._roll_initiative(state, roller, c, first, opts.die_size))
        state.order = tuple(
            c.id
            for c in sorted(
                (c for c in state.combatants if c.active and c.data["init"]),
                key=lambda c: (-c.data["init"][0], 0 if c.pc else 1, c.index),
            )
        )
        state.turn = 0
        state.data["count"] = opts.die_size
        events.extend(self._advance(state))
        return events

    def _roll_initiative(
        self, state: BattleState, roller: Roller, c: Combatant, first: bool, sides: int
    ) -> list[Event]:
        """DJ-04: Nivel + Discernimiento dice; surprise and initiative abilities add successes."""
        events: list[Event] = []
        bonus = 0
        if first and combat.stats(c).sorpresa:
            # "simplemente suma los éxitos de un intento de acercarte sigilosamente como
            # bonificadores para tu Prueba de Iniciativa" (rolled before the battle).
            bonus += combat.stats(c).sorpresa
        skill = combat.stats(c).skills.iniciativa
        if skill:
            # "puedes hacer una Prueba sin oposición (dificultad Media) con la Habilidad, más la
            # puntuación del Atributo apropiado (usualmente Celeridad) y usar los éxitos como
            # bonificadores" — never dice added directly.
            result, evs = self._unopposed(
                state,
                roller,
                c,
                skill + c.resources["celeridad"],
                "iniciativa (habilidad)",
                "media",
            )
            events.extend(evs)
            if result.winner == ATTACKER:
                bonus += result.successes
        pool = combat.initiative_pool(c) + bonus
        faces = roll_pool(roller, pool, sides, _f("{c} initiative", c.id))
        c.data["init"] = tuple(sorted(faces, reverse=True))
        events.append(
            InitiativeRolled(
                _f(
                    "{c} rolls {n}d{sides} for initiative "
                    "(Nivel + Discernimiento + {bonus} bonus): acts on {faces}.",
                    c.name,
                    pool,
                    sides,
                    bonus,
                    faces_text(c.data["init"]),
                )
                if bonus
                else _f(
                    "{c} rolls {n}d{sides} for initiative (Nivel + Discernimiento): acts on "
                    "{faces}.",
                    c.name,
                    pool,
                    sides,
                    faces_text(c.data["init"]),
                ),
                c.id,
                "iniciativa",
                tuple(faces),
                pool,
            )
        )
        return events

    def _advance(self, state: BattleState) -> list[Event]:
        """Call numbers down from the current one until someone acts on it (DJ-05, DJ-06)."""
        current: int = state.data["count"]
        active = Status.ACTIVE
        # The GM calls current, current − 1, … and stops at the first number some active
        # combatant still holds: the highest held number ≤ current. One pass finds it and,
        # among its holders, who acts: "su personaje puede realizar una sola acción - podrá
        # realizar las demás ... luego de que los demás ... con el mismo número hayan
        # actuado"; PJ before PNJ, table (scenario) order among each.
        count = 0
        best: Combatant | None = None
        best_key: tuple[int, int, int] = (0, 0, 0)
        for c in state.combatants:
            if c.status is not active:
                continue
            top = 0
            for n in c.data["init"]:
                if top < n <= current:
                    top = n
            if top == 0 or top < count:
                continue
            acted_at, times = c.data["acted"]
            key = (times if acted_at == top else 0, 0 if c.pc else 1, c.index)
            if top > count or key < best_key:
                count, best, best_key = top, c, key
        if best is not None:
            state.data["count"] = count
            state.pending = decision(
                DecisionKind.TURN,
                best.id,
                best.side,
                TURN,
                _f("{c} acts on {count}", best.name, count),
            )
            return [
                TurnStarted(
                    _f(
                        "{count}: {best} acts.",
                        count,
                        best.name,
                    ),
                    best.id,
                    state.round,
                )
            ]
        state.data["count"] = 0
        state.data["continuing"] = ()
        return self._ask_continue(state, Side.HEROES)

    def _ask_continue(self, state: BattleState, side: Side) -> list[Event]:
        actor = state.active(side)[0]
        state.pending = decision(
            DecisionKind.CHOICE,
            actor.id,
            side,
            CONTINUE,
            _("the heroes continue or withdraw")
            if side is Side.HEROES
            else _("the enemies continue or withdraw"),
        )
        return [
            Note(
                _("The count reaches 1: the heroes decide whether to go on (DJ-07).")
                if side is Side.HEROES
                else _("The count reaches 1: the enemies decide whether to go on (DJ-07).")
            )
        ]

    def _after(self, state: BattleState) -> list[Event]:
        """Close an action: end the battle if a side is out, else call the next number."""
        for key in ("attack", "move", "spend"):
            state.data.pop(key, None)
        events = self.check_end(state)
        if state.outcome is None:
            events.extend(self._advance(state))
        return events

    # -- end of ráfaga ---------------------------------------------------------------
    def _apply_continue(self, state: BattleState, action: Action, roller: Roller) -> list[Event]:
        pending = state.pending
        assert pending is not None
        side = pending.side
        going_on = action.verb == "continuar"
        continuing: tuple[str, ...] = state.data.get("continuing", ())
        if going_on:
            continuing = (*continuing, side.value)
        state.data["continuing"] = continuing
        events: list[Event] = [Note(_(_GOING_ON[side is Side.HEROES, going_on]))]
        if side is Side.HEROES:
            return events + self._ask_continue(state, Side.ENEMIES)
        if continuing:
            # "Si cualquiera de los bandos quiere continuar el combate, una nueva ráfaga comienza"
            return events + self._new_rafaga(state, roller)
        # "Si ningún bando quiere continuar la pelea, el combate termina."
        return events + self.finish(state, None, "withdrawal")
