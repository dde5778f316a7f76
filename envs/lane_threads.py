"""Worker threads that each run their share of one call, handed over by two locks.

The batched env steps its lanes in slices, one per thread, every step: a call of a few
hundred microseconds. A ``concurrent.futures.ThreadPoolExecutor`` hands a task over
through its queue, a ``Future`` and their conditions (``submit`` and ``result`` took
about 34 µs here for an empty task); a worker that waits on its own lock and answers on
another takes about 13 µs. :class:`LaneThreads` keeps ``count - 1`` such workers for
the life of the env.

The workers hold only the shared :class:`_Handoff`, never the object that made them:
an env dropped without ``close()`` is collected as usual, and :func:`weakref.finalize`
then lets its workers end.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

#: A share of a call: ``call(t)`` runs thread ``t``'s share and returns a count.
Share = Callable[[int], int]


class _Handoff:
    """What the caller and its workers share: a lock to start each worker, a lock each
    worker releases when its share is done, the call and each share's outcome."""

    def __init__(self, workers: int) -> None:
        self.go = [threading.Lock() for _ in range(workers)]
        self.done = [threading.Lock() for _ in range(workers)]
        for lock in (*self.go, *self.done):
            lock.acquire()
        self.call: Share | None = None
        self.outcomes: list[int | BaseException] = [0] * workers
        self.stopping = False
        #: A wait for the workers was interrupted (Ctrl-C): which shares ended is unknown.
        self.broken = False


def _work(handoff: _Handoff, w: int) -> None:
    """Worker ``w``: run share ``w + 1`` of each call until told to stop."""
    go, done = handoff.go[w], handoff.done[w]
    while True:
        go.acquire()
        call = handoff.call
        if handoff.stopping or call is None:
            return
        try:
            handoff.outcomes[w] = call(w + 1)
        except BaseException as exc:  # handed to the caller, which raises it
            handoff.outcomes[w] = exc
        del call
        done.release()


def _stop(handoff: _Handoff) -> None:
    handoff.stopping = True
    for go in handoff.go:
        go.release()


class LaneThreads:
    """``count`` threads running the shares of a call: the caller's own (share 0) and
    ``count - 1`` workers, started at the first call."""

    def __init__(self, count: int, name: str) -> None:
        if count < 1:
            raise ValueError(f"LaneThreads needs at least one thread, not {count!r}")
        self.count = count
        self.name = name
        self._handoff = _Handoff(count - 1)
        self._threads: list[threading.Thread] = []
        self._finalizer = weakref.finalize(self, _stop, self._handoff)

    def run(self, call: Share) -> int:
        """``call(t)`` for every thread ``t`` at once; the sum of what they return. A
        share that raised is raised here, once every share has ended."""
        if self.count == 1:
            return call(0)
        handoff = self._handoff
        if handoff.stopping:
            raise RuntimeError(f"{self.name}: the threads were shut down")
        if handoff.broken:
            raise RuntimeError(
                f"{self.name}: an earlier call was interrupted while its threads ran, so "
                "what they did is unknown; make a new one"
            )
        if not self._threads:
            self._threads = [
                threading.Thread(
                    target=_work, args=(handoff, w), name=f"{self.name}-{w + 1}", daemon=True
                )
                for w in range(self.count - 1)
            ]
            for thread in self._threads:
                thread.start()
        handoff.call = call
        for go in handoff.go:
            go.release()
        try:
            total = call(0)
        finally:
            # Every worker's share ends before the caller goes on, whatever share 0 did.
            try:
                for done in handoff.done:
                    done.acquire()
            except BaseException:
                # Interrupted while waiting: a worker may still be running its share and
                # release its lock later, which would end the next call's wait too early.
                # No later call may start; shutdown still ends the workers.
                handoff.broken = True
                raise
            handoff.call = None
        for outcome in handoff.outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
            total += outcome
        return total

    @property
    def alive(self) -> bool:
        """Whether worker threads are running (started and not shut down)."""
        return any(thread.is_alive() for thread in self._threads)

    def shutdown(self) -> None:
        """End the workers (waiting for them); a later :meth:`run` is refused."""
        self._finalizer()
        for thread in self._threads:
            thread.join()
