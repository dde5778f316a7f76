"""Suggestions ranked by value, "too close to call", and a search that goes on
until the best is clear (``rank``, the race root, ``suggest(max_ms=…)``)."""

from __future__ import annotations

import copy
import json
import math
import random
import re
from pathlib import Path

import pytest

from escaramuza.agents.fast import use_kernel
from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.agents.search import IDENTICAL_SHARED, MCTS, MIN_SHARED, Node, SearchResult, rank
from escaramuza.agents.suggest import suggest
from escaramuza.cli import main
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import parse_scenario
from escaramuza.rules.core.state import BattleState
from tests.agents.test_search_planner import FORCED_WIN, KILL, forced_state
from tests.agents.test_suggest_ranking import enemy_turn

ROOT = Path(__file__).resolve().parents[2]
AMBUSH = "destiny_dice/emboscada"
#: Generous: the clock is read between rollouts (one may overrun), and the machine is shared.
SLACK_MS = 1500.0


def crafted(
    actions: list[Action], wins: dict[Action, int], heuristic: Action, n: int = 10, actor: str = "x"
) -> SearchResult:
    """A search whose k-th rollout of an action with w wins was won exactly when k < w:
    nested wins, so the paired difference of two actions is 1 on |w₁ − w₂| seeds, 0 else."""
    root = Node()
    for a in actions:
        w = wins.get(a, 0)
        flags = [1.0 if k < w else 0.0 for k in range(n)]
        root.children[a] = Node(
            visits=n,
            value=sum(2 * f - 1 for f in flags),
            wins=w,
            losses=n - w,
            samples=[2 * f - 1 for f in flags],
            win_samples=flags,
        )
    return SearchResult(
        root, list(actions), Side.ENEMIES, actor, heuristic, n * len(actions), 1.0, list(actions)
    )


def separated_by_hand(d: int, n: int, z: float = 2.0) -> bool:
    """Paired test of d ones and n − d zeros, computed from the closed form: mean d/n,
    sample variance d(n − d) / (n(n − 1)), standard error √(variance / n)."""
    mean = d / n
    stderr = math.sqrt(d * (n - d) / (n * (n - 1)) / n)
    return n >= MIN_SHARED and mean - z * stderr > 0


def test_rank_by_hand_clear_and_tied() -> None:
    a, b, c, d = (Action("fin_turno", f"a{i}") for i in range(4))
    result = crafted([a, b, c, d], {a: 9, b: 8, c: 5, d: 1}, heuristic=b)
    ranking = rank(result, metric="win")
    assert ranking.best == a
    assert ranking.estimate == pytest.approx({a: 0.9, b: 0.8, c: 0.5, d: 0.1})
    # 1 seed apart: not separated; 4 seeds apart: separated (by the closed form).
    assert not separated_by_hand(1, 10) and separated_by_hand(4, 10)
    assert ranking.tied == {a, b}
    assert ranking.verdict == "too_close"
    # The in-character pick heads the group; then the best; then the rest by estimate.
    assert ranking.order == (b, a, c, d)
    assert ranking.runner_up == b
    assert ranking.gap[b].gain == pytest.approx(0.1)
    low, high = ranking.interval(b)
    se = math.sqrt(1 * 9 / (10 * 9) / 10)
    assert (low, high) == pytest.approx((0.1 - 2 * se, 0.1 + 2 * se))


def test_rank_clear_when_every_other_action_is_separated() -> None:
    a, b, c = (Action("fin_turno", f"a{i}") for i in range(3))
    result = crafted([a, b, c], {a: 10, b: 5, c: 0}, heuristic=c)
    ranking = rank(result, metric="win")
    assert ranking.verdict == "clear" and ranking.tied == {a}
    assert ranking.order == (a, b, c)  # the in-character pick is not preferred when beaten
    assert ranking.runner_up == b  # the least separated: 5 seeds apart, not 10


def test_rank_needs_min_shared_rollouts_to_separate() -> None:
    a, b = Action("fin_turno", "a"), Action("fin_turno", "b")
    few = crafted([a, b], {a: MIN_SHARED - 1}, heuristic=b, n=MIN_SHARED - 1)
    assert rank(few, metric="win").verdict == "too_close"  # a perfect record, too short
    enough = crafted([a, b], {a: MIN_SHARED}, heuristic=b, n=MIN_SHARED)
    assert rank(enough, metric="win").verdict == "clear"


def test_suggest_order_and_reason_agree_on_a_crafted_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = enemy_turn(AMBUSH, 3)
    actions = state.ruleset.legal_actions(state)
    assert len(actions) >= 4
    pick = heuristic_choice(state, actions, random.Random(0))
    others = [a for a in actions if a != pick]
    wins = {others[0]: 9, pick: 8, others[1]: 5}
    wins.update({a: 2 for a in others[2:]})
    result = crafted(actions, wins, pick, actor=state.pending.actor)
    monkeypatch.setattr(MCTS, "search", lambda self, st, rng, root=None: result)
    out = suggest(state, iterations=10, budget_ms=None, seed=0)
    rows = out.items
    assert [s.action for s in rows[:3]] == [pick, others[0], others[1]]
    assert out.verdict == "too_close"
    assert [s.tied_with_best for s in rows] == [True, True] + [False] * (len(rows) - 2)
    assert rows[0].in_character and "10 points below the best" in rows[0].reason
    assert "too close to call" in rows[0].reason
    assert "highest win chance found, too close to call" in rows[1].reason
    for s in rows[2:]:
        gap = 9 - wins[s.action]  # points: wins out of 10 rollouts, nested on the same dice
        assert re.search(
            rf"\b{gap * 10} points below the best on the same dice$",
            s.reason.split("; risk")[0].split("; ")[-1],
        )
    # Below the group the rows follow the estimate; the WIN column is each row's own count.
    estimates = [s.estimate for s in rows[2:]]
    assert estimates == sorted(estimates, reverse=True)
    assert [s.win for s in rows] == [wins[s.action] / 10 for s in rows]
    table = out.table()
    # The group's rows (each with its reason on the line below it).
    group = [line for line in table.splitlines() if re.match(r"│ +\d+[* ] ", line)]
    assert len(group) == 2
    assert "┌ too close to call: any of these" in table


def two_daggers() -> object:
    """FORCED_WIN with a second, identical weapon: two attacks identical by construction."""
    data = copy.deepcopy(FORCED_WIN)
    data["combatants"][1]["weapons"].append({"name": "cuchillo", "damage": "d4"})
    state = new_battle(parse_scenario(data, "<two_daggers>"), RandomRoller(0))
    apply_action(state, Action("esperar", "heroe"), RandomRoller(0))
    return state


@pytest.mark.compile
def test_two_identical_actions_are_too_close_to_call() -> None:
    state = two_daggers()
    n = len(state.ruleset.legal_actions(state))
    result = suggest(state, iterations=IDENTICAL_SHARED * n + 40, budget_ms=None)
    attacks = {KILL, Action("atacar", "orco", target="heroe", item="cuchillo")}
    assert result.verdict == "too_close"
    assert {s.action for s in result.tie_group} == attacks
    assert result.stopped == "identical"  # the dice cannot tell them apart
    assert all(s.visits >= IDENTICAL_SHARED for s in result.tie_group)
    assert result.gap is not None and result.gap.gain == 0.0 and result.gap.stderr == 0.0
    assert [s.action in attacks for s in result.items[:2]] == [True, True]
    doc = result.to_dict()
    assert doc["verdict"] == "too_close"
    assert [r["tied_with_best"] for r in doc["suggestions"]].count(True) == 2
    assert "too close to call: any of these" in result.table()


@pytest.mark.compile
def test_one_winning_move_is_clear_with_a_small_budget() -> None:
    _, state = forced_state()
    result = suggest(state, iterations=200, budget_ms=None)
    assert result.stopped == "clear" and result.verdict == "clear"
    assert result.iterations == 200  # the whole target (narrower intervals), then clear
    assert result.items[0].action == KILL
    assert "clear of the rest" in result.items[0].reason
    assert not any(s.tied_with_best for s in result.items)
    assert result.gap_interval is not None and result.gap_interval[0] > 0
    # A time budget gets there too, well before its maximum.
    timed = suggest(state, budget_ms=50, max_ms=5000)
    assert timed.stopped == "clear" and timed.items[0].action == KILL


def _warm(state: BattleState) -> None:
    """Compile (or load) the ruleset's kernel first: a cold cache's compile is not part
    of the time a maximum bounds."""
    suggest(state, iterations=2, budget_ms=None)


@pytest.mark.compile
def test_max_ms_bounds_the_time() -> None:
    state = enemy_turn(AMBUSH, 3)
    _warm(state)
    result = suggest(state, budget_ms=100, max_ms=400)
    assert result.stopped in ("max_time", "clear", "identical")
    assert result.elapsed_ms <= 400 + SLACK_MS
    assert result.to_dict()["search"]["max_ms"] == 400


@pytest.mark.compile
def test_a_maximum_never_cuts_the_budget_and_without_one_it_stops_there() -> None:
    state = enemy_turn(AMBUSH, 3)
    result = suggest(state, budget_ms=150)
    assert result.stopped in ("budget", "clear", "identical")
    with pytest.raises(EscaramuzaError, match="reproducible"):
        suggest(state, iterations=10, budget_ms=None, max_ms=500)


@pytest.mark.compile
def test_iteration_budget_and_maximum_stay_reproducible() -> None:
    state = enemy_turn(AMBUSH, 6)
    a = suggest(state, iterations=24, budget_ms=None, max_iterations=120, seed=3)
    b = suggest(state, iterations=24, budget_ms=None, max_iterations=120, seed=3)
    assert a.to_dict()["suggestions"] == b.to_dict()["suggestions"]
    assert a.stopped == b.stopped
    assert a.iterations == 120 or a.stopped in ("clear", "identical")
    if a.stopped == "max_iterations":
        # Past the target only the tie group was searched: the others kept fewer rollouts.
        assert a.iterations == 120


# No search, but the planner warms its kernel first (the once-per-process compile).
@pytest.mark.compile
def test_a_single_legal_action_is_not_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    state = enemy_turn(AMBUSH, 3)
    only = state.ruleset.legal_actions(state)[:1]
    monkeypatch.setattr(type(state.ruleset), "legal_actions", lambda self, st: list(only))
    result = suggest(state, budget_ms=100, max_ms=1000)
    assert result.stopped == "single_action" and result.iterations == 0
    assert result.verdict == "clear" and len(result.items) == 1
    assert "the only legal action" in result.items[0].reason
    assert result.to_dict()["search"]["stopped"] == "single_action"


def test_race_maximum_needs_the_race_root() -> None:
    with pytest.raises(EscaramuzaError, match="race"):
        MCTS(iterations=10, max_iterations=20, root="sweep")
    with pytest.raises(EscaramuzaError, match="at least the budget"):
        MCTS(iterations=None, budget_ms=500, max_ms=100, root="race")


@pytest.mark.compile
def test_cli_max_ms(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["suggest", AMBUSH, "--budget-ms", "100", "--max-ms", "300", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["search"]["max_ms"] == 300 and doc["search"]["budget_ms"] == 100
    assert doc["search"]["stopped"] in ("max_time", "clear", "identical")
    assert main(["suggest", AMBUSH, "--iterations", "10", "--max-ms", "300"]) == 2
    assert "--max-ms extends a time budget" in capsys.readouterr().err
    assert main(["suggest", AMBUSH, "--budget-ms", "500", "--max-ms", "300"]) == 2
    assert "at least --budget-ms" in capsys.readouterr().err


def test_cli_takes_one_budget_not_both(capsys: pytest.CaptureFixture[str]) -> None:
    """--iterations with --budget-ms let the time cut the rollouts short, reported as
    "stopped at the budget", and the ranking was not the reproducible one asked for
    (156 of 100,000 rollouts, another count each run): one or the other, as in gm."""
    assert main(["suggest", AMBUSH, "--iterations", "100000", "--budget-ms", "20"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


def _doc_schema() -> dict:
    text = (ROOT / "docs" / "gm.md").read_text(encoding="utf-8")
    match = re.search(r"### `--json` schema \(version 3\)\n+```json\n(.*?)```", text, re.S)
    assert match, "docs/gm.md documents the version-2 JSON"
    return json.loads(match.group(1))


@pytest.mark.compile
def test_docs_json_example_has_every_field() -> None:
    """docs/gm.md's example document has exactly the keys suggest --json writes."""
    doc = json.loads(json.dumps(suggest(two_daggers(), iterations=60, budget_ms=None).to_dict()))
    example = _doc_schema()
    assert set(example) == set(doc)
    assert set(example["search"]) == set(doc["search"])
    assert set(example["gap"]) == set(doc["gap"])
    for row in example["suggestions"]:
        assert set(row) == set(doc["suggestions"][0])
    assert any(r["gap_to_best"] is not None for r in example["suggestions"])
    assert example["verdict"] in ("clear", "too_close")
    text = (ROOT / "docs" / "gm.md").read_text(encoding="utf-8")
    for reason in ("clear", "identical", "budget", "max_time", "max_iterations", "single_action"):
        assert f"`{reason}`" in text, f"docs/gm.md does not explain stopped = {reason}"


def test_the_search_leaves_the_table_its_share_of_a_time_budget() -> None:
    """suggest's search stops early by the table's reserve (the smaller of 10 ms and 2 %),
    so the whole suggestion ends within the budget; out-of-range budgets reach the
    planner unchanged, to be refused with its message."""
    import math

    from escaramuza.agents.suggest import _search_ms

    assert _search_ms(None) is None
    assert _search_ms(800.0) == 790.0
    assert _search_ms(100.0) == 98.0
    assert _search_ms(60_000.0) == 59_990.0
    assert _search_ms(10.0) == 10.0  # never below the planner's minimum
    assert _search_ms(5.0) == 5.0 and _search_ms(60_001.0) == 60_001.0
    assert math.isnan(_search_ms(math.nan))  # type: ignore[arg-type]


@pytest.mark.compile
def test_equal_sweeps_below_the_stated_bound_do_not_stop_a_search() -> None:
    """Two actions that scored alike on a few dozen rollouts may still differ: the race
    stops as "identical" only after IDENTICAL_SHARED shared rollouts (the rule of three
    then bounds their difference by ±1 point); before, it spends the budget."""
    state = two_daggers()
    result = suggest(state, iterations=400, budget_ms=None)
    assert result.stopped == "budget"
    assert result.iterations == 400
    assert min(s.visits for s in result.tie_group) < IDENTICAL_SHARED


def test_the_table_says_why_the_kernel_was_not_used() -> None:
    state = two_daggers()
    with use_kernel(state.ruleset.id, None):
        result = suggest(state, iterations=30, budget_ms=None)
    assert result.engine == "reference"
    assert result.engine_refusal == f"no kernel for {state.ruleset.id} yet"
    # The head (the lines above the first blank one) says it, before the rows.
    head = " ".join(result.table().split("\n\n")[0].splitlines())
    assert f"(the compiled kernel was not used: no kernel for {state.ruleset.id} yet)" in head


def test_the_table_fits_a_terminal_and_wide_keeps_one_line_per_action() -> None:
    state = two_daggers()
    result = suggest(state, iterations=60, budget_ms=None)
    narrow = result.table()
    assert max(len(line) for line in narrow.splitlines()) <= 100
    for s in result.items:  # every action and every reason is there, wrapped or not
        assert s.text in " ".join(narrow.split())
        assert " ".join(s.reason.split()) in " ".join(narrow.split())
    wide = result.table(None)
    rows = [line for line in wide.splitlines() if re.match(r"[│ ] +\d+[* ]  ", line)]
    assert len(rows) == len(result.items)
    assert all(s.reason in row for s, row in zip(result.items, rows, strict=True))
    assert "−0" not in narrow and "−0" not in wide


def test_suggest_refusals_speak_the_current_language(marked: None) -> None:
    """They were English under ``--lang es`` (the command line's and the web API's
    suggest): each is now the marked catalog's (tests/conftest.py)."""
    from escaramuza.agents import make_agent
    from escaramuza.agents.suggest import SuggestError
    from escaramuza.rules.core.scenario import load_scenario

    state = new_battle(load_scenario(AMBUSH), RandomRoller(4))
    pending = state.pending
    assert pending is not None
    who = state.by_id[pending.actor]
    other = next(c.id for c in state.combatants if c.id != pending.actor)
    calls = [
        (
            lambda: suggest(state, actor=other, iterations=5, budget_ms=None),
            f"«{other!r} is not the one deciding: the pending decision is {who.id} "
            f"({who.name}, «{pending.name}»). Only the pending decision can be ranked exactly, "
            "because the dice and turns before it are unknown; apply decisions until "
            f"{other!r} acts (escaramuza gm) and ask again»",
        ),
        (
            lambda: suggest(state, iterations=5, budget_ms=None, max_ms=100),
            "«a maximum in milliseconds extends a time budget only: with an iteration budget "
            "the ranking is reproducible (use a maximum of iterations)»",
        ),
        (
            lambda: suggest(state, iterations=5, budget_ms=None, policy=make_agent("heuristic")),
            "«heuristic gives no action probabilities: --policy takes a trained policy "
            "(policy:PATH or a shipped policy name such as destiny_dice/emboscada)»",
        ),
    ]
    over = state.clone()
    over.pending = None
    calls.append(
        (
            lambda: suggest(over, iterations=5, budget_ms=None),
            "«the battle is over: there is nothing to suggest»",
        )
    )
    for call, message in calls:
        with pytest.raises(SuggestError) as caught:
            call()
        assert str(caught.value) == message


def test_suggest_and_gm_option_refusals_speak_the_current_language(
    marked: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line's refusals of suggest's and gm's options were English under
    ``--lang es``: each is now the marked catalog's (tests/conftest.py). They are refused
    before a battle is opened or searched."""
    rows = [
        (
            ["gm", AMBUSH, "--max-ms", "0"],
            "«--max-ms must be 10–60000 ms (a finite number), not 0»",
        ),
        (["suggest", AMBUSH, "--samples", "3"], "«--samples goes with --plan»"),
        (
            ["suggest", AMBUSH, "--plan", "--actor", "x"],
            "«--actor does not go with --plan: the plan searches each enemy decision with "
            "--iterations rollouts, so that it is reproducible»",
        ),
        (
            ["suggest", AMBUSH, "--iterations", "10", "--max-ms", "300"],
            "«--max-ms extends a time budget (--budget-ms); with --iterations the search "
            "stops at N rollouts, so that the ranking is reproducible»",
        ),
        (
            ["suggest", AMBUSH, "--budget-ms", "500", "--max-ms", "300"],
            "«--max-ms (300) must be at least --budget-ms (500)»",
        ),
    ]
    for argv, message in rows:
        assert main(argv) == 2
        assert capsys.readouterr().err == f"escaramuza: error: {message}\n"
