"""``escaramuza balance``: bisection, the sequential test's error rate, the written variant."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from escaramuza.balance import Target, bisect, looks, parse_vary, sequential, verdict
from escaramuza.cli import main
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.scenario import resolve_scenario
from escaramuza.rules.core.stats import mixture_rho


@pytest.mark.parametrize("threshold", [0, 1, 37, 98, 99])
def test_bisection_finds_a_planted_threshold(threshold: int) -> None:
    # A stub measure, increasing in the index, exactly on the target at `threshold`.
    seen: list[int] = []

    def side(k: int) -> str:
        seen.append(k)
        return "below" if k < threshold else "above" if k > threshold else "on"

    order = bisect(side, 100)
    assert order == seen
    assert order[-1] == threshold
    assert len(order) <= 2 + math.ceil(math.log2(100))


def test_bisection_without_an_exact_variant_ends_on_the_two_neighbours() -> None:
    order = bisect(lambda k: "below" if k < 37 else "above", 100)
    assert sorted(order[-2:]) == [36, 37] or {36, 37} <= set(order)


def test_bisection_with_both_ends_on_one_side_stops_after_the_ends() -> None:
    assert bisect(lambda k: "below", 10) == [0, 9]


def _pmf(n: int, p: float) -> np.ndarray:
    k = np.arange(n + 1)
    logs = (
        np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k])
        + k * math.log(p)
        + (n - k) * math.log1p(-p)
    )
    return np.exp(logs)


def _exact_decisions(
    target: Target, p: float, alpha: float, first: int, most: int
) -> dict[str, float]:
    """P(each verdict) of the sequential test for Bernoulli(p), by exact binomial
    convolution over the looks (independent of the code's own loop)."""
    rho = mixture_rho(800, alpha)
    alive = np.array([1.0])  # P(k successes so far and still undecided)
    n_prev = 0
    out = {"above": 0.0, "below": 0.0, "on": 0.0}
    for n in looks(first, most):
        alive = np.convolve(alive, _pmf(n - n_prev, p))
        n_prev = n
        for k in range(n + 1):
            v, _ = verdict(target, {target.measure: [1.0] * k + [0.0] * (n - k)}, alpha, rho)
            if v != "undecided":
                out[v] += alive[k]
                alive[k] = 0.0
    return out


@pytest.mark.parametrize("p", [0.1, 0.2, 0.24, 0.36, 0.45, 0.5])
def test_sequential_test_error_rate_is_at_most_alpha_exactly(p: float) -> None:
    # True rate outside the band [0.25, 0.35]: "on" or the wrong side are errors.
    target = Target(measure="wipe", value=0.3, tolerance=0.05)
    alpha = 0.05
    decided = _exact_decisions(target, p, alpha, 100, 800)
    wrong = decided["on"] + (decided["above"] if p < 0.25 else decided["below"])
    assert wrong <= alpha
    # ...and the test is not vacuous: far from the band it decides the right side.
    if p in (0.1, 0.5):
        assert decided["below" if p < 0.25 else "above"] > 0.5


def test_sequential_error_rate_by_simulation_matches_the_exact_binomial() -> None:
    target = Target(measure="wipe", value=0.3, tolerance=0.05)
    p, alpha, runs = 0.24, 0.2, 3000  # a loose alpha so errors are frequent enough to count
    exact = _exact_decisions(target, p, alpha, 100, 800)
    rng = np.random.default_rng(7)
    counts = {"above": 0, "below": 0, "on": 0, "undecided": 0}
    for _ in range(runs):
        draws = (rng.random(800) < p).astype(float).tolist()
        v, _, _, _ = sequential(target, lambda n, d=draws: {"wipe": d[:n]}, alpha, 100, 800)
        counts[v] += 1
    for key in ("above", "below", "on"):
        se = math.sqrt(exact[key] * (1 - exact[key]) / runs) + 1e-9
        assert abs(counts[key] / runs - exact[key]) <= 4 * se + 1 / runs
    assert (counts["on"] + counts["above"]) / runs <= alpha


def test_level_target_verdicts_follow_the_difficulty_thresholds() -> None:
    # 0 of 400 wipes and no knock-outs: decidedly below Hard; all wiped: above Hard.
    rho = mixture_rho(800, 0.05)
    hard = Target(level="Hard")
    none = {"wipe": [0.0] * 400, "knockout": [0.0] * 400}
    every = {"wipe": [1.0] * 400, "knockout": [1.0] * 400}
    assert verdict(hard, none, 0.05, rho)[0] == "below"
    assert verdict(hard, every, 0.05, rho)[0] == "above"
    # wipe 0.3 (Hard's band is wipe in [0.2, 0.5) with knock-outs under 0.75)
    mid = {"wipe": [1.0] * 1200 + [0.0] * 2800, "knockout": [0.5] * 4000}
    assert verdict(hard, mid, 0.05, rho)[0] == "on"


@pytest.mark.compile
def test_written_variant_loads_and_reproduces_its_rates(tmp_path, capsys) -> None:
    out = tmp_path / "variant.yaml"
    code = main(
        [
            "balance",
            "destiny_dice/brann-vs-saqueador",
            "--target",
            "heroes-win=0.5",
            "--tolerance",
            "0.15",
            "--vary",
            "stat:saqueador.pv=4..16",
            "--max-battles",
            "400",
            "--seed",
            "3",
            "--out",
            str(out),
            "--json",
        ]
    )
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    chosen = doc["chosen"]
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Found by `escaramuza balance destiny_dice/brann-vs-saqueador")
    assert main(["validate", str(out)]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "playtest",
                str(out),
                "-n",
                str(chosen["battles"]),
                "--seed",
                "3",
                "--json",
                "--no-progress",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)["scenarios"][0]
    assert summary["outcomes"]["heroes"]["rate"] == chosen["estimates"]["heroes-win"]["rate"]
    # the variant holds the chosen value
    assert f"pv: {chosen['values']['stat:saqueador.pv']}" in text


@pytest.mark.compile
def test_same_seed_same_search_for_any_worker_count(capsys) -> None:
    args = [
        "balance",
        "destiny_dice/brann-vs-saqueador",
        "--target",
        "heroes-win=0.5",
        "--vary",
        "stat:saqueador.pv=6..12",
        "--max-battles",
        "200",
        "--json",
    ]
    assert main(args) == 0
    one = capsys.readouterr().out
    assert main([*args, "--workers", "2"]) == 0
    assert capsys.readouterr().out == one


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--target", "brutal"], "difficulty level"),
        (["--target", "hard", "--vary", "count:nadie=1..3"], "no combatant 'nadie'"),
        (["--target", "hard", "--vary", "size:x=1..2"], "count:ID=LOW..HIGH"),
        (["--target", "hard", "--max-battles", "2000001"], "--max-battles must be at most"),
        # a negative or NaN band holds no rate: every variant was played to --max-battles
        (
            ["--target", "wipe=0.3", "--tolerance", "-0.1"],
            "escaramuza: error: --tolerance must be at least 0 and below 1, not -0.1\n",
        ),
        (
            ["--target", "hard", "--tolerance", "nan"],
            "escaramuza: error: --tolerance must be at least 0 and below 1, not nan\n",
        ),
    ],
)
def test_bad_balance_arguments_exit_2(argv, words, capsys) -> None:
    vary = [] if "--vary" in argv else ["--vary", "count:saqueador=1..2"]
    code = main(["balance", "destiny_dice/brann-vs-saqueador", *vary, *argv])
    assert code == 2
    assert words in capsys.readouterr().err


def _no_search(*_args: object) -> None:
    raise AssertionError("the search ran")


@pytest.mark.parametrize(
    "where, reason",
    [
        ("a-folder", "it is a folder, not a regular file"),
        ("a-file/variant.yaml", "Not a directory"),
    ],
)
def test_unwritable_out_is_refused_before_the_search(
    where: str,
    reason: str,
    tmp_path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--out was only tried after every battle of the search: the work was lost."""
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    monkeypatch.setattr("escaramuza.balance.cli.balance", _no_search)
    out = tmp_path / where
    code = main(
        ["balance", "destiny_dice/brann-vs-saqueador", "--target", "hard"]
        + ["--vary", "count:saqueador=1..2", "--out", str(out)]
    )
    assert (code, capsys.readouterr().err) == (
        2,
        f"escaramuza: error: --out {out}: cannot write ({reason})\n",
    )


def test_out_that_is_the_scenario_itself_is_refused_before_the_search(
    tmp_path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--out naming the balanced scenario's own file (by another path too) would replace
    the user's scenario with the variant: refused before the search, the file unchanged."""
    scenario = tmp_path / "mine.yaml"
    text = Path(resolve_scenario("destiny_dice/brann-vs-saqueador")).read_text(encoding="utf-8")
    scenario.write_text(text, encoding="utf-8")
    monkeypatch.setattr("escaramuza.balance.cli.balance", _no_search)
    monkeypatch.chdir(tmp_path)
    for out in (str(scenario), "./mine.yaml"):
        code = main(
            ["balance", str(scenario), "--target", "hard"]
            + ["--vary", "count:saqueador=1..2", "--out", out, "--report", "rep"]
        )
        assert (code, capsys.readouterr().err) == (
            2,
            f"escaramuza: error: --out {out} is the scenario being balanced: "
            "write the variant elsewhere\n",
        )
    assert scenario.read_text(encoding="utf-8") == text
    assert not (tmp_path / "rep").exists()  # nor a --report folder of the run's making


def test_a_refused_out_leaves_no_report_folder(
    tmp_path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--out is checked before --report's folder is made: a scenario name that names
    nothing, or an --out that is a folder, leaves no empty folder behind."""
    (tmp_path / "a-folder").mkdir()
    monkeypatch.setattr("escaramuza.balance.cli.balance", _no_search)
    monkeypatch.chdir(tmp_path)
    for scenario, out in (("nope.yaml", "v.yaml"), ("destiny_dice/brann-vs-saqueador", "a-folder")):
        code = main(
            ["balance", scenario, "--target", "hard", "--vary", "count:saqueador=1..2"]
            + ["--out", out, "--report", "rep"]
        )
        assert (code, (tmp_path / "rep").exists()) == (2, False), capsys.readouterr().err


def test_out_folder_is_made_before_the_search(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing folder of --out is created up front, as --report's is."""
    out = tmp_path / "new" / "variant.yaml"
    seen: list[bool] = []

    def search(*_args: object) -> None:
        seen.append(out.parent.is_dir())
        raise EscaramuzaError("stop here")

    monkeypatch.setattr("escaramuza.balance.cli.balance", search)
    code = main(
        ["balance", "destiny_dice/brann-vs-saqueador", "--target", "hard"]
        + ["--vary", "count:saqueador=1..2", "--out", str(out)]
    )
    assert (code, seen, list(out.parent.iterdir())) == (2, [True], [])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--alpha", "1.5"], "--alpha debe ser al menos 1e-12 y menor que 1, no 1.5"),
        (
            ["--max-battles", "0"],
            "--max-battles debe ser al menos las batallas de la primera revisión",
        ),
        (["--max-battles", "2000001"], "--max-battles debe ser como mucho 2,000,000, no 2000001"),
    ],
)
def test_bad_balance_options_in_spanish(argv, message, capsys) -> None:
    """--alpha's and --max-battles' refusals were English under ``--lang es``."""
    vary = ["--vary", "count:saqueador=1..2", "--target", "hard"]
    code = main(["--lang", "es", "balance", "destiny_dice/brann-vs-saqueador", *vary, *argv])
    assert code == 2
    assert capsys.readouterr().err == f"escaramuza: error: {message}\n"


def _duel() -> dict[str, object]:
    """Just what parse_vary reads of a scenario: its combatants."""
    return {
        "combatants": [
            {"id": "brann", "side": "heroes", "pv": 16},
            {"id": "saqueador", "side": "enemies", "pv": 10},
        ]
    }


# Each --vary refusal as the marked catalog (tests/conftest.py) gives it: the whole message
# is the catalog's, so it speaks the user's language.
VARY_REFUSALS = [
    (
        "size:x=1..2",
        "«--vary 'size:x=1..2': count:ID=LOW..HIGH, stat:WHO.FIELD=RANGE or zones:SIDE=Z1,Z2…»",
    ),
    (
        "count:nadie=1..2",
        "«--vary count:nadie=1..2: no combatant 'nadie' (heroes, enemies, brann, saqueador)»",
    ),
    (
        "count:saqueador=3",
        "«--vary count:saqueador=3: a range is LOW..HIGH (e.g. 1..6, *0.5..*2, d6..d12)»",
    ),
    ("count:saqueador=a..2", "«--vary count:saqueador=a..2: 'a' is not a number»"),
    ("count:saqueador=-1..2", "«--vary count:saqueador=-1..2: counts run from 0 up, low ≤ high»"),
    ("count:enemies=1..2", "«--vary count:enemies=1..2: count: takes one combatant's id»"),
    (
        "stat:saqueador=1..2",
        "«--vary stat:saqueador=1..2: stat:WHO.FIELD=RANGE (WHO an id, heroes or enemies)»",
    ),
    (
        "stat:saqueador.nombre=1..2",
        "«--vary stat:saqueador.nombre=1..2: nombre is not a number on every target»",
    ),
    (
        "stat:saqueador.defensa=d5..d5",
        "«--vary stat:saqueador.defensa=d5..d5: the range holds no value»",
    ),
    (
        "zones:villains=a,b",
        "«--vary zones:villains=a,b: zones:SIDE=ZONE,ZONE… with SIDE heroes or enemies»",
    ),
]


@pytest.mark.parametrize("spec, message", VARY_REFUSALS, ids=[s for s, _m in VARY_REFUSALS])
def test_vary_refusals_speak_the_current_language(spec: str, message: str, marked: None) -> None:
    """They were English under ``--lang es``."""
    with pytest.raises(EscaramuzaError) as caught:
        parse_vary(_duel(), spec)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "text, message",
    [
        ("wipe=2", "«--target wipe=2: wipe is a rate between 0 and 1»"),
        (
            "brutal",
            "«--target 'brutal': a difficulty level (trivial, easy, medium, hard, deadly) or "
            "MEASURE=RATE with MEASURE one of heroes-win, enemies-win, wipe, knockout»",
        ),
    ],
)
def test_target_refusals_speak_the_current_language(text: str, message: str, marked: None) -> None:
    with pytest.raises(EscaramuzaError) as caught:
        Target.parse(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "vary, message",
    [
        ([], "«name at least one --vary»"),
        (
            ["--vary", "stat:saqueador.pv=1..100", "--vary", "count:saqueador=1..3"],
            "«--vary: 100 combinations to grid; at most 64»",
        ),
    ],
)
def test_a_search_refused_before_it_starts_speaks_the_current_language(
    vary: list[str], message: str, capsys: pytest.CaptureFixture[str], marked: None
) -> None:
    code = main(["balance", "destiny_dice/brann-vs-saqueador", "--target", "hard", *vary])
    assert (code, capsys.readouterr().err) == (2, f"escaramuza: error: {message}\n")


@pytest.mark.parametrize(
    "spec, labels",
    [
        ("count:saqueador=1..3", ["1", "2", "3"]),
        ("stat:saqueador.pv=4..6", ["4", "5", "6"]),
        ("stat:enemies.pv=-2..+1", ["-2", "-1", "+0", "+1"]),
        ("stat:saqueador.pv=*0.5..*0.7", ["×0.50", "×0.55", "×0.66"]),  # distinct pv only
        ("stat:saqueador.defensa=d6..d10", ["d6", "d8", "d10"]),
        # the most values a dimension takes
        ("count:saqueador=1..1000", [str(k) for k in range(1, 1001)]),
        ("stat:saqueador.pv=+0..+999", [f"{k:+d}" for k in range(1000)]),
    ],
)
def test_vary_ranges_give_their_values(spec: str, labels: list[str]) -> None:
    assert parse_vary(_duel(), spec).labels == labels


@pytest.mark.parametrize(
    "spec, reason",
    [
        # one value more than MAX_VALUES, each form: counted before anything is built
        (
            "count:saqueador=0..1000",
            "a dimension takes at most 1000 values, and this range holds more",
        ),
        (
            "stat:saqueador.pv=1..1001",
            "a dimension takes at most 1000 values, and this range holds more",
        ),
        (
            "stat:enemies.pv=+0..+1000",
            "a dimension takes at most 1000 values, and this range holds more",
        ),
        (
            "stat:enemies.pv=*1..*11.01",
            "a dimension takes at most 1000 values, and this range holds more",
        ),
        (
            "stat:enemies.pv=*1..*1e300",
            "a dimension takes at most 1000 values, and this range holds more",
        ),
        ("stat:enemies.pv=*0..*nan", "'nan' is not a finite number"),
        ("stat:enemies.pv=+0..+inf", "'+inf' is not a finite number"),
        ("count:saqueador=1..1e999", "'1e999' is not a finite number"),
        ("stat:enemies.pv=*0..*2", "a multiplier must be above 0 (e.g. *0.5..*2)"),
        ("stat:enemies.pv=*-1..*2", "a multiplier must be above 0 (e.g. *0.5..*2)"),
        # counts, shifts and values are whole: 1.5..3 was read as 1..3
        ("count:saqueador=1.5..3", "'1.5' is not a whole number"),
        ("stat:enemies.pv=+0..+2.5", "'+2.5' is not a whole number"),
    ],
)
def test_vary_refuses_an_unbounded_or_non_finite_range(
    spec: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(EscaramuzaError) as caught:
        parse_vary(_duel(), spec)
    assert str(caught.value) == f"--vary {spec}: {reason}"
    argv = ["balance", "destiny_dice/brann-vs-saqueador", "--target", "hard", "--vary", spec]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"escaramuza: error: --vary {spec}: {reason}\n"


def test_a_grid_too_large_is_refused_before_it_is_built(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The grid was listed in full before its size was compared with MAX_GRID: four
    --vary of 1000 values built a billion tuples (memory, then a MemoryError traceback)."""

    class NoProduct:
        @staticmethod
        def product(*_ranges: object) -> None:
            raise AssertionError("the grid was built")

    monkeypatch.setattr("escaramuza.balance.search.itertools", NoProduct)
    vary = ["stat:saqueador.pv=+0..+9", "stat:brann.pv=+0..+9", "count:saqueador=1..3"]
    argv = ["balance", "destiny_dice/brann-vs-saqueador", "--target", "hard"]
    assert main([*argv, *(f"--vary={v}" for v in vary)]) == 2
    assert capsys.readouterr().err == (
        "escaramuza: error: --vary: 100 combinations to grid; at most 64\n"
    )


@pytest.mark.compile
def test_the_variants_own_command_reproduces_its_rates_with_its_agents(tmp_path, capsys) -> None:
    """The chosen variant's comment names a playtest that gives its rates again: with the
    agents and engine the search played (the comment once left the agents out, and the
    heuristic's battles are not random against first-legal's)."""
    import shlex

    out = tmp_path / "variant.yaml"
    args = ["balance", "destiny_dice/kaspar-tiroteo", "--target", "heroes-win=0.5"]
    args += ["--vary", "stat:enemies.pv=*0.2..*1", "--heroes", "random"]
    args += ["--enemies", "first-legal", "--max-battles", "100", "--out", str(out), "--json"]
    assert main(args) == 0
    chosen = json.loads(capsys.readouterr().out)["chosen"]
    line = out.read_text(encoding="utf-8").splitlines()[2]
    command = line.split("`")[1]
    assert "--heroes random --enemies first-legal" in command
    words = shlex.split(command.replace("FILE", shlex.quote(str(out))))[1:]
    assert main([*words, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)["scenarios"][0]
    assert again["battles"] == chosen["battles"] == 100
    assert again["outcomes"]["heroes"]["count"] == round(
        chosen["estimates"]["heroes-win"]["rate"] * chosen["battles"]
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--vary", "stat:enemies.pv=*1..*2"], "--vary stat:enemies.pv is given twice"),
        (["--alpha", "1e-320"], "--alpha must be at least 1e-12 and below 1, not 1e-320"),
    ],
)
def test_a_repeated_vary_and_a_vanishing_alpha_are_refused_before_any_battle(
    capsys, tmp_path, extra: list[str], message: str
) -> None:
    """Two --vary of one field crashed after the whole search (a table of one value less,
    a variant file already written); an alpha of 1e-320 divided by zero. The refused
    search leaves no empty --report folder behind."""
    args = ["balance", "destiny_dice/kaspar-tiroteo", "--target", "heroes-win=0.5"]
    report = ["--report", str(tmp_path / "report")]
    assert main([*args, "--vary", "stat:enemies.pv=*0.5..*1", *extra, *report]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("engine", "planner"), [("reference", "reference"), ("auto", "auto")])
def test_balance_chunks_carry_the_planners_engine_as_playtests(engine: str, planner: str) -> None:
    """An mcts agent's rollouts run on the engine's with --engine reference, in balance as
    in playtest (balance's chunks named no engine for them: the default, auto)."""
    from escaramuza.balance.search import BalanceRun
    from escaramuza.playtest.runner import PlaytestConfig, ScenarioRef
    from escaramuza.rules.core.parsers import parse_yaml

    ref = ScenarioRef.resolve("destiny_dice/kaspar-tiroteo")
    data = parse_yaml(ref.text, ref.source, EscaramuzaError)
    dims = [parse_vary(data, "stat:enemies.pv=*0.5..*1")]
    config = PlaytestConfig(n=1, enemies="mcts:4it", engine=engine)
    job = BalanceRun(ref.load(), data, dims, Target.parse("heroes-win=0.5", 0.1), config)
    seen = []

    class Runner:
        def run(self, jobs, done):  # type: ignore[no-untyped-def]
            seen.extend(jobs)
            return []

    job.battles(Runner(), (0,), 2)  # type: ignore[arg-type]
    assert seen and {j.planner_engine for j in seen} == {planner}
