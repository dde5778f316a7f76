"""A playtest from the page: N battles of the session's scenario in a background thread,
with progress, a cancel and a wall-clock cap."""

from __future__ import annotations

import dataclasses
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from escaramuza.playtest.records import BattleRecord
from escaramuza.playtest.result import PlaytestResult
from escaramuza.playtest.runner import (
    ChunkJob,
    PlaytestConfig,
    Progress,
    ScenarioRef,
    run_chunk,
    scenario_engine,
)
from escaramuza.playtest.stats import summarize
from escaramuza.playtest.text import render_text
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _f, current_language, language
from escaramuza.web.errors import BusyError
from escaramuza.web.limits import (
    MAX_CHUNK_BATTLES,
    MAX_RUNNING_PLAYTESTS,
    PLAYTEST_CAP_S,
    PLAYTEST_CHUNK_S,
)

log = logging.getLogger("escaramuza.web")

_RUNNING = threading.BoundedSemaphore(MAX_RUNNING_PLAYTESTS)


class _Cancelled(Exception):
    pass


class _JobProgress(Progress):
    """The playtest runner's progress counter, read by the page; it also cancels."""

    def __init__(self, total: int) -> None:
        super().__init__(total, "web", enabled=False)
        self.cancelled = False

    def update(self, count: int) -> None:
        if self.cancelled:
            raise _Cancelled
        super().update(count)


class PlaytestJob:
    """N battles of the session's scenario in a background thread, with progress.

    It stops at :data:`PLAYTEST_CAP_S` after it started (``clock`` seconds), between two
    chunks of battles: ``stopped`` is then ``"time_cap"`` and the numbers are those of
    the battles played, battles 0…done − 1, the same as ``escaramuza playtest -n done``
    with the same seed and agents.
    """

    def __init__(
        self,
        ref: ScenarioRef,
        config: PlaytestConfig,
        clock: Callable[[], float] = time.monotonic,
        cap_s: float = PLAYTEST_CAP_S,
    ) -> None:
        self.ref = ref
        self.config = config
        self.clock = clock
        self.cap_s = cap_s
        self.deadline = math.inf
        self.progress = _JobProgress(config.n)
        self.status = "running"
        #: Why the playtest ended before its N battles (``"time_cap"``), else None.
        self.stopped: str | None = None
        self.error: str | None = None
        self.summary: dict[str, Any] | None = None
        self.text: str | None = None
        self.plots: dict[str, bytes] = {}
        self.started = time.monotonic()
        self.seconds = 0.0
        #: The language of the request that started it: a new thread does not inherit the
        #: request's (a context variable), and the report is worded in it.
        self.language = current_language()
        self.thread = threading.Thread(
            target=self._run_in_language, name="escaramuza-playtest", daemon=True
        )

    def start(self) -> None:
        if not _RUNNING.acquire(blocking=False):
            raise BusyError(
                _f(
                    "{n} playtests are already running on this server; wait for one to finish",
                    MAX_RUNNING_PLAYTESTS,
                )
            )
        self.deadline = self.clock() + self.cap_s
        self.thread.start()

    def cancel(self) -> None:
        self.progress.cancelled = True

    @property
    def done(self) -> int:
        return min(self.progress.done, self.config.n)

    def stopped_text(self) -> str | None:
        """Why the playtest stopped early, in words (None when it played every battle)."""
        if self.stopped != "time_cap":
            return None
        return _f(
            "stopped early: time cap ({seconds} s on this server), {done} of {n} battles "
            "played; the numbers are of those {done} battles (as escaramuza playtest -n "
            "{done} gives them)",
            format(self.cap_s, "g"),
            self.done,
            self.config.n,
        )

    def _play(self) -> tuple[list[BattleRecord], str, str | None]:
        """The battles in order, in growing chunks, until all are played or the cap is
        reached (checked before every chunk but the first); with the engine's choice."""
        cfg = self.config
        engine, why = scenario_engine(self.ref.load(), cfg)
        records: list[BattleRecord] = []
        start, size = 0, 1
        while start < cfg.n:
            if self.progress.cancelled:
                raise _Cancelled
            if start and self.clock() >= self.deadline:
                self.stopped = "time_cap"
                break
            stop = min(cfg.n, start + size)
            began = time.perf_counter()
            # The chunks `escaramuza playtest` plays, by battle index: the records do
            # not depend on how the battles were cut.
            records.extend(run_chunk(ChunkJob.of(self.ref, cfg, engine, start, stop)))
            self.progress.update(stop - start)
            if time.perf_counter() - began < PLAYTEST_CHUNK_S:
                size = min(size * 2, MAX_CHUNK_BATTLES)
            start = stop
        return records, engine, why

    def _run_in_language(self) -> None:
        with language(self.language):
            self._run()

    def _run(self) -> None:
        from escaramuza.playtest.report import outcome_plot, rounds_plot, survival_plot

        try:
            # One process, in this thread: the server stays one process and the numbers
            # are the same as `escaramuza playtest` with the same seed and agents.
            # The engine as `escaramuza playtest` chooses it (auto: the kernel where it
            # plays the scenario and agents), named in the summary as there.
            records, engine, why = self._play()
            summary = summarize(self.ref.load(), records)
            summary["engine"] = engine
            summary["engine_refusal"] = why
            played = dataclasses.replace(self.config, n=len(records))
            self.text = render_text(PlaytestResult(played, [summary]))
            self.plots = {
                "outcomes": outcome_plot(summary),
                "rounds": rounds_plot(summary),
                "survival": survival_plot(summary),
            }
            self.summary = summary
            self.status = "done"
        except _Cancelled:
            self.status = "cancelled"
        except EscaramuzaError as exc:
            self.status, self.error = "failed", str(exc)
        except Exception:  # a thread must report, not die silently
            log.exception("playtest of %s failed", self.ref.name)
            self.status, self.error = "failed", "internal error (see the server log)"
        finally:
            self.seconds = time.monotonic() - self.started
            _RUNNING.release()
