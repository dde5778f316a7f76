"""What the session shows: the battle (``show``), the map, the legal actions, the log, what
is pending next, and the help."""

from __future__ import annotations

from escaramuza.gm.help import HELP
from escaramuza.gm.state import GMError, SessionState
from escaramuza.rules.core.i18n import _, _f, outcome_reason, who_wins, word


class SessionViews(SessionState):
    """The session's looking commands and the lines every change ends with."""

    def do_show(self, arg: str) -> None:
        """The ``show`` command: see :data:`~escaramuza.gm.help.HELP`."""
        st = self.state
        sc = st.scenario
        self.say(
            _f(
                "{title} [{name}, {ruleset}] — round {round}/{limit}",
                sc.title,
                sc.name,
                st.ruleset.name,
                st.round,
                sc.round_limit,
            )
        )
        if st.outcome is not None:
            self._say_outcome()
        elif st.pending is not None:
            c = st.by_id[st.pending.actor]
            self.say(
                _f(
                    "Pending: {name} [{id}] ({side}) — {decision}",
                    c.name,
                    c.id,
                    word(c.side.value),
                    word(st.pending.name),
                )
            )
        self.say(_f("Dice: {mode}", self.roll_mode))
        if self.pilot is not None:
            self.say(_f("Autopilot: the enemies, by {pilot}", self.pilot.text()))
        # Sides and statuses in words of the current language, each column as wide as
        # its longest entry (Spanish words are longer than the English ones).
        sides = {c.id: word(c.side.value) for c in st.combatants}
        statuses = {c.id: word(c.status.value) for c in st.combatants}
        w_side = max(map(len, sides.values()))
        w_status = max(map(len, statuses.values()))
        for c in st.combatants:
            mark = ">" if st.pending is not None and st.pending.actor == c.id else " "
            res = ", ".join(
                f"{k} {v}/{c.maxima[k]}" if k in c.maxima else f"{k} {v}"
                for k, v in c.resources.items()
            )
            conds = ", ".join(x.text() for x in c.conditions.values())
            self.say(
                f" {mark} {c.id:<14} {sides[c.id]:<{w_side}} {c.zone:<12} "
                f"{statuses[c.id]:<{w_status}} {res}" + (f"  [{conds}]" if conds else "")
            )

    def do_map(self, arg: str) -> None:
        """The ``map`` command: see :data:`~escaramuza.gm.help.HELP`."""
        st = self.state
        bf = st.battlefield
        for zid in bf.zone_ids:
            z = bf.zones[zid]
            tags = [_f("cover {cover}", z.cover)] if z.cover else []
            tags += [_("exit")] * z.exit + [_("difficult")] * z.difficult
            who = ", ".join(
                f"{c.id}{'' if c.active else ' (' + word(c.status.value) + ')'}"
                for c in st.combatants
                if c.zone == zid
            )
            label = f"{zid} ({z.name})" if z.name != zid else zid
            extra = f" [{', '.join(tags)}]" if tags else ""
            self.say(f"  {label}{extra}: {who or '—'}")
            self.say(_f("      links: {zones}", ", ".join(bf.neighbours(zid)) or "—"))

    def do_actions(self, arg: str) -> None:
        """The ``actions`` command: see :data:`~escaramuza.gm.help.HELP`."""
        st = self.state
        if st.outcome is not None or st.pending is None:
            self.say(_("The battle is over: no actions."))
            return
        actions = st.ruleset.legal_actions(st)
        self._numbered = (st, actions)
        for i, a in enumerate(actions, start=1):
            self.say(f"  {i:>2}. {st.ruleset.describe(st, a)}   [{a}]")

    def do_log(self, arg: str) -> None:
        """The ``log`` command: see :data:`~escaramuza.gm.help.HELP`."""
        # Not log[-0:] (every event) for "log 0", nor the default for "log x".
        text = arg.strip()
        if text and not (text.isdecimal() and int(text) >= 1):
            raise GMError(_f("usage: {usage}", "log [N]"))
        n = int(text) if text else 15
        for e in self.state.log[-n:]:
            if e.text:
                self.say("  " + e.text)

    def _say_outcome(self) -> None:
        o = self.state.outcome
        assert o is not None
        who = who_wins(o.winner.value) if o.winner else _("draw")
        self.say(_f("Battle over: {who} ({reason}).", who, outcome_reason(o.reason)))

    def _say_pending(self) -> None:
        st = self.state
        if st.outcome is not None:
            self._say_outcome()
        elif st.pending is not None:
            c = st.by_id[st.pending.actor]
            self.say(_f("Next: {name} [{id}] — {decision}.", c.name, c.id, word(st.pending.name)))

    def do_help(self, arg: str) -> None:
        """The ``help`` command: see :data:`~escaramuza.gm.help.HELP`."""
        if arg.strip():
            # One command: "help set extra" was looked up as the command "set extra".
            if len(arg.split()) > 1:
                raise GMError(_f("usage: {usage}", "help [COMMAND]"))
            name = arg.strip()
            method = getattr(self, f"do_{name}", None)
            if method is None:
                self.default(name)
                return
            self.say(_(HELP[name]) if name in HELP else name)
            return
        self.say(_("Commands (help COMMAND for details):"))
        for name in sorted(HELP):
            self.say(f"  {_(HELP[name]).splitlines()[0]}")
