"""``escaramuza warmup`` and the background warm-up of ``gm`` and ``serve``.

With test doubles for the kernels: what is checked is which calls a warm-up makes and
what ``auto`` does while one runs, not numba (tests/cli/test_cold_cache.py compiles)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

import escaramuza.agents.fast as fast
from escaramuza.agents.fast import (
    FAST,
    REFERENCE,
    STILL_COMPILING,
    choose_engine,
    use_kernel,
    warm_in_background,
    warming,
)
from escaramuza.cli import main
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.ruleset import new_battle
from escaramuza.rules.core.scenario import load_scenario


class Recording:
    """A kernel double that accepts everything, records its calls and can be held."""

    ruleset_id = "cairn"

    def __init__(self, hold: threading.Event | None = None) -> None:
        self.calls: list[str] = []
        self.hold = hold

    def refusal(self, scenario: Any, agents: Any) -> None:
        return None

    def play_columns(self, scenario: Any, agents: Any, seeds: Any) -> None:
        self.calls.append(f"play_columns {scenario.name} {list(agents)} {list(seeds)}")
        if self.hold is not None:
            self.hold.wait(10)

    def rollouts(self, state: Any, actions: Any, seeds: Any, *rest: Any) -> None:
        self.calls.append(f"rollouts {len(actions)} {list(seeds)}")


@pytest.fixture(autouse=True)
def fresh_driver() -> Iterator[None]:
    """The driver's per-process sets as they were (a warm-up marks its ruleset called)."""
    called, warming_now = set(fast._CALLED), dict(fast._WARMING)
    fast._CALLED.discard("cairn")
    yield
    fast._CALLED.clear()
    fast._CALLED.update(called)
    fast._WARMING.clear()
    fast._WARMING.update(warming_now)


def test_warmup_plays_each_kernels_battle_loop_and_rollouts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    kernel = Recording()
    with use_kernel("cairn", kernel):  # type: ignore[arg-type]
        assert main(["warmup", "cairn"]) == 0
    assert kernel.calls == [
        "play_columns cairn/emboscada_goblin ['heuristic', 'heuristic'] [0, 1]",
        "rollouts 1 [0]",
    ]
    out = capsys.readouterr().out
    assert out.startswith("Cairn: compiling or loading the kernel… loaded from the cache in ")
    assert out.endswith(" s\n")


def test_warmup_names_a_ruleset_without_kernel_and_refuses_an_unknown_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with use_kernel("cairn", None):
        assert main(["warmup", "cairn"]) == 0
    assert capsys.readouterr().out == "Cairn: no compiled kernel (the engine plays)\n"
    assert main(["warmup", "cairn", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown ruleset 'nope'" in err and "cairn" in err


def test_auto_plays_on_the_engine_while_the_kernel_compiles_in_the_background() -> None:
    hold = threading.Event()
    kernel = Recording(hold)
    scenario = load_scenario("cairn/duelo_bugbear")
    with use_kernel("cairn", kernel):  # type: ignore[arg-type]
        warm_in_background(["cairn"])
        assert warming("cairn")
        assert choose_engine("auto", scenario, ["heuristic", "heuristic"]) == (
            REFERENCE,
            STILL_COMPILING,
        )
        # --engine fast asks for the kernel itself: it waits rather than refuse.
        assert choose_engine("fast", scenario, ["heuristic", "heuristic"]) == (FAST, None)
        from escaramuza.agents.suggest import suggest

        state = new_battle(scenario, RandomRoller(0))
        result = suggest(state, iterations=8, budget_ms=None)
        assert (result.engine, result.engine_refusal) == (REFERENCE, STILL_COMPILING)
        hold.set()
        for thread in threading.enumerate():
            if thread.name == "escaramuza-warmup":
                thread.join(10)
        assert not warming("cairn")
        assert choose_engine("auto", scenario, ["heuristic", "heuristic"]) == (FAST, None)


class FakePool:
    """Stands in for the process pool: each ruleset's warm-up "runs" at submission, its
    seconds or its failure taken from ``outcomes``."""

    made: list[int] = []

    def __init__(self, jobs: int, mp_context: Any = None) -> None:
        FakePool.made.append(jobs)

    def submit(self, fn: Any, ruleset_id: str) -> Any:
        from concurrent.futures import Future

        future: Future[float] = Future()
        outcome = OUTCOMES[ruleset_id]
        if isinstance(outcome, Exception):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)
        return future

    def shutdown(self, cancel_futures: bool = False) -> None:
        pass


OUTCOMES: dict[str, Any] = {}


def test_warmup_compiles_rulesets_side_by_side_and_reports_them_in_order(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import escaramuza.warmup as warmup

    monkeypatch.setattr(warmup, "ProcessPoolExecutor", FakePool)
    FakePool.made.clear()
    OUTCOMES.update({"cairn": 31.0, "donjon": 0.4})
    with use_kernel("cairn", Recording()), use_kernel("donjon", Recording()):  # type: ignore[arg-type]
        assert main(["warmup", "donjon", "cairn", "--jobs", "4"]) == 0
    assert FakePool.made == [2]  # no more processes than rulesets to compile
    assert capsys.readouterr().out == (
        "Donjon: compiling or loading the kernel… loaded from the cache in 0.4 s\n"
        "Cairn: compiling or loading the kernel… compiled in 31.0 s\n"
    )
    OUTCOMES["cairn"] = MemoryError("out of memory")
    with use_kernel("cairn", Recording()), use_kernel("donjon", Recording()):  # type: ignore[arg-type]
        assert main(["warmup", "donjon", "cairn", "--jobs", "2"]) == 2
    captured = capsys.readouterr()
    assert "cairn: compiling its kernel failed in its process: out of memory" in captured.err
    assert "Traceback" not in captured.err
    assert main(["warmup", "--jobs", "0"]) == 2
    assert "--jobs must be a positive number of processes, not 0" in capsys.readouterr().err
