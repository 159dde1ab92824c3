"""Runs the workers of a process: one Worker per queue, a reaper, and signal handling.

A worker's polling loop that dies with an unexpected exception is restarted with
backoff, so one bad deployment of a handler library cannot stop the other queues. On
SIGTERM the pool stops claiming and gives running tasks ``shutdown_grace`` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
from typing import Any

from .config import Config
from .metrics import Registry
from .models import Task
from .ratelimit import TokenBucket
from .reaper import Reaper
from .worker import Handler, Worker

log = logging.getLogger("taskq.pool")


class RateLimitedStore:
    """Delegates to a store, taking a token from the queue's bucket before each claim."""

    def __init__(self, store: Any, bucket: TokenBucket):
        self._store = store
        self._bucket = bucket

    async def claim(self, queue: str, worker_id: str, lease_ttl: float) -> Task | None:
        await self._bucket.acquire()
        return await self._store.claim(queue, worker_id, lease_ttl)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


class WorkerPool:
    def __init__(self, store: Any, config: Config, handlers: dict[str, Handler], *, registry: Registry | None = None,
                 run_reaper: bool | None = None):
        if not handlers:
            raise ValueError("a worker pool needs at least one queue handler")
        self.store = store
        self.config = config
        self.registry = registry or Registry()
        self._restarts = self.registry.counter("taskq_worker_restarts_total", "Worker loops restarted after a crash", ("queue",))
        self._workers: dict[str, Worker] = {}
        self._supervisors: dict[str, asyncio.Task] = {}
        self._reaper = Reaper(store, config.reaper.interval) if (config.reaper.enabled if run_reaper is None else run_reaper) else None
        self._reaper_task: asyncio.Task | None = None
        self._stopped = asyncio.Event()
        base_id = config.worker.worker_id or socket.gethostname()
        for queue, handler in handlers.items():
            qc = config.queue(queue)
            queue_store = RateLimitedStore(store, TokenBucket(qc.rate_limit)) if qc.rate_limit > 0 else store
            self._workers[queue] = Worker(
                queue_store,
                queue,
                handler,
                concurrency=config.worker.concurrency,
                lease_ttl=config.worker.lease_ttl,
                poll_interval=config.worker.poll_interval,
                retry_policy=qc.retry_policy(),
                worker_id=f"{base_id}-{queue}",
            )

    @property
    def queues(self) -> list[str]:
        return list(self._workers)

    async def start(self) -> None:
        for queue, worker in self._workers.items():
            self._supervisors[queue] = asyncio.create_task(self._supervise(queue, worker), name=f"supervise-{queue}")
        if self._reaper is not None:
            self._reaper_task = asyncio.create_task(self._reaper.run(), name="reaper")
        log.info("worker pool started for queues %s", ", ".join(self._workers))

    async def _supervise(self, queue: str, worker: Worker) -> None:
        backoff = 1.0
        while not self._stopped.is_set():
            try:
                await worker.run()
                return
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a crashed loop is logged and restarted
                log.exception("worker loop for queue %s crashed, restarting in %.0fs", queue, backoff)
                self._restarts.inc(queue=queue)
                try:
                    await asyncio.wait_for(self._stopped.wait(), timeout=backoff)
                except asyncio.TimeoutError:
                    pass
                backoff = min(60.0, backoff * 2)

    def install_signal_handlers(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, lambda s=sig: asyncio.create_task(self.stop(reason=signal.Signals(s).name)))

    async def stop(self, reason: str = "requested") -> None:
        """Stops claiming, waits for running tasks up to the grace period, then cuts the rest."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        log.info("stopping worker pool (%s), grace %.0fs", reason, self.config.worker.shutdown_grace)
        if self._reaper is not None:
            self._reaper.stop()
        stopping = [asyncio.create_task(w.stop()) for w in self._workers.values()]
        done, pending = await asyncio.wait(stopping, timeout=self.config.worker.shutdown_grace)
        if pending:
            log.warning("%d queue(s) still had running tasks after %.0fs; their leases will expire and the reaper will requeue them",
                        len(pending), self.config.worker.shutdown_grace)
        for task in [*pending, *self._supervisors.values()]:
            task.cancel()
        if self._reaper_task is not None:
            await asyncio.gather(self._reaper_task, return_exceptions=True)

    def health(self) -> dict[str, Any]:
        """Per queue whether its polling loop runs; "ok" is false once any loop has ended
        while the pool is not stopping, or the reaper has died."""
        queues = {}
        for queue in self._workers:
            supervisor = self._supervisors.get(queue)
            queues[queue] = {
                "running": supervisor is not None and not supervisor.done(),
                "restarts": int(self._restarts.value(queue=queue)),
            }
        reaper_ok = self._reaper_task is None or not self._reaper_task.done()
        ok = not self._stopped.is_set() and reaper_ok and all(q["running"] for q in queues.values())
        return {"ok": ok, "stopping": self._stopped.is_set(), "reaper": reaper_ok, "queues": queues}

    async def wait(self) -> None:
        await self._stopped.wait()
        await asyncio.gather(*self._supervisors.values(), return_exceptions=True)
