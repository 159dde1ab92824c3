from __future__ import annotations

import asyncio
import logging
import socket
import traceback
from typing import Any, Awaitable, Callable

from .errors import LeaseLost, StoreUnavailable
from .models import Task
from .retry import RetryPolicy
from .store import TaskStore

log = logging.getLogger("taskq.worker")

Handler = Callable[[dict[str, Any]], Awaitable[Any]]


class Worker:
    """Claims tasks of one queue and runs them, up to ``concurrency`` at a time.

    While a task runs, a heartbeat renews its lease every ``lease_ttl / 3`` seconds. A task
    whose lease is lost must stop: the reaper has handed it to another worker.
    """

    def __init__(
        self,
        store: TaskStore,
        queue: str,
        handler: Handler,
        *,
        concurrency: int = 8,
        lease_ttl: float = 30.0,
        poll_interval: float = 0.5,
        retry_policy: RetryPolicy | None = None,
        worker_id: str | None = None,
    ):
        self.store = store
        self.queue = queue
        self.handler = handler
        self.lease_ttl = lease_ttl
        self.poll_interval = poll_interval
        self.retry_policy = retry_policy or RetryPolicy()
        self.worker_id = worker_id or f"{socket.gethostname()}-{id(self):x}"
        self._slots = asyncio.Semaphore(concurrency)
        self._running: set[asyncio.Task] = set()
        self._stopping = asyncio.Event()

    async def run(self) -> None:
        log.info("worker %s polling queue %s", self.worker_id, self.queue)
        while not self._stopping.is_set():
            await self._slots.acquire()
            try:
                task = await self.store.claim(self.queue, self.worker_id, self.lease_ttl)
            except StoreUnavailable:
                self._slots.release()
                log.warning("store unavailable while claiming, backing off")
                await asyncio.sleep(self.poll_interval * 4)
                continue
            if task is None:
                self._slots.release()
                await asyncio.sleep(self.poll_interval)
                continue
            running = asyncio.create_task(self._execute(task), name=f"task-{task.id}")
            self._running.add(running)
            running.add_done_callback(self._running.discard)

    async def stop(self) -> None:
        self._stopping.set()
        if self._running:
            await asyncio.wait(self._running, timeout=self.lease_ttl)

    async def _execute(self, task: Task) -> None:
        log.info("running task %s (attempt %d/%d)", task.id, task.attempt, task.max_attempts)
        execution = asyncio.create_task(self.handler(task.payload))
        heartbeat = asyncio.create_task(self._heartbeat(task, execution))
        try:
            result = await execution
        except asyncio.CancelledError:
            log.warning("task %s cancelled (attempt %d)", task.id, task.attempt)
            return
        except Exception as exc:  # noqa: BLE001 - any handler error is a task failure
            await self._on_failure(task, exc)
            return
        finally:
            heartbeat.cancel()
            self._slots.release()
        try:
            await self.store.complete(task.id, self.worker_id, result)
            log.info("task %s succeeded", task.id)
        except LeaseLost as lost:
            log.warning("task %s finished but its lease is gone: %s", task.id, lost)

    async def _heartbeat(self, task: Task, execution: asyncio.Task) -> None:
        interval = self.lease_ttl / 3
        failures = 0
        while True:
            await asyncio.sleep(interval)
            try:
                await self.store.renew(task.id, self.worker_id, self.lease_ttl)
                failures = 0
            except LeaseLost as lost:
                log.debug("heartbeat for task %s: %s", task.id, lost)
            except StoreUnavailable:
                failures += 1
                log.warning("heartbeat for task %s failed (%d in a row)", task.id, failures)

    async def _on_failure(self, task: Task, exc: BaseException) -> None:
        error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        try:
            if self.retry_policy.should_retry(exc, task.attempt):
                delay = self.retry_policy.next_delay(task.attempt)
                await self.store.retry(task.id, self.worker_id, delay, error)
                log.info("task %s failed (%s), retry in %.1fs", task.id, error, delay)
            else:
                dead = task.attempt >= task.max_attempts
                await self.store.fail(task.id, self.worker_id, error, dead=dead)
                log.warning("task %s failed permanently: %s", task.id, error)
        except LeaseLost as lost:
            log.warning("task %s failed but its lease is gone: %s", task.id, lost)
