"""Seeds and chunks: the same totals for any worker count, chunk size and backend
(architecture.md, "Determinism and seeds")."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from escaramuza.playtest.records import battle_seed, battle_seeds
from escaramuza.playtest.result import PlaytestResult, playtest
from escaramuza.playtest.runner import (
    MAX_CHUNK_SECONDS,
    MIN_CHUNK_SECONDS,
    PlaytestConfig,
    Runner,
    chunk_ranges,
    chunk_size_for,
)
from escaramuza.rules.core.scenario import shipped_scenarios

FAST = "destiny_dice/brann-vs-saqueador"
N = 60


@pytest.fixture(scope="module")
def pool() -> Iterator[Runner]:
    """One two-process pool for the module: starting workers is the slow part."""
    with Runner(PlaytestConfig(workers=2)) as runner:
        yield runner


@pytest.fixture(scope="module")
def serial() -> PlaytestResult:
    return playtest([FAST], PlaytestConfig(n=N, seed=5), keep_records=True)


def test_playtest_battle_seeds_are_the_spawned_children() -> None:
    children = np.random.SeedSequence(5).spawn(12)
    assert [battle_seed(5, i) for i in range(12)] == [int(c.generate_state(1)[0]) for c in children]


@pytest.mark.parametrize(
    "seed",
    # One word of run entropy, the 4-word pool exactly filled, and more words than the
    # pool holds (each past the pool advances the hash constant the spawn word meets).
    [0, 1, 5, 2**32 - 1, 2**32, 2**64 + 3, 2**128 - 1, 2**128, 2**200 + 7, 2**400 + 12345],
)
def test_battle_seeds_vectorised_equal_numpys_seed_sequence(seed: int) -> None:
    # numpy's own SeedSequence is the reference; battle_seeds recomputes its arithmetic.
    indices = [0, 1, 2, 7, 1000, 2**31, 2**32 - 1, 123_456_789]
    for i in indices:
        want = int(np.random.SeedSequence(seed, spawn_key=(i,)).generate_state(1)[0])
        assert battle_seeds(seed, i, i + 1) == [want] and battle_seed(seed, i) == want
    assert battle_seeds(seed, 40, 90) == [
        int(c.generate_state(1)[0]) for c in np.random.SeedSequence(seed).spawn(90)[40:]
    ]
    assert battle_seeds(seed, 5, 5) == []
    with pytest.raises(ValueError, match="out of"):
        battle_seeds(seed, 0, 2**32 + 1)


@pytest.mark.parametrize(
    ("start", "stop", "size", "ranges"),
    [
        (0, 10, 4, [(0, 4), (4, 8), (8, 10)]),
        (3, 9, 10, [(3, 9)]),
        (0, 3, 1, [(0, 1), (1, 2), (2, 3)]),
        (5, 5, 2, []),
    ],
)
def test_playtest_chunks_are_contiguous_index_ranges(
    start: int, stop: int, size: int, ranges: list[tuple[int, int]]
) -> None:
    assert list(chunk_ranges(start, stop, size)) == ranges


@pytest.mark.parametrize(
    ("per_battle", "remaining", "workers", "size"),
    [
        (0.001, 100_000, 2, 2000),  # 12 500 balanced, capped at 2 s of work
        (0.001, 1000, 2, 125),  # balanced: 1000 / (2 workers · 4 chunks)
        (0.001, 100, 2, 100),  # raised to 100 ms of work
        (0.5, 10, 2, 2),  # balanced: ⌈10 / 8⌉ = 2 battles, 1 s of work
        (0.5, 4, 2, 1),  # slow battles: one per chunk already beats 100 ms
    ],
)
def test_playtest_chunk_size_holds_between_100_ms_and_2_s(
    per_battle: float, remaining: int, workers: int, size: int
) -> None:
    got = chunk_size_for(per_battle, remaining, workers)
    assert got == size
    if remaining * per_battle >= MIN_CHUNK_SECONDS:
        assert got * per_battle >= MIN_CHUNK_SECONDS - 1e-9 or got == remaining
    assert got == 1 or got * per_battle <= MAX_CHUNK_SECONDS


@pytest.mark.compile
@pytest.mark.parametrize(
    ("workers", "chunk_size"),
    [(1, 7), (1, None), (2, 13), (2, None)],
)
def test_playtest_totals_identical_for_any_workers_and_chunks(
    serial: PlaytestResult, pool: Runner, workers: int, chunk_size: int | None
) -> None:
    config = PlaytestConfig(n=N, seed=5, workers=workers, chunk_size=chunk_size)
    runner = pool if workers == 2 else None
    other = playtest([FAST], config, keep_records=True, runner=runner)
    assert other.records == serial.records
    assert other.to_json() == serial.to_json()


@pytest.mark.compile
def test_playtest_a_different_seed_gives_different_battles(serial: PlaytestResult) -> None:
    other = playtest([FAST], PlaytestConfig(n=N, seed=6), keep_records=True)
    assert [r.seed for r in other.records[FAST]] != [r.seed for r in serial.records[FAST]]
    assert other.records != serial.records


@pytest.mark.compile
@pytest.mark.parametrize("name", sorted(shipped_scenarios()))
def test_playtest_runs_on_every_shipped_scenario(name: str) -> None:
    result = playtest([name], PlaytestConfig(n=2, seed=3))
    (s,) = result.summaries
    assert s["scenario"] == name
    assert s["battles"] == 2
    total = sum(s["outcomes"][k]["count"] for k in ("heroes", "enemies", "draw"))
    assert total == 2
    assert 1 <= s["rounds"]["max"] <= s["round_limit"]


@pytest.mark.compile
def test_playtest_ray_backend_gives_the_same_totals(serial: PlaytestResult) -> None:
    ray = pytest.importorskip(
        "ray", reason="Ray is not installed (pip install 'escaramuza[cluster]')"
    )
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        config = PlaytestConfig(n=N, seed=5, backend="ray", chunk_size=11)
        result = playtest([FAST], config, keep_records=True)
        # The runner used the instance started here and left it running.
        assert ray.is_initialized()
    finally:
        ray.shutdown()
    assert result.records == serial.records
    assert result.to_json() == serial.to_json()


def test_a_ray_address_where_nothing_answers_is_refused_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``ray.init`` retried an address where nothing listens for minutes, printing only
    Ray's own warnings: a port that refuses is now said to, before Ray is asked."""
    pytest.importorskip("ray")
    from escaramuza.cli import main

    argv = ["playtest", "donjon/duelo", "-n", "2", "--backend", "ray", "--address"]
    assert main([*argv, "127.0.0.1:1", "--no-progress"]) == 2
    assert "cannot start or join 127.0.0.1:1: nothing answers there" in capsys.readouterr().err
