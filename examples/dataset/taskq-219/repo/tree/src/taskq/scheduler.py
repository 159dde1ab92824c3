"""Periodic tasks: enqueue a payload every N seconds, or daily/hourly at a fixed UTC time.

Run exactly one scheduler per deployment. A run that is more than ``misfire_grace``
seconds late (the scheduler was down) is skipped, not caught up, so a long outage does
not flood the queue with stale runs.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from .errors import StoreUnavailable

log = logging.getLogger("taskq.scheduler")


@dataclass
class Schedule:
    name: str
    queue: str
    payload: dict[str, Any]
    every: float | None = None
    minute: int | None = None
    hour: int | None = None
    max_attempts: int = 5
    next_run: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        if (self.every is None) == (self.minute is None):
            raise ValueError(f"schedule {self.name}: give either every= or minute= (and optionally hour=)")
        if self.every is not None and self.every <= 0:
            raise ValueError(f"schedule {self.name}: every must be positive")
        if self.minute is not None and not 0 <= self.minute < 60:
            raise ValueError(f"schedule {self.name}: minute must be in [0, 60)")
        if self.hour is not None and (self.minute is None or not 0 <= self.hour < 24):
            raise ValueError(f"schedule {self.name}: hour needs minute= and must be in [0, 24)")

    def next_after(self, t: float) -> float:
        """The first run time strictly after `t`."""
        if self.every is not None:
            return (math.floor(t / self.every) + 1) * self.every
        now = datetime.fromtimestamp(t, tz=timezone.utc)
        candidate = now.replace(minute=self.minute or 0, second=0, microsecond=0)
        if self.hour is not None:
            candidate = candidate.replace(hour=self.hour)
            step = timedelta(days=1)
        else:
            step = timedelta(hours=1)
        while candidate.timestamp() <= t:
            candidate += step
        return candidate.timestamp()


class Scheduler:
    def __init__(self, store: Any, schedules: list[Schedule], *, clock: Callable[[], float] = time.time,
                 misfire_grace: float = 60.0, tick_interval: float = 1.0):
        names = [s.name for s in schedules]
        if len(names) != len(set(names)):
            raise ValueError("schedule names must be unique")
        self.store = store
        self.schedules = schedules
        self.clock = clock
        self.misfire_grace = misfire_grace
        self.tick_interval = tick_interval
        self._stopping = asyncio.Event()
        now = clock()
        for s in schedules:
            s.next_run = s.next_after(now)

    async def tick(self) -> list[str]:
        """Enqueues every schedule that is due; returns their names."""
        now = self.clock()
        fired = []
        for s in self.schedules:
            if s.next_run > now:
                continue
            if now - s.next_run > self.misfire_grace:
                log.warning("schedule %s missed its run at %.0f by %.0fs, skipping it", s.name, s.next_run, now - s.next_run)
                s.next_run = s.next_after(now)
                continue
            try:
                await self.store.enqueue(s.queue, dict(s.payload, scheduled_for=s.next_run), s.max_attempts)
            except StoreUnavailable as exc:
                # keep next_run: the next tick tries again until the run misfires
                log.warning("schedule %s: store unavailable (%s), will retry", s.name, exc)
                continue
            fired.append(s.name)
            s.next_run = s.next_after(s.next_run)
        return fired

    async def run(self) -> None:
        log.info("scheduler running %d schedules", len(self.schedules))
        while not self._stopping.is_set():
            await self.tick()
            try:
                await asyncio.wait_for(self._stopping.wait(), timeout=self.tick_interval)
            except asyncio.TimeoutError:
                pass

    def stop(self) -> None:
        self._stopping.set()
