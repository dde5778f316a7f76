"""benchmarks/planner.py --combine: strength logs split over runs are paired seed for seed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmark_scripts import ROOT, load_benchmark

planner = load_benchmark("planner")


def _chunk(arm: str, first: int, last: int, wins: int, name: str = "x/y") -> str:
    n = last - first + 1
    return (
        f"# {name} {arm}: {n}/{n} battles, {wins} enemy wins, 1.00 s/battle "
        f"(chunk seeds {first}–{last}: {wins}/{n})\n"
    )


def _log(tmp_path: Path, name: str, *lines: str) -> str:
    path = tmp_path / name
    path.write_text("strength: header\n" + "".join(lines), encoding="utf-8")
    return str(path)


def test_combine_pairs_only_seeds_both_arms_played(tmp_path: Path) -> None:
    # Run 1 played the heuristic arm on seeds 0–9 but the planner only on 0–4; run 2
    # replayed the heuristic arm on 5–9 (same wins) and played the planner there.
    one = _log(
        tmp_path,
        "a.log",
        _chunk("heuristic", 0, 4, 2),
        _chunk("heuristic", 5, 9, 1),
        _chunk("mcts", 0, 4, 4),
    )
    two = _log(tmp_path, "b.log", _chunk("heuristic", 5, 9, 1), _chunk("mcts", 5, 9, 5))
    (row, mean) = planner.combine([one, two])
    assert "10 paired battles (seeds 0–9)" in row
    assert "heuristic 3/10 = 30.0%" in row and "mcts 9/10 = 90.0%" in row
    assert "+60.0 pts" in row and mean.endswith("+60.0 points")
    # Without the second run only seeds 0–4 pair: 2/5 against 4/5.
    (row, _) = planner.combine([one])
    assert "5 paired battles (seeds 0–4)" in row and "+40.0 pts" in row


@pytest.mark.parametrize(
    ("second", "message"),
    [
        (_chunk("heuristic", 5, 9, 3), "3 wins here, 1 in an earlier log"),
        (_chunk("heuristic", 3, 7, 1), "overlap the chunk"),
        (_chunk("mcts", 0, 4, 6), "says 6/5"),
    ],
)
def test_combine_rejects_logs_that_disagree(tmp_path: Path, second: str, message: str) -> None:
    one = _log(tmp_path, "a.log", _chunk("heuristic", 5, 9, 1), _chunk("mcts", 5, 9, 2))
    two = _log(tmp_path, "b.log", second)
    with pytest.raises(planner.LogError, match=message):
        planner.combine([one, two])


def test_combine_names_the_seeds_it_paired_gaps_included(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        "a.log",
        *(_chunk("heuristic", f, f + 4, 1) for f in (0, 5, 10, 15)),
        _chunk("mcts", 0, 4, 2),
        _chunk("mcts", 10, 14, 3),
        _chunk("mcts", 15, 19, 4),
    )
    (row, _) = planner.combine([log])
    assert "15 paired battles (seeds 0–4, 10–19)" in row and "heuristic 3/15" in row


def test_combine_refuses_a_chunk_only_partly_paired(tmp_path: Path) -> None:
    log = _log(tmp_path, "a.log", _chunk("heuristic", 0, 9, 4), _chunk("mcts", 0, 4, 3))
    with pytest.raises(planner.LogError, match="only partly paired"):
        planner.combine([log])


def test_combine_cli_reports_a_bad_log_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert planner.main(["--combine", str(tmp_path / "missing.log")]) == 2
    err = capsys.readouterr().err
    assert "missing.log" in err and "Traceback" not in err


def test_combine_interval_of_the_difference(tmp_path: Path) -> None:
    # 3/10 against 9/10: 1.96 * sqrt(0.3 * 0.7 / 10 + 0.9 * 0.1 / 10) = 1.96 * sqrt(0.03)
    # = 0.33948 → ±33.9 points; Wilson 95 % of 9/10 is 59.6 %–98.2 % (by hand).
    log = _log(tmp_path, "a.log", _chunk("heuristic", 0, 9, 3), _chunk("mcts", 0, 9, 9))
    (row, _) = planner.combine([log])
    assert "(±33.9)" in row and "mcts 9/10 = 90.0% (59.6%–98.2%)" in row


def test_combine_cli_quiet_when_the_reader_closes_the_pipe(tmp_path: Path) -> None:
    """``--combine … | head -1``: the reader stops after one line; no error, no traceback."""
    lines = [
        _chunk(arm, f, f, 1, name=f"s/{i}")
        for i in range(3000)
        for arm in ("heuristic", "mcts")
        for f in (0,)
    ]
    log = _log(tmp_path, "a.log", *lines)
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "benchmarks" / "planner.py"), "--combine", log],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"s/0 ")
    proc.stdout.close()  # more than a pipe buffer of rows is still to come
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert err == ""


kernel_size = load_benchmark("kernel_size")


def test_kernel_size_counts_each_line_once_by_kind() -> None:
    text = (
        '"""A module.\n'  # 1 docstring
        "\n"  # 2 blank, inside the docstring: blank
        'Its second paragraph."""\n'  # 3 docstring
        "\n"  # 4 blank
        "# a comment alone\n"  # 5 comment
        "X = 1  # a comment after code\n"  # 6 code
        "\n"  # 7 blank
        "def f() -> str:\n"  # 8 code
        '    """f\'s docstring."""\n'  # 9 docstring
        "    return '# not a comment'\n"  # 10 code
    )
    size = kernel_size.measure("m.py", text)
    assert (size.code, size.docstring, size.comment, size.blank) == (3, 3, 1, 3)
    assert size.total == 10


def test_kernel_size_lists_every_kernel_file_and_sums_the_groups() -> None:
    groups = kernel_size.kernel_files()
    names = {p.relative_to(ROOT).as_posix() for paths in groups.values() for p in paths}
    for ruleset in ("destiny_dice", "donjon", "cairn", "sistema_2d10"):
        assert f"rules/{ruleset}/kernel.py" in names
        assert f"agents/heuristics/{ruleset}_kernel.py" in names
        assert f"rules/{ruleset}/kernel_view.py" in names
    assert "rules/core/loops.py" in names and all((ROOT / n).is_file() for n in names)
    lines, grand = kernel_size.table(groups)
    wc = sum(len((ROOT / n).read_text(encoding="utf-8").splitlines()) for n in names)
    assert grand.total == wc
    assert lines[-1].split()[4] == str(grand.total)
