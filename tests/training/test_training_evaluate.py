"""``escaramuza evaluate`` statistics on agents of known strength, ratings, report files."""

from __future__ import annotations

import io
import json
import math
import random
import re
from pathlib import Path

import pytest

from escaramuza.agents import make_agent as real_make_agent
from escaramuza.playtest import runner as playtest_runner
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.rules.core.state import BattleState
from escaramuza.training import evaluate as evaluate_module
from escaramuza.training.evaluate import evaluate, parse_agents, write_report
from escaramuza.training.ratings import openskill_ratings

#: Verbs that end a turn or decline a reaction without hurting anybody (destiny_dice).
PASSIVE_VERBS = ("fin_turno", "pasar")
SCENARIO = "destiny_dice/brann-vs-saqueador"
N = 12


class PassiveAgent:
    """Always ends its turn / passes: it never deals damage, so it can never win
    a defeat-all battle."""

    name = "passive"

    def act(self, state: BattleState, rng: random.Random) -> Action:
        actions = state.ruleset.legal_actions(state)
        for action in actions:
            if action.verb in PASSIVE_VERBS:
                return action
        # A forced choice with no passive option: the first legal one that attacks nobody.
        harmless = [a for a in actions if a.verb not in ("atacar", "contraatacar")]
        return (harmless or actions)[0]


def _make_agent(spec: object, trust_policy: bool = False, engine: str | None = None) -> object:
    if spec == "passive":
        return PassiveAgent()
    return real_make_agent(spec, trust_policy=trust_policy, engine=engine)  # type: ignore[arg-type]


@pytest.fixture()
def with_passive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(playtest_runner, "make_agent", _make_agent)
    monkeypatch.setattr(evaluate_module, "make_agent", _make_agent)


def _wilson(k: int, n: int) -> tuple[float, float]:
    # Closed form written out again here, independently of rules.core.stats.wilson_interval.
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half) if k else 0.0, min(1.0, centre + half) if k < n else 1.0


@pytest.fixture()
def doc(with_passive: None) -> dict:
    return evaluate([SCENARIO], ["random", "passive"], n=N, seed=4).document()


@pytest.mark.compile
def test_passive_never_wins_and_random_beats_it(doc: dict) -> None:
    cells = doc["matrix"]["cells"]
    random_vs_passive, passive_vs_random = cells[0][1], cells[1][0]
    assert random_vs_passive["games"] == passive_vs_random["games"] == 2 * N
    assert passive_vs_random["wins"] == 0
    # Random wins most battles against a side that never strikes back (a few may time out).
    assert random_vs_passive["wins"] >= N
    # The two cells describe the same battles from either side.
    assert random_vs_passive["wins"] == passive_vs_random["losses"]
    assert random_vs_passive["draws"] == passive_vs_random["draws"]
    k, n = random_vs_passive["wins"], random_vs_passive["games"]
    lo, hi = _wilson(k, n)
    assert random_vs_passive["ci95"] == [pytest.approx(lo, abs=1e-6), pytest.approx(hi, abs=1e-6)]
    assert passive_vs_random["ci95"][0] == 0.0
    # The diagonal: an agent against itself, each battle counted once per side.
    assert cells[1][1]["games"] == 2 * N and cells[1][1]["wins"] == 0
    assert cells[0][0]["wins"] == cells[0][0]["losses"]


@pytest.mark.compile
def test_per_side_pairings_add_up_to_the_matrix(doc: dict) -> None:
    (scenario,) = doc["scenarios"]
    by = {(p["heroes"], p["enemies"]): p for p in scenario["pairings"]}
    assert len(by) == 4
    as_heroes = by[("random", "passive")]["heroes_win"]["count"]
    as_enemies = by[("passive", "random")]["enemies_win"]["count"]
    assert as_heroes + as_enemies == doc["matrix"]["cells"][0][1]["wins"]
    assert by[("passive", "random")]["heroes_win"]["count"] == 0
    for p in by.values():
        total = p["heroes_win"]["count"] + p["enemies_win"]["count"] + p["draw"]["count"]
        assert total == p["battles"] == N


@pytest.mark.compile
def test_ratings_rank_random_above_passive(doc: dict) -> None:
    ratings = doc["ratings"]["agents"]
    assert [r["agent"] for r in ratings] == ["random", "passive"]
    top, bottom = ratings
    assert top["mu"] > 25 > bottom["mu"]  # OpenSkill starts everyone at mu = 25
    assert top["games"] == bottom["games"] == 2 * N
    assert top["ci95"][0] == pytest.approx(top["mu"] - 1.959963984540054 * top["sigma"], abs=1e-3)


@pytest.mark.parametrize(
    ("games", "order"),
    [
        ([("a", "b", 1.0)] * 10, ["a", "b"]),  # a always wins
        ([("a", "b", 0.0)] * 10, ["b", "a"]),  # b always wins
        ([("a", "b", 1.0), ("b", "c", 1.0)] * 10, ["a", "b", "c"]),  # transitive chain
    ],
)
def test_openskill_orders_known_strengths(games: list, order: list[str]) -> None:
    ratings = openskill_ratings(sorted({g[0] for g in games} | {g[1] for g in games}), games)
    assert [r.agent for r in ratings] == order


def test_draws_only_give_equal_ratings() -> None:
    a, b = openskill_ratings(["a", "b"], [("a", "b", 0.5)] * 8)
    assert a.mu == pytest.approx(b.mu)
    assert a.sigma < 25 / 3  # the draws still made both ratings surer


@pytest.mark.compile
def test_report_is_deterministic(doc: dict, tmp_path: Path) -> None:
    first = write_report(doc, tmp_path / "a")
    second = write_report(doc, tmp_path / "b")
    for x, y in zip(first, second, strict=True):
        assert x.read_bytes() == y.read_bytes()
    png = (tmp_path / "a" / "heatmap.png").read_bytes()
    assert png.startswith(b"\x89PNG") and b"Software" not in png
    assert json.loads((tmp_path / "a" / "evaluation.json").read_text())["schema"] == (
        "escaramuza.evaluate/1"
    )
    assert not list((tmp_path / "a").glob("*.tmp"))


@pytest.mark.compile
def test_same_seed_same_numbers(with_passive: None) -> None:
    one = evaluate([SCENARIO], ["random", "passive"], n=4, seed=9).document()
    two = evaluate([SCENARIO], ["random", "passive"], n=4, seed=9).document()
    assert one == two


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "random",
            "--agents: name at least two agents separated by commas, not 'random' (with "
            "--no-baselines only the agents named play)",
        ),
        ("random,random", "--agents: 'random' is named twice"),
        ("random,nobody", "--agents: unknown agent 'nobody'"),
        ("random,policy:/nope.zip", "--agents: policy /nope.zip: no such model file"),
    ],
)
def test_parse_agents_errors(text: str, message: str) -> None:
    with pytest.raises(EscaramuzaError, match="^" + re.escape(message)):
        parse_agents(text)


@pytest.mark.parametrize(
    ("given", "played"),
    [
        # One agent and the baselines: the same three agents as "random,heuristic" plays.
        ("random", ["random", "heuristic", "first-legal"]),
        ("random,heuristic", ["random", "heuristic", "first-legal"]),
        ("heuristic", ["heuristic", "first-legal", "random"]),
    ],
)
def test_one_agent_is_evaluated_against_the_baselines(
    given: str, played: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--agents random`` was refused ("name at least two agents") though the baselines
    join it: ``--agents random,heuristic`` plays exactly the same three agents."""
    seen: list[list[str]] = []

    def stop(_scenarios: object, agents: list[str], *_args: object) -> None:
        seen.append(list(agents))
        raise EscaramuzaError("stop before the battles")

    monkeypatch.setattr(evaluate_module, "evaluate", stop)
    with pytest.raises(EscaramuzaError, match="stop before the battles"):
        evaluate_module.run([SCENARIO], given, 1, 1, 1, None, False, io.StringIO())
    assert seen == [played]
    assert parse_agents(given, baselines=True) == given.split(",")


@pytest.fixture()
def doc_passive_first(with_passive: None) -> dict:
    # --agents names the weaker agent first: the rank order differs from the given one.
    return evaluate([SCENARIO], ["passive", "random"], n=N, seed=4).document()


@pytest.mark.compile
def test_matrix_ratings_and_text_list_agents_by_rank(doc_passive_first: dict) -> None:
    doc = doc_passive_first
    assert doc["agents"] == ["passive", "random"]  # as given in --agents
    # passive never wins (it never deals damage): random is rated first.
    ratings = doc["ratings"]["agents"]
    assert [(r["rank"], r["agent"]) for r in ratings] == [(1, "random"), (2, "passive")]
    assert doc["matrix"]["rows"] == doc["matrix"]["columns"] == ["random", "passive"]
    cells = doc["matrix"]["cells"]
    assert cells[1][0]["wins"] == 0 and cells[0][1]["wins"] >= N  # row passive, col random
    text = evaluate_module.render_text(doc)
    lines = text.splitlines()
    at = lines.index("Ratings (OpenSkill Plackett-Luce; ranked by mu - 3 sigma):")
    assert lines[at + 1].lstrip().startswith("#1 random")
    assert lines[at + 2].lstrip().startswith("#2 passive")
    header = lines[lines.index(next(ln for ln in lines if ln.startswith("Win rate"))) + 1]
    assert header.split() == ["#1", "#2"]


@pytest.mark.compile
def test_heatmap_axes_follow_the_json_matrix(doc_passive_first: dict) -> None:
    fig = evaluate_module.heatmap_figure(doc_passive_first)
    ax = fig.axes[0]
    rows = doc_passive_first["matrix"]["rows"]
    assert [t.get_text() for t in ax.get_yticklabels()] == rows
    assert [t.get_text() for t in ax.get_xticklabels()] == doc_passive_first["matrix"]["columns"]
    # The cell drawn at (row i, column j) shows the JSON's cell [i][j].
    cells = doc_passive_first["matrix"]["cells"]
    for text in ax.texts:
        j, i = (round(v) for v in text.get_position())
        assert text.get_text().startswith(f"{100 * cells[i][j]['win_rate']:.0f}%")


def _first_legal_policy(
    spec: object, trust_policy: bool = False, engine: str | None = None
) -> object:
    # A "policy" that has collapsed to the first legal action.
    if spec == "policy:collapsed":
        return real_make_agent("first-legal")
    return real_make_agent(spec, trust_policy=trust_policy, engine=engine)  # type: ignore[arg-type]


def test_paired_rows_count_the_same_battles_and_flag_a_collapsed_policy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(playtest_runner, "make_agent", _first_legal_policy)
    monkeypatch.setattr(evaluate_module, "make_agent", _first_legal_policy)
    agents = ["heuristic", "first-legal", "policy:collapsed"]
    result = evaluate([SCENARIO], agents, n=N, seed=2, engine="reference")
    rows = result.document()["paired"]["rows"]
    # Every (side, opponent) for each agent but the reference.
    assert len(rows) == 2 * 3 * 2
    for row in rows:
        side, agent, opponent = row["side"], row["agent"], row["opponent"]
        mine = result.side_records(SCENARIO, side, agent, opponent)
        ref = result.side_records(SCENARIO, side, "heuristic", opponent)
        won = [r.winner == side for r in mine]
        base = [r.winner == side for r in ref]
        assert row["difference"] == round((sum(won) - sum(base)) / N, 6)
        lo, hi = row["ci95"]
        assert lo <= row["difference"] <= hi
        collapsed = agent == "policy:collapsed"
        assert bool(row["collapsed"]) is collapsed, row
    text = evaluate_module.render_text(result.document())
    assert "COLLAPSED: first-legal's battles in every one of its 12" in text


def test_two_scenarios_of_the_same_name_are_refused(tmp_path: Path) -> None:
    """The pairings are keyed by the scenario's name: a second file of the same name
    replaced the first's battles, and both were reported with the second's numbers."""
    from escaramuza.rules.core.errors import EscaramuzaError

    text = Path(load_scenario(SCENARIO).source).read_text(encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "x.yaml", tmp_path / "b" / "x.yaml"
    first.write_text(text, encoding="utf-8")
    second.write_text(text, encoding="utf-8")
    name = load_scenario(str(first)).name
    with pytest.raises(EscaramuzaError) as err:
        evaluate([str(first), str(second)], ["random", "first-legal"], n=1, seed=1)
    assert str(err.value) == (
        f"--scenario: two scenarios are named {name!r} ({first}, {second}); each scenario "
        "once, and scenarios of different names"
    )
    with pytest.raises(EscaramuzaError, match="--scenario: two scenarios are named"):
        evaluate([SCENARIO, SCENARIO], ["random", "first-legal"], n=1, seed=1)
