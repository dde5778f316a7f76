"""The enemies' round plan: ``suggest --plan`` and ``plan`` in ``gm``.

Small sizes on the reference engine (an iteration budget plans the same on either).
"""

from __future__ import annotations

import io
import json

import pytest

from escaramuza.cli import main
from escaramuza.gm import plan as plan_module
from escaramuza.gm import run_session
from escaramuza.gm.plan import PlanError, plan_round
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.ruleset import new_battle
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.rules.core.stats import wilson_interval

AMBUSH = "destiny_dice/emboscada"
QUICK = ["--samples", "3", "--playouts", "12", "--iterations", "4", "--engine", "reference"]


def plan_json(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    assert main(["suggest", AMBUSH, "--plan", "--json", "--seed", "2", *QUICK, *extra]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_the_plan_is_reproducible_and_consistent(capsys: pytest.CaptureFixture[str]) -> None:
    first, again = plan_json(capsys), plan_json(capsys)
    first.pop("elapsed_ms")
    again.pop("elapsed_ms")
    assert first == again
    state = new_battle(load_scenario(AMBUSH), RandomRoller(2))
    enemies = {c.id for c in state.combatants if c.side is Side.ENEMIES}
    turns = first["turns"]
    assert isinstance(turns, list) and turns
    actors = [t["actor"] for t in turns]
    # Each enemy at most once, in the initiative order.
    assert set(actors) <= enemies and len(set(actors)) == len(actors)
    assert actors == sorted(actors, key=state.order.index)
    for t in turns:
        assert 1 <= t["chosen"] <= t["acted"] <= 3
        assert all(a["actor"] == t["actor"] for a in t["actions"]) and t["reason"]
    assert first["playouts"] == 12
    low, high = first["win_interval"]  # type: ignore[misc]
    wins = round(first["win_probability"] * 12)  # type: ignore[operator]
    assert [low, high] == [round(x, 4) for x in wilson_interval(wins, 12)]
    assert 0 <= first["followed_actions"] <= first["planned_actions"]  # type: ignore[operator]


def test_an_enemys_plan_is_its_most_frequent_turn_ties_to_the_first_seen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The aggregation alone, on continuations made up for the test."""
    state = new_battle(load_scenario(AMBUSH), RandomRoller(2))
    hit = Action("atacar", "arquero1", target="ilse", item="arco corto")
    move = Action("mover", "arquero1", zone="ruinas")
    end = Action("fin_turno", "arquero1")
    spear = Action("fin_turno", "lancero1")
    made_up = iter(
        [
            {"arquero1": (3, (move, end), "moves"), "lancero1": (9, (spear,), "waits")},
            {"arquero1": (2, (hit, end), "hits")},
            {"arquero1": (2, (hit, end), "hits again"), "lancero1": (8, (spear,), "still")},
            {"arquero1": (4, (move, end), "moves again")},
        ]
    )

    def fake(*_args: object) -> dict[str, tuple[int, tuple[Action, ...], str]]:
        return next(made_up)

    def no_playouts(*_args: object) -> tuple[bool, int, int]:
        return False, 0, 0

    monkeypatch.setattr(plan_module, "_continuation", fake)
    monkeypatch.setattr(plan_module, "_playout", no_playouts)
    plan = plan_round(state, samples=4, iterations=1, playouts=1)
    archer, spearman = plan.turns
    # 2–2: the turn seen first (moving) is the plan; its reason is its first one's.
    assert (archer.actor, archer.actions, archer.chosen, archer.acted) == (
        "arquero1",
        (move, end),
        2,
        4,
    )
    assert archer.reason == "moves"
    assert (spearman.actor, spearman.chosen, spearman.acted, spearman.reason) == (
        "lancero1",
        2,
        2,
        "waits",
    )


def test_the_playouts_follow_the_plan_while_it_is_legal() -> None:
    state = new_battle(load_scenario(AMBUSH), RandomRoller(4))
    legal_end = {c.id: Action("fin_turno", c.id) for c in state.combatants}
    plan = {"arquero1": (legal_end["arquero1"],), "lancero1": (Action("mover", "lancero1"),)}
    won, reached, followed = plan_module._playout(state, state.round, plan, 11)
    # Both enemies act in round 1 (nobody is down yet at their turns' start in most
    # dice, but an archer shot down before its turn is possible): the end of the turn
    # is always legal, a move with no zone never is.
    assert reached >= 1 and followed <= reached
    assert followed <= 1 and isinstance(won, bool)


def test_gm_plan_prints_the_table() -> None:
    out = io.StringIO()
    run_session(
        AMBUSH,
        io.StringIO("plan 2\nplan many\nquit\n"),
        out,
        False,
        seed=2,
        engine="reference",
        iterations=3,
    )
    text = out.getvalue()
    assert "Round 1 — the enemies' plan: 2 sampled continuations" in text
    assert "chosen in " in text and "If the plan is followed, the enemies win " in text
    assert "usage: plan [SAMPLES]" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--samples", "0"], "samples must be 1–100, not 0"),
        (["--playouts", "9999"], "playouts must be 1–5000, not 9999"),
        (["--budget-ms", "300"], "--budget-ms does not go with --plan"),
    ],
)
def test_bad_plan_options_are_one_line(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # --budget-ms and --iterations are one or the other: without QUICK's --iterations.
    quick = QUICK[:4] + QUICK[6:] if "--budget-ms" in extra else QUICK
    assert main(["suggest", AMBUSH, "--plan", *quick, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_samples_without_plan_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["suggest", AMBUSH, "--samples", "3"]) == 2
    assert "--samples goes with --plan" in capsys.readouterr().err


def test_a_finished_battle_has_no_plan() -> None:
    session = run_session(
        "destiny_dice/brann-vs-saqueador",
        io.StringIO("status saqueador dead\n"),
        io.StringIO(),
        False,
        engine="reference",
    )
    with pytest.raises(PlanError, match="nothing to plan"):
        plan_round(session.state, samples=1, iterations=1, playouts=1)
