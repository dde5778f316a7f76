"""The fast-path driver (agents/fast.py) against the kernel contract (rules/core/kernel.py).

The kernel here is a test double that plays every battle and rollout on the engine
itself (the specification), so what these tests check is the driver's own logic: which
engine it picks and why, that a kernel's battles become the engine's playtest records,
that the documents differ only in the field naming the engine, and that the planner's
batched rollouts give the same search, rollout for rollout, as the engine's one by one.
The real kernels' equality with the engine is checked in tests/agents/test_fast_kernels.py
and by ``benchmarks/fast_path.py --equality``.
"""

from __future__ import annotations

import io
import json
import random
import sys
import threading
import time
from collections.abc import Sequence

import numpy as np
import pytest

from escaramuza.agents import fast, make_agent
from escaramuza.agents.fast import (
    EngineRefusal,
    choose_engine,
    compare,
    engine_battle,
    find_kernel,
    play_records,
    use_kernel,
)
from escaramuza.agents.runner import play_battle
from escaramuza.agents.search import AGENT_ITERATIONS, MCTS, MCTSAgent, Node
from escaramuza.agents.suggest import suggest
from escaramuza.cli import main
from escaramuza.playtest import PlaytestConfig, play_one, playtest
from escaramuza.progress import quiet
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.kernel import BattleColumns, KernelBattle, KernelRefusal, RolloutBatch
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.scenario import Scenario, load_scenario
from escaramuza.rules.core.state import BattleState

DUEL = "destiny_dice/brann-vs-saqueador"
AMBUSH = "destiny_dice/emboscada"
RULESET = "destiny_dice"


class EngineKernel:
    """A kernel that plays on the engine: exact by construction, and it counts calls."""

    ruleset_id = RULESET

    def __init__(self, refuse: str | None = None, refuse_rollouts: str | None = None) -> None:
        self.refuse = refuse  # a scenario name it refuses
        self.refuse_rollouts = refuse_rollouts  # rollouts() raises KernelRefusal with this
        self.battle_calls: list[int] = []
        self.rollout_calls: list[tuple[int, int]] = []

    def refusal(self, scenario: Scenario, agents: Sequence[str]) -> str | None:
        if scenario.name == self.refuse:
            return "the test kernel does not play this scenario"
        bad = [a for a in agents if a != "random" and not a.startswith("heuristic")]
        return f"agent {bad[0]} is not compiled" if bad else None

    def play_battles(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> list[KernelBattle]:
        self.battle_calls.append(len(seeds))
        return [engine_battle(scenario, agents, s) for s in seeds]

    def play_columns(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> BattleColumns:
        return BattleColumns.of(self.play_battles(scenario, agents, seeds))

    def rollouts(
        self,
        state: BattleState,
        actions: Sequence[Action],
        seeds: Sequence[int],
        horizon: int | None,
        own_temperament: str | None,
        max_decisions: int,
    ) -> RolloutBatch:
        if self.refuse_rollouts is not None:
            raise KernelRefusal(self.refuse_rollouts)
        self.rollout_calls.append((len(actions), len(seeds)))
        pending = state.pending
        assert pending is not None
        side = pending.side
        planner = MCTS(
            iterations=1,
            horizon=horizon,
            rollout_temperament=own_temperament,
            expand_after=None,
            engine="reference",
        )
        shape = (len(actions), len(seeds))
        winner = np.zeros(shape, dtype=np.int8)
        finished = np.zeros(shape, dtype=bool)
        own = np.zeros(shape)
        foe = np.zeros(shape)
        out = np.zeros(shape, dtype=bool)
        from escaramuza.agents.search import side_strength

        for i, action in enumerate(actions):
            for j, seed in enumerate(seeds):
                sim, _, walk = planner._descend(state, Node(), action, side, pending.actor, seed)
                outcome = sim.outcome
                if outcome is not None and outcome.winner is not None:
                    winner[i, j] = 1 if outcome.winner is side else -1
                finished[i, j] = outcome is not None
                own[i, j] = side_strength(sim, side)
                foe[i, j] = side_strength(sim, side.other)
                out[i, j] = walk.knocked_out
        return RolloutBatch(winner, finished, own, foe, out)


def _state(name: str = AMBUSH, decisions: int = 3, seed: int = 3) -> BattleState:
    hero = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    return play_battle(load_scenario(name), hero, seed=seed, stop_after=decisions, narrate=False)


# -- choosing the engine ----------------------------------------------------------------


def test_auto_falls_back_to_the_engine_and_says_why() -> None:
    scenario = load_scenario(DUEL)
    with use_kernel(RULESET, None):
        assert choose_engine("auto", scenario, ["heuristic", "heuristic"]) == (
            "reference",
            "no kernel for destiny_dice yet",
        )
        assert choose_engine("reference", scenario, ["heuristic", "heuristic"]) == (
            "reference",
            None,
        )
    with use_kernel(RULESET, EngineKernel(refuse=DUEL)):
        assert choose_engine("auto", scenario, ["random", "heuristic"]) == (
            "reference",
            "the test kernel does not play this scenario",
        )
    with use_kernel(RULESET, EngineKernel()):
        assert choose_engine("auto", scenario, ["random", "brute"]) == ("fast", None)
        used, why = choose_engine("auto", scenario, ["mcts:20it", "heuristic"])
        assert used == "reference" and "'mcts:20it' plays only on the engine" in str(why)


def test_fast_refuses_with_the_kernels_reason() -> None:
    scenario = load_scenario(DUEL)
    with use_kernel(RULESET, EngineKernel(refuse=DUEL)):
        with pytest.raises(EngineRefusal, match="does not play this scenario"):
            choose_engine("fast", scenario, ["heuristic", "heuristic"])
    with pytest.raises(Exception, match="--engine must be one of auto, fast, reference"):
        choose_engine("turbo", scenario, ["heuristic", "heuristic"])


def test_playtest_engine_fast_without_a_kernel_exits_2_naming_the_refusal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with use_kernel(RULESET, None):
        assert main(["playtest", DUEL, "-n", "3", "--engine", "fast"]) == 2
    err = capsys.readouterr().err
    assert "no kernel for destiny_dice yet" in err and "Traceback" not in err


def test_a_missing_kernel_module_is_no_kernel() -> None:
    assert find_kernel("no_such_ruleset") is None


# -- battles on the kernel ----------------------------------------------------------------


def test_kernel_chunk_records_equal_the_engines() -> None:
    scenario = load_scenario(DUEL)
    kernel = EngineKernel()
    with use_kernel(RULESET, kernel):
        fast = play_records(scenario, "heuristic:brute", "random", 7, 3, 9)
    slow = [play_one(scenario, "heuristic:brute", "random", 7, i) for i in range(3, 9)]
    assert fast == slow
    assert kernel.battle_calls == [6]  # the whole chunk in one call


def _doc(engine: str, scenarios: list[str], n: int = 12) -> dict:
    config = PlaytestConfig(n=n, seed=5, heroes="heuristic", enemies="random", engine=engine)
    return json.loads(playtest(scenarios, config).to_json())


def test_playtest_json_is_identical_apart_from_the_engine_field() -> None:
    kernel = EngineKernel()
    with use_kernel(RULESET, kernel):
        fast = _doc("fast", [DUEL, AMBUSH])
        auto = _doc("auto", [DUEL, AMBUSH])
        reference = _doc("reference", [DUEL, AMBUSH])
    assert kernel.battle_calls  # the kernel really played
    assert [s["engine"] for s in fast["scenarios"]] == ["fast", "fast"]
    assert [s["engine"] for s in reference["scenarios"]] == ["reference", "reference"]
    assert auto == fast
    for s in fast["scenarios"]:
        s["engine"] = "reference"
    assert fast == reference


def test_auto_fallback_is_in_the_json_and_the_text_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with use_kernel(RULESET, EngineKernel(refuse=DUEL)):
        doc = _doc("auto", [DUEL, AMBUSH], n=4)
        assert main(["playtest", DUEL, AMBUSH, "-n", "4"]) == 0
    engines = [(s["engine"], s["engine_refusal"]) for s in doc["scenarios"]]
    assert engines == [("reference", "the test kernel does not play this scenario"), ("fast", None)]
    text = capsys.readouterr().out
    assert f"{DUEL}: engine: reference (the test kernel does not play this scenario)" in text
    assert f"{AMBUSH}: engine: fast" in text


def test_evaluate_pairings_name_their_engine() -> None:
    from escaramuza.training.evaluate import evaluate

    with use_kernel(RULESET, EngineKernel()):
        fast = evaluate([DUEL], ["heuristic", "mcts:4it"], n=2, seed=3).document()
        reference = evaluate(
            [DUEL], ["heuristic", "mcts:4it"], n=2, seed=3, engine="reference"
        ).document()
    pairings = fast["scenarios"][0]["pairings"]
    assert [p["engine"] for p in pairings] == ["fast", "reference", "reference", "reference"]
    assert "'mcts:4it' plays only on the engine" in pairings[1]["engine_refusal"]
    for p in pairings:
        p["engine"], p["engine_refusal"] = "reference", None
    assert fast == reference


def test_compare_names_every_differing_field() -> None:
    scenario = load_scenario(DUEL)
    kernel = EngineKernel()
    assert compare(scenario, ["heuristic", "random"], range(4), kernel) == []

    class Off(EngineKernel):
        def play_battles(self, scenario, agents, seeds):  # type: ignore[no-untyped-def]
            good = super().play_battles(scenario, agents, seeds)
            return [b if b.seed != 2 else _replace(b, rounds=b.rounds + 1) for b in good]

    found = compare(scenario, ["heuristic", "random"], range(4), Off())
    assert [(m.seed, m.field) for m in found] == [(2, "rounds")]
    assert found[0].kernel == found[0].engine + 1  # type: ignore[operator]


def _replace(battle: KernelBattle, **changes: object) -> KernelBattle:
    import dataclasses

    return dataclasses.replace(battle, **changes)  # type: ignore[arg-type]


# -- the planner ------------------------------------------------------------------------------


def _without_engine(doc: dict) -> dict:
    doc["search"].pop("elapsed_ms")
    doc["search"].pop("engine")
    doc["search"].pop("engine_refusal")
    return doc


@pytest.mark.parametrize(("iterations", "max_iterations"), [(60, None), (50, 300), (7, None)])
def test_suggestion_with_an_iteration_budget_is_identical_on_both_engines(
    iterations: int, max_iterations: int | None
) -> None:
    state = _state()
    kernel = EngineKernel()
    with use_kernel(RULESET, kernel):
        fast = suggest(
            state,
            budget_ms=None,
            iterations=iterations,
            seed=4,
            max_iterations=max_iterations,
            engine="fast",
        )
    reference = suggest(
        state,
        budget_ms=None,
        iterations=iterations,
        seed=4,
        max_iterations=max_iterations,
        engine="reference",
    )
    assert fast.engine == "fast" and reference.engine == "reference"
    assert _without_engine(fast.to_dict()) == _without_engine(reference.to_dict())
    # Batched: some call played several actions on several seeds at once.
    assert any(a > 1 and s > 1 for a, s in kernel.rollout_calls) or iterations < 20
    # One call per warm-up at most beyond the batches: far fewer calls than rollouts.
    assert len(kernel.rollout_calls) < fast.iterations


@pytest.mark.parametrize("root", ["sweep", "ucb"])
def test_tree_less_searches_are_identical_on_both_engines(root: str) -> None:
    state = _state()
    results = []
    for engine in ("fast", "reference"):
        with use_kernel(RULESET, EngineKernel()):
            planner = MCTS(iterations=45, root=root, horizon=1, expand_after=None, engine=engine)
            results.append(planner.search(state, random.Random(11)))
    fast, reference = results
    assert (fast.engine, reference.engine) == ("fast", "reference")
    assert fast.seeds == reference.seeds and fast.iterations == reference.iterations
    for action in reference.actions:
        a, b = fast.child(action), reference.child(action)
        assert (a.visits, a.value, a.wins, a.losses, a.knocked_out, a.samples) == (
            b.visits,
            b.value,
            b.wins,
            b.losses,
            b.knocked_out,
            b.samples,
        )
    assert fast.root.value == reference.root.value


def test_a_time_budget_on_the_kernel_stops_the_search_on_the_budget() -> None:
    """A budgeted search on the kernel ends because its time ran out (how far past the
    deadline a kernel call may run is the chunk test below, without a clock)."""
    state = _state()
    with use_kernel(RULESET, EngineKernel()):
        result = MCTS(
            iterations=None,
            budget_ms=150,
            root="sweep",
            expand_after=None,
            horizon=1,
            engine="fast",
        ).search(state, random.Random(1))
    assert result.engine == "fast" and result.iterations >= 1
    assert result.stopped in ("budget", "clear", "identical")


def test_a_state_the_kernel_refuses_is_searched_on_the_engine_with_the_reason() -> None:
    state = _state()
    with use_kernel(RULESET, EngineKernel(refuse_rollouts="a reaction is pending")):
        auto = suggest(state, budget_ms=None, iterations=30, seed=2)
        with pytest.raises(EngineRefusal, match="a reaction is pending"):
            suggest(state, budget_ms=None, iterations=30, seed=2, engine="fast")
    reference = suggest(state, budget_ms=None, iterations=30, seed=2, engine="reference")
    assert (auto.engine, auto.engine_refusal) == ("reference", "a reaction is pending")
    assert _without_engine(auto.to_dict()) == _without_engine(reference.to_dict())


def test_a_tree_search_stays_on_the_engine() -> None:
    state = _state()
    with use_kernel(RULESET, EngineKernel()):
        result = MCTS(iterations=20, expand_after=6).search(state, random.Random(0))
        assert result.engine == "reference" and "expand_after" in str(result.engine_refusal)
        with pytest.raises(EngineRefusal, match="expand_after"):
            MCTS(iterations=20, expand_after=6, engine="fast").search(state, random.Random(0))


@pytest.mark.parametrize(
    ("spec", "engine", "iterations"),
    [
        ("mcts", "auto", AGENT_ITERATIONS),
        ("mcts:fast", "fast", AGENT_ITERATIONS),
        ("mcts:40it:reference", "reference", 40),
        ("mcts:250ms:fast", "fast", None),
    ],
)
def test_mcts_spec_names_the_rollouts_engine(
    spec: str, engine: str, iterations: int | None
) -> None:
    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    assert agent.planner.engine == engine and agent.planner.iterations == iterations
    # A playtest's --engine reference is the default of a spec naming none, not of one that does.
    assert make_agent("mcts:40it", engine="reference").planner.engine == "reference"  # type: ignore[attr-defined]
    assert make_agent("mcts:fast", engine="reference").planner.engine == "fast"  # type: ignore[attr-defined]


def test_mcts_agent_battle_is_identical_on_both_engines() -> None:
    scenario = load_scenario(DUEL)
    ends = []
    for spec in ("mcts:24it:fast", "mcts:24it:reference"):
        with use_kernel(RULESET, EngineKernel()):
            state = play_battle(
                scenario,
                {Side.HEROES: make_agent(spec), Side.ENEMIES: make_agent("heuristic")},
                seed=5,
                narrate=False,
            )
        ends.append(engine_battle_of(state))
    assert ends[0] == ends[1]


def engine_battle_of(state: BattleState) -> tuple:
    return (state.outcome, [(c.status, dict(c.resources), c.zone) for c in state.combatants])


class _SlowKernel(EngineKernel):
    """The engine kernel, with a first call as slow as a compile: it returns only once
    the compile notice has been printed (or after ``patience`` seconds), so the tests do
    not depend on how fast the machine schedules the notice's timer."""

    def __init__(self, noticed: threading.Event, patience: float = 60.0) -> None:
        super().__init__()
        self.noticed = noticed
        self.patience = patience

    def play_battles(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> list[KernelBattle]:
        self.noticed.wait(self.patience)
        return super().play_battles(scenario, agents, seeds)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _watch_notice(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """An event set when the compile notice is printed (the notice itself still runs)."""
    noticed = threading.Event()
    original = fast._compile_notice

    def notice(ruleset_id: str) -> None:
        original(ruleset_id)
        noticed.set()

    monkeypatch.setattr(fast, "_compile_notice", notice)
    return noticed


def test_a_slow_first_kernel_call_tells_a_terminal_user_it_is_compiling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scenario = load_scenario(DUEL)
    noticed = _watch_notice(monkeypatch)
    monkeypatch.setattr(fast, "COMPILE_NOTICE_SECONDS", 0.05)
    monkeypatch.setattr(fast, "_CALLED", set())
    terminal = _Tty()
    monkeypatch.setattr(sys, "stderr", terminal)
    with use_kernel(RULESET, _SlowKernel(noticed)):
        play_records(scenario, "heuristic", "heuristic", 1, 0, 1)
    assert noticed.is_set()
    assert "compiling the fast path for destiny_dice" in terminal.getvalue()
    # Once per process: the next call says nothing, however long it takes (here 0.2 s,
    # four times the notice's delay: no notice comes to end the wait sooner).
    terminal.seek(0)
    terminal.truncate()
    noticed.clear()
    with use_kernel(RULESET, _SlowKernel(noticed, patience=0.2)):
        play_records(scenario, "heuristic", "heuristic", 1, 1, 2)
    assert terminal.getvalue() == "" and not noticed.is_set()


def test_no_compile_notice_on_a_pipe_with_no_progress_or_for_a_quick_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scenario = load_scenario(DUEL)
    noticed = _watch_notice(monkeypatch)
    monkeypatch.setattr(fast, "COMPILE_NOTICE_SECONDS", 0.0)
    # Not a terminal: like the progress bars, no line (no timer is even started).
    monkeypatch.setattr(fast, "_CALLED", set())
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    with use_kernel(RULESET, _SlowKernel(noticed, patience=0.2)):
        play_records(scenario, "heuristic", "heuristic", 1, 0, 1)
    assert piped.getvalue() == "" and not noticed.is_set()
    # --no-progress (progress.quiet) silences it on a terminal too.
    monkeypatch.setattr(fast, "_CALLED", set())
    terminal = _Tty()
    monkeypatch.setattr(sys, "stderr", terminal)
    with quiet(), use_kernel(RULESET, _SlowKernel(noticed, patience=0.2)):
        play_records(scenario, "heuristic", "heuristic", 1, 0, 1)
    assert terminal.getvalue() == "" and not noticed.is_set()
    # A call that ends before the notice's delay says nothing.
    monkeypatch.setattr(fast, "_CALLED", set())
    monkeypatch.setattr(fast, "COMPILE_NOTICE_SECONDS", 3600.0)
    with use_kernel(RULESET, EngineKernel()):
        play_records(scenario, "heuristic", "heuristic", 1, 0, 1)
    assert terminal.getvalue() == "" and not noticed.is_set()


def test_a_kernel_chunk_never_holds_more_than_the_time_left() -> None:
    """Near the deadline a chunk shrinks to what the measured rate fits in the time left
    (one rollout at least), so a time budget is overrun by a rollout, not by a chunk."""
    from escaramuza.agents.search import KERNEL_CALL_SECONDS
    from escaramuza.agents.search.rollouts import _Rollouts

    state = _state()
    runner = _Rollouts(
        MCTS(iterations=None, budget_ms=100, root="race", expand_after=None),
        state,
        Node(),
        [],
        random.Random(1),
        EngineKernel(),
        None,
    )  # type: ignore[arg-type]
    runner.rate = 10_000.0  # rollouts a second
    now = time.perf_counter()
    assert runner.chunk(10**6, True) == int(10_000 * KERNEL_CALL_SECONDS)  # no deadline
    assert runner.chunk(10**6, True, now + 3600) == int(10_000 * KERNEL_CALL_SECONDS)
    assert runner.chunk(10**6, True, now + 0.005) <= 50
    assert runner.chunk(10**6, True, now - 1) == 1  # past it: one rollout, never zero
    assert runner.chunk(7, False, now - 1) == 7  # an iteration budget is not cut


def test_threads_must_be_positive() -> None:
    with pytest.raises(EscaramuzaError, match="threads must be at least 1"):
        MCTS(iterations=10, threads=0)


def test_a_forked_child_gets_its_own_rollout_thread_pool() -> None:
    """A child forked after its parent used a pool must not reuse it (its threads do not
    exist in the child): split batches there still run, and the result is the same."""
    import multiprocessing

    from escaramuza.agents.search.rollouts import _thread_pool

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    parent = _thread_pool(1)
    assert parent.submit(lambda: 41 + 1).result(timeout=10) == 42
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        assert pool.apply_async(_child_pool_works).get(timeout=60) is True


def _child_pool_works() -> bool:
    from escaramuza.agents.search.rollouts import _thread_pool

    return _thread_pool(1).submit(lambda: True).result(timeout=10)
