from __future__ import annotations

import asyncio
import logging

from .store import TaskStore

log = logging.getLogger("taskq.reaper")


class Reaper:
    """Returns tasks whose lease expired to the queue, every ``interval`` seconds."""

    def __init__(self, store: TaskStore, interval: float = 5.0):
        self.store = store
        self.interval = interval
        self._stopping = asyncio.Event()

    async def run(self) -> None:
        while not self._stopping.is_set():
            for task in await self.store.reap_expired():
                log.warning(
                    "lease of task %s expired (holder gone or too slow), attempt %d requeued",
                    task.id,
                    task.attempt,
                )
            try:
                await asyncio.wait_for(self._stopping.wait(), timeout=self.interval)
            except asyncio.TimeoutError:
                pass

    def stop(self) -> None:
        self._stopping.set()
