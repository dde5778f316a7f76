"""The batched env's worker threads (escaramuza.envs.lane_threads)."""

from __future__ import annotations

import gc
import threading
import time

import pytest

from escaramuza.envs.lane_threads import LaneThreads


def test_every_share_runs_once_on_its_own_thread_and_the_counts_add_up() -> None:
    pool = LaneThreads(3, "lanes-test")
    try:
        for round_ in range(50):
            seen: dict[int, int] = {}
            lock = threading.Lock()

            def share(
                t: int, seen: dict[int, int] = seen, lock: threading.Lock = lock, r: int = round_
            ) -> int:
                with lock:
                    assert t not in seen
                    seen[t] = threading.get_ident()
                return 10 * t + r

            assert pool.run(share) == 10 * (0 + 1 + 2) + 3 * round_
            assert sorted(seen) == [0, 1, 2]
            assert len(set(seen.values())) == 3
            assert seen[0] == threading.get_ident()
    finally:
        pool.shutdown()


def test_one_thread_runs_the_call_in_the_caller_with_no_worker() -> None:
    pool = LaneThreads(1, "lanes-test")
    before = threading.active_count()
    assert pool.run(lambda t: threading.get_ident() if t == 0 else -1) == threading.get_ident()
    assert threading.active_count() == before
    assert not pool.alive


@pytest.mark.parametrize("failing", [0, 1])
def test_a_share_that_raises_is_raised_in_the_caller_after_every_share_ended(
    failing: int,
) -> None:
    """The caller's own share (0) or a worker's (1): either way the others run to their
    end before the caller goes on, and the workers serve the next call."""
    pool = LaneThreads(3, "lanes-test")
    ended: list[int] = []

    def share(t: int) -> int:
        if t == failing:
            raise ValueError(f"share {t} failed")
        time.sleep(0.05)
        ended.append(t)
        return 1

    try:
        with pytest.raises(ValueError, match=f"share {failing} failed"):
            pool.run(share)
        assert sorted(ended) == sorted({0, 1, 2} - {failing})
        assert pool.run(lambda t: 1) == 3
    finally:
        pool.shutdown()


def test_shut_down_workers_end_and_a_later_call_is_refused() -> None:
    pool = LaneThreads(3, "lanes-test")
    assert pool.run(lambda t: t) == 3
    assert pool.alive
    pool.shutdown()
    pool.shutdown()  # again: nothing
    assert not pool.alive
    with pytest.raises(RuntimeError, match="lanes-test: the threads were shut down"):
        pool.run(lambda t: t)


def test_workers_of_a_pool_dropped_without_shutdown_end() -> None:
    pool = LaneThreads(3, "lanes-dropped")
    pool.run(lambda t: t)
    workers = [t for t in threading.enumerate() if t.name.startswith("lanes-dropped-")]
    assert len(workers) == 2
    del pool
    gc.collect()
    for worker in workers:
        worker.join(timeout=5)
        assert not worker.is_alive()


def test_a_call_whose_wait_was_interrupted_refuses_every_later_call() -> None:
    """Ctrl-C while the caller waits for a worker: that worker may still be running and
    release its lock later, which would end a later call's wait before its share ended.
    Later calls are refused instead; shutdown still ends the workers."""
    pool = LaneThreads(2, "lanes-interrupted")
    pool.run(lambda t: t)
    handoff = pool._handoff
    real = handoff.done[0]

    class Interrupted:
        def acquire(self) -> bool:
            real.acquire()  # the worker's share has ended; the interrupt lands after
            raise KeyboardInterrupt

    handoff.done[0] = Interrupted()  # type: ignore[assignment]
    with pytest.raises(KeyboardInterrupt):
        pool.run(lambda t: t)
    handoff.done[0] = real
    with pytest.raises(RuntimeError, match="lanes-interrupted: an earlier call was interrupted"):
        pool.run(lambda t: t)
    workers = [t for t in threading.enumerate() if t.name.startswith("lanes-interrupted-")]
    pool.shutdown()
    assert workers and not any(worker.is_alive() for worker in workers)


def test_a_pool_needs_a_thread() -> None:
    with pytest.raises(ValueError, match="at least one thread, not 0"):
        LaneThreads(0, "lanes-test")
