"""The autopilot's commands: ``auto [AGENT]`` / ``auto off`` and ``plan``.

With the autopilot on, every decision of the enemy side — turns, reactions, the
rulesets' choices — is taken by the pilot's agent after each change that hands the
battle to the enemies (an applied action, the initiative, ``auto`` itself), narrated
with its reason and the side's win chance, until the heroes decide (or the battle
ends). Each decision is applied exactly as ``apply`` applies one — the session's dice
(the tool's, or asked die by die with ``roll manual``), the undo history, the autosave —
and is marked as the autopilot's, so that ``undo`` takes back the GM's last command
together with everything the autopilot played after it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from escaramuza.gm.autopilot import (
    AUTO_SIDE,
    DEFAULT_AGENT,
    AutoDecision,
    Pilot,
    ProgressLine,
    decide,
    decisions_left,
    make_pilot,
)
from escaramuza.gm.commands import SessionCommands
from escaramuza.gm.plan import (
    DEFAULT_PLAN_ITERATIONS,
    DEFAULT_PLAYOUTS,
    DEFAULT_SAMPLES,
    plan_progress,
    plan_round,
)
from escaramuza.gm.state import GMError
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f, ngettext, word
from escaramuza.rules.core.state import BattleState

#: Why a stretch of the autopilot stopped (``AutoCommands.auto_stopped``).
STOP_REASONS = ("heroes", "over", "decisions", "time", "aborted", "interrupted")


@dataclass(frozen=True, slots=True)
class StretchLimit:
    """How far one stretch of the autopilot may go: decisions and wall-clock seconds (the
    web page's caps; the terminal has none, Ctrl-C stops it)."""

    decisions: int
    seconds: float


class AutoCommands(SessionCommands):
    """``auto`` and ``plan``, and the autopilot's play after each change."""

    #: A limit on one stretch, the decisions of the last stretch and why it stopped.
    stretch_limit: StretchLimit | None = None
    last_stretch: tuple[AutoDecision, ...] = ()
    auto_stopped: str | None = None
    #: Called before each of the autopilot's decisions with the state and how many it
    #: played so far (the web page's progress; the terminal draws a line on stderr).
    on_auto_progress: Callable[[BattleState, int], None] | None = None
    #: The round whose enemy decisions the phase budget is counting, and the seconds
    #: they took so far.
    _phase_round = -1
    _phase_spent = 0.0

    # -- the commands -----------------------------------------------------------------
    def do_auto(self, arg: str) -> None:
        """The ``auto`` command: see :data:`~escaramuza.gm.help.HELP`."""
        spec = arg.strip()
        if spec == "off":
            if self.pilot is None:
                self.say(_("The autopilot is already off."))
                return
            self.set_pilot(None)
            self.say(_("ok: autopilot off; the GM takes every decision."))
            return
        if spec or self.pilot is None:
            pilot = make_pilot(spec or DEFAULT_AGENT, self.budget_ms, self.iterations, self.engine)
            self.switch_on(pilot)
            return
        self.autoplay(started_by_auto=True)

    def do_plan(self, arg: str) -> None:
        """The ``plan`` command: see :data:`~escaramuza.gm.help.HELP`."""
        words = arg.split()
        if len(words) > 1 or (words and not words[0].isdecimal()):
            raise GMError(_f("usage: {usage}", "plan [SAMPLES]"))
        samples = int(words[0]) if words else DEFAULT_SAMPLES
        iterations = self.iterations if self.iterations is not None else DEFAULT_PLAN_ITERATIONS
        with plan_progress(samples + DEFAULT_PLAYOUTS) as progress:
            plan = plan_round(
                self.state,
                samples=samples,
                iterations=iterations,
                seed=self.seed + self.steps,
                engine=self.engine,
                progress=progress,
            )
        self.say(plan.table())

    # -- the pilot --------------------------------------------------------------------
    def switch_on(self, pilot: Pilot) -> None:
        """Turn the autopilot on with ``pilot``, say so, and let it play if an enemy decides."""
        self.set_pilot(pilot)
        self.say(_f("ok: autopilot on — the enemies are played by {pilot}.", pilot.text()))
        self.autoplay(started_by_auto=True)

    # -- changes that hand the battle to the enemies ------------------------------------
    def do_apply(self, arg: str) -> None:
        super().do_apply(arg)
        self.autoplay()

    def do_initiative(self, arg: str) -> None:
        super().do_initiative(arg)
        self.autoplay()

    # -- the stretch --------------------------------------------------------------------
    def autoplay(self, started_by_auto: bool = False) -> None:
        """Play the enemies' decisions until the heroes decide, the battle ends, a limit
        is reached, a manual die is not given or the GM presses Ctrl-C. ``started_by_auto``:
        the ``auto`` command asked, and says so where it has nothing to play."""
        self.last_stretch = ()
        self.auto_stopped = None
        pilot = self.pilot
        if pilot is None:
            return
        st = self.state
        if st.outcome is not None or st.pending is None:
            if started_by_auto:
                self.say(_("The battle is over: the autopilot has nothing to play."))
            return
        if st.pending.side is not AUTO_SIDE:
            if started_by_auto:
                c = st.by_id[st.pending.actor]
                self.say(
                    _f(
                        "The heroes decide now ({name} [{id}] — {decision}): the autopilot "
                        "waits, and plays the enemies after the heroes' action.",
                        c.name,
                        c.id,
                        word(st.pending.name),
                    )
                )
            return
        if started_by_auto:
            # A change of its own, so that undo takes the stretch back to here.
            self._commit(self.state, _("auto"))
        played: list[AutoDecision] = []
        why = self._stretch(pilot, played)
        if started_by_auto and not played:
            self.history.pop()  # nothing was played: no change to undo
        self.last_stretch = tuple(played)
        self.auto_stopped = why
        self._say_stretch(why, len(played))

    def _why_stop(self, played: int, began: float) -> str | None:
        """Why the stretch stops before its next decision (:data:`STOP_REASONS`), or None."""
        st, limit = self.state, self.stretch_limit
        if st.outcome is not None or st.pending is None:
            return "over"
        if st.pending.side is not AUTO_SIDE:
            return "heroes"
        if limit is not None and played >= limit.decisions:
            return "decisions"
        if limit is not None and time.monotonic() - began >= limit.seconds:
            return "time"
        return None

    def _stretch(self, pilot: Pilot, played: list[AutoDecision]) -> str:
        """Take the enemies' decisions one by one into ``played``; why it stopped."""
        line = ProgressLine()
        began = time.monotonic()
        try:
            while (why := self._why_stop(len(played), began)) is None:
                st = self.state
                line.show(st, len(played))
                if self.on_auto_progress is not None:
                    self.on_auto_progress(st, len(played))
                share = self._phase_share(st, pilot)
                began_decision = time.monotonic()
                try:
                    decision = decide(st, pilot, self.pilot_agent, self.seed + self.steps, share)
                    line.clear()
                    self.play_auto(decision)
                except EscaramuzaError as exc:  # a manual die not given, an engine refusal
                    line.clear()
                    self.say(_f("error: {message}", exc))
                    return "aborted"
                self._phase_spent += time.monotonic() - began_decision
                played.append(decision)
        except KeyboardInterrupt:
            return "interrupted"
        finally:
            line.clear()
        return why

    def _phase_share(self, state: BattleState, pilot: Pilot) -> float | None:
        """This decision's share, in ms, of what is left of the round's phase budget
        (:data:`~escaramuza.gm.autopilot.PHASE_BUDGETS`); None with an iteration budget."""
        phase = pilot.phase_ms
        if phase is None:
            return None
        if self._phase_round != state.round:
            self._phase_round, self._phase_spent = state.round, 0.0
        return (phase - self._phase_spent * 1000) / decisions_left(state)

    def play_auto(self, decision: AutoDecision) -> None:
        """Apply one of the autopilot's decisions as ``apply`` applies the GM's, with its
        reason said and written to the battle's log."""
        st = self.state
        line = st.ruleset.describe(st, decision.action)
        why = decision.why()
        events = self.carry_out(
            decision.action,
            None,
            _f("apply [{action}] (autopilot)", decision.action),
            auto=True,
            note=_f("{action} ({why})", line, why),
        )
        self.say(f"» {line}")
        self.say("    " + why)
        for e in events:
            if e.text:
                self.say("    " + e.text)

    def _say_stretch(self, why: str, played: int) -> None:
        """The stretch's last line: how many decisions, why it stopped, who decides."""
        count = ngettext(
            "the autopilot played {n} decision", "the autopilot played {n} decisions", played
        ).format(n=played)
        st = self.state
        if why == "heroes" and st.pending is not None:
            c = st.by_id[st.pending.actor]
            self.say(
                _f(
                    "Heroes' decision: {name} [{id}] — {decision} ({count}).",
                    c.name,
                    c.id,
                    word(st.pending.name),
                    count,
                )
            )
            return
        if why == "over":
            self._say_pending()
            return
        reason = {
            "decisions": _("it reached this page's limit of decisions at once"),
            "time": _("it reached this page's time limit at once"),
            "aborted": _("its decision could not be applied"),
            "interrupted": _("interrupted"),
        }[why]
        self.say(
            _f(
                "Autopilot paused ({reason}); {count}. An enemy decides: type auto to go on, "
                "or apply an action.",
                reason,
                count,
            )
        )
        self._say_pending()
