"""``gm``'s enemy autopilot: ``auto [AGENT]`` / ``auto off``, driven by scripted input lines.

The searches run on the reference engine with small iteration budgets (the fast tier
calls no compiled kernel): an iteration budget gives the same decisions on either engine.
The whole shipped battles, on the kernels, are the slow tests at the end.
"""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest

from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.agents.suggest import suggest
from escaramuza.cli import main
from escaramuza.gm import GMSession, run_session
from escaramuza.gm.autopilot import AUTO_SIDE, decisions_left, make_pilot
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import shipped_scenarios
from escaramuza.state_file import load_state, save_state, state_to_dict
from tests.gm.test_gm_session import drive as session_drive

DUEL = "destiny_dice/brann-vs-saqueador"
AMBUSH = "destiny_dice/emboscada"
#: The autopilot's line for one decision: who chose, win % (interval), rollouts, reason.
WHY = re.compile(r"^    autopilot \((?P<who>[^)]+)\): win \d+% \(\d+–\d+%\), \d+ rollouts; \S")


def drive(
    lines: list[str],
    target: str = DUEL,
    autosave: Path | None = None,
    iterations: int | None = 6,
    seed: int = 3,
) -> tuple[GMSession, str]:
    """The session of test_gm_session's drive, its searches on the reference engine at a
    small iteration budget."""
    return session_drive(
        lines, target, autosave, engine="reference", iterations=iterations, seed=seed
    )


def after(out: str, command_index: int) -> str:
    """What the session printed for its N-th command (0-based), prompts split off."""
    return out.split("gm> ")[command_index + 1]


def file_bytes(session: GMSession, path: Path) -> bytes:
    save_state(session.state, path, session.meta())
    return path.read_bytes()


def test_auto_on_a_heroes_turn_says_so_and_waits() -> None:
    session, out = drive(["auto", "show"])
    said = after(out, 0)
    assert "ok: autopilot on — the enemies are played by mcts, 6 rollouts a decision." in said
    assert "The heroes decide now (Brann [brann] — turn): the autopilot waits" in said
    assert "» " not in said and session.steps == 0 and session.history == []
    assert "Autopilot: the enemies, by mcts, 6 rollouts a decision" in after(out, 1)


def test_after_a_heroes_action_the_enemies_play_until_the_heroes_decide() -> None:
    # Brann ends his turn: the Saqueador's whole turn is the autopilot's, then Brann again.
    session, out = drive(["auto", "apply fin_turno"])
    said = after(out, 1)
    lines = said.splitlines()
    played = [i for i, line in enumerate(lines) if line.startswith("» Saqueador")]
    assert played, said
    for i in played:  # each of its decisions: the action, then the reason line
        assert WHY.match(lines[i + 1]), lines[i + 1]
    # The heroes decide next: Brann's turn, or his reaction to the Saqueador's attack.
    assert re.search(r"Heroes' decision: Brann \[brann\] — .+ \(the autopilot played \d+ ", said)
    st = session.state
    assert st.outcome is not None or st.pending is not None and st.pending.side is Side.HEROES
    # Every decision is a step of the session, as an applied one is.
    assert session.steps == 1 + len(played) == session.applied


def test_the_autopilot_plays_what_suggest_ranks_first_at_the_same_seed_and_budget() -> None:
    session, out = drive(["apply fin_turno"], iterations=6)  # no autopilot: the enemy decides
    state, step = session.state.clone(), session.steps
    assert state.pending is not None and state.pending.side is AUTO_SIDE
    first = suggest(state, budget_ms=None, iterations=6, seed=3 + step, engine="reference")
    session.onecmd("auto")
    taken = next(c for c in session.history if c.auto)
    assert taken.what == f"apply [{first.best.action}] (autopilot)"


def test_undo_returns_to_the_last_heroes_decision_exactly(tmp_path: Path) -> None:
    session, _ = drive(["auto"])
    before = file_bytes(session, tmp_path / "before.json")
    session.onecmd("apply fin_turno")
    assert sum(c.auto for c in session.history) >= 1
    out = io.StringIO()
    session.out = out
    session.onecmd("undo")
    undone = out.getvalue()
    said = r"undone: apply \[brann: fin_turno\], and the autopilot's (\d+ )?decisions? after"
    assert re.search(said, undone)
    assert file_bytes(session, tmp_path / "after.json") == before
    # Applied again, the same dice and searches play the same stretch (seed and step).
    session.onecmd("apply fin_turno")
    again = file_bytes(session, tmp_path / "again.json")
    session.onecmd("undo")
    session.onecmd("apply fin_turno")
    assert file_bytes(session, tmp_path / "third.json") == again


def test_undo_n_goes_further_and_refuses_more_than_there_is(tmp_path: Path) -> None:
    session, _ = drive(["auto"])
    start = file_bytes(session, tmp_path / "start.json")
    session.onecmd("apply fin_turno")
    middle = file_bytes(session, tmp_path / "middle.json")
    session.onecmd("apply 1")  # the heroes' first legal action, whatever they decide
    out = io.StringIO()
    session.out = out
    session.onecmd("undo 3")
    assert "there are only 2 changes to undo; nothing was undone" in out.getvalue()
    assert session.state.round >= 1 and file_bytes(session, tmp_path / "x.json") != middle
    session.onecmd("undo 2")
    assert file_bytes(session, tmp_path / "back.json") == start
    assert middle != start


def test_the_autosave_records_each_decision_of_the_autopilot(tmp_path: Path) -> None:
    autosave = tmp_path / "auto.json"
    session, _ = drive(["auto", "apply fin_turno"], autosave=autosave)
    saved = json.loads(autosave.read_text(encoding="utf-8"))
    assert saved["meta"]["steps"] == session.steps > 1
    assert saved["meta"]["autopilot"] == {"agent": "mcts", "budget_ms": 800.0, "iterations": 6}
    assert autosave.read_bytes() == file_bytes(session, tmp_path / "now.json")


def test_a_state_file_brings_the_autopilot_back(tmp_path: Path) -> None:
    drive(["auto brute", f"save {tmp_path / 'on.json'}"])
    session, out = drive(["show"], target=str(tmp_path / "on.json"))
    assert session.pilot is not None and session.pilot.agent == "brute"
    assert "Autopilot: the enemies, by brute" in out
    # `load` too, and a file without one leaves the session's as it is.
    session, _ = drive(["auto off", f"load {tmp_path / 'on.json'}"])
    assert session.pilot is not None and session.pilot.agent == "brute"


def test_a_bad_autopilot_in_a_state_file_is_one_line_with_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drive(["auto", f"save {tmp_path / 'on.json'}"])
    doc = json.loads((tmp_path / "on.json").read_text(encoding="utf-8"))
    doc["meta"]["autopilot"]["iterations"] = "many"
    (tmp_path / "bad.json").write_text(json.dumps(doc), encoding="utf-8")
    assert main(["gm", str(tmp_path / "bad.json"), "--no-autosave"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "bad.json: meta.autopilot.iterations: expected a whole number, not 'many'" in err


def test_a_temperament_plays_its_own_choice_with_the_searchs_numbers() -> None:
    session, out = drive(["auto brute", "apply fin_turno"])
    said = after(out, 1)
    assert "autopilot (brute's choice): win " in said
    auto = [c for c in session.history if c.auto]
    assert auto
    # The first of them is what the brute's heuristic picks in that state.
    before = auto[0].before
    legal = before.ruleset.legal_actions(before)
    pick = heuristic_choice(before, legal, random.Random(3 + 1), "brute")
    assert auto[0].what == f"apply [{pick}] (autopilot)"


def test_auto_off_gives_every_decision_back_to_the_gm() -> None:
    session, out = drive(["auto", "auto off", "apply fin_turno", "auto off"])
    assert "ok: autopilot off; the GM takes every decision." in after(out, 1)
    assert "autopilot (" not in after(out, 2)
    assert session.state.pending is not None and session.state.pending.side is AUTO_SIDE
    assert "The autopilot is already off." in after(out, 3)


def test_auto_when_an_enemy_decides_plays_at_once_and_undo_takes_it_back(tmp_path: Path) -> None:
    session, _ = drive(["apply fin_turno"])
    enemy = state_to_dict(session.state)
    out = io.StringIO()
    session.out = out
    session.onecmd("auto")
    assert "» Saqueador" in out.getvalue()
    session.onecmd("undo")
    assert "undone: auto, and the autopilot's" in out.getvalue()
    assert state_to_dict(session.state) == enemy and session.steps == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("auto nobody", "unknown agent 'nobody'"),
        ("auto mcts:0it", "the autopilot's rollouts must be 1–100000, not 0"),
        ("auto mcts:fast:soon", "bad planner budget 'mcts:fast:soon'"),
        ("undo 0", "usage: undo [N]"),
        ("undo many", "usage: undo [N]"),
    ],
)
def test_bad_autopilot_commands_say_why_and_change_nothing(line: str, message: str) -> None:
    session, out = drive([line])
    assert message in after(out, 0)
    assert session.pilot is None and session.history == []


def test_manual_dice_are_asked_for_each_die_of_the_enemys_decision() -> None:
    # Brann's fin_turno rolls nothing; the Saqueador's attack asks for its dice. An empty
    # answer stops the autopilot there, with nothing of that decision applied.
    session, out = drive(["roll manual", "auto", "apply fin_turno", ""])
    said = after(out, 2)
    assert re.search(r"  d\d+ for .+\? ", said), said
    assert "nothing was applied" in said and "Autopilot paused" in said
    assert session.state.pending is not None and session.state.pending.side is AUTO_SIDE


def test_a_stretch_stops_at_its_limit_and_auto_goes_on() -> None:
    from escaramuza.gm.auto import StretchLimit

    session, _ = drive(["apply fin_turno"], target=AMBUSH, iterations=2, seed=1)
    while session.state.pending is not None and session.state.pending.side is Side.HEROES:
        session.onecmd("apply fin_turno")
    session.stretch_limit = StretchLimit(decisions=1, seconds=60.0)
    out = io.StringIO()
    session.out = out
    session.onecmd("auto")
    assert session.auto_stopped in ("decisions", "heroes", "over")
    if session.auto_stopped == "decisions":
        assert len(session.last_stretch) == 1 and "Autopilot paused" in out.getvalue()


def test_the_phase_budget_counts_the_enemy_turns_left_in_the_round() -> None:
    session, _ = drive([], target=AMBUSH, seed=1)
    st = session.state
    enemies = sum(c.side is AUTO_SIDE and c.active for c in st.combatants)
    assert decisions_left(st) == 2 * enemies  # Ilse first: every enemy is still to act
    pilot = make_pilot("mcts", 800.0)
    assert pilot.phase_ms == 6000.0 and make_pilot("mcts:40it").phase_ms is None


def test_an_autopiloted_round_is_the_same_byte_for_byte(tmp_path: Path) -> None:
    """The same scenario, seed and iteration budget: the same transcript and state file."""
    script = ["auto", "apply fin_turno", "apply fin_turno", f"save {tmp_path / 'x.json'}"]

    def run() -> tuple[str, bytes]:
        _, out = drive(script, target=AMBUSH, iterations=3, seed=2)
        return out, (tmp_path / "x.json").read_bytes()

    first, again = run(), run()
    assert first == again
    assert "autopilot (mcts)" in first[0]


def test_the_cli_takes_the_sessions_budget(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gm", DUEL, "--iterations", "0", "--no-autosave"]) == 2
    assert "--iterations must be 1–100000, not 0" in capsys.readouterr().err
    assert main(["gm", DUEL, "--budget-ms", "nan", "--no-autosave"]) == 2
    assert "--budget-ms must be 10–60000 ms" in capsys.readouterr().err


# -- the shipped battles, autopiloted through the session's commands ---------------------


def hero_action(state: object, rng: random.Random) -> str:
    """The number of the heroes' in-character action in the legal order (``apply N``)."""
    st = state  # a BattleState
    legal = st.ruleset.legal_actions(st)  # type: ignore[attr-defined]
    return str(legal.index(heuristic_choice(st, legal, rng)) + 1)  # type: ignore[arg-type]


@pytest.mark.compile
@pytest.mark.parametrize("name", sorted(shipped_scenarios()))
def test_shipped_battles_stop_only_at_heroes_decisions_and_undo_exactly(
    name: str, tmp_path: Path
) -> None:
    session = run_session(name, io.StringIO(""), io.StringIO(), False, seed=5, iterations=12)
    session.onecmd("auto")
    rng = random.Random(5)
    stops = 0
    while session.state.outcome is None and stops < 400:
        st = session.state
        assert st.pending is not None and st.pending.side is Side.HEROES, (name, st.pending)
        before = file_bytes(session, tmp_path / "before.json")
        choice = hero_action(st, rng)
        session.onecmd(f"apply {choice}")
        after_apply = file_bytes(session, tmp_path / "after.json")
        session.onecmd("undo")
        assert file_bytes(session, tmp_path / "undone.json") == before, name
        session.onecmd(f"apply {choice}")  # the same again: the same dice and searches
        assert file_bytes(session, tmp_path / "redone.json") == after_apply, name
        stops += 1
    assert session.state.outcome is not None, f"{name}: no end after {stops} heroes' decisions"
    assert state_to_dict(session.state)["round"] >= 1
    assert load_state(tmp_path / "redone.json")[0].outcome is not None


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_says_who_decides_on_a_terminal_only() -> None:
    from escaramuza.gm.autopilot import ProgressLine
    from escaramuza.progress import quiet

    session, _ = drive(["apply fin_turno"], target=AMBUSH, seed=1)
    st = session.state
    while st.pending is not None and st.pending.side is Side.HEROES:
        session.onecmd("apply 1")
        st = session.state
    assert st.pending is not None
    name = st.by_id[st.pending.actor].name
    screen = Terminal()
    line = ProgressLine(screen)
    line.show(st, 0)
    drawn = screen.getvalue()
    said = rf"\rautopilot: round 1, enemy turn \d of \d — {name} decides \(turn\); "
    assert re.match(said, drawn)
    line.clear()
    assert screen.getvalue().endswith("\r")
    piped = io.StringIO()
    ProgressLine(piped).show(st, 0)
    with quiet():
        silenced = Terminal()
        ProgressLine(silenced).show(st, 0)
    assert piped.getvalue() == silenced.getvalue() == ""
