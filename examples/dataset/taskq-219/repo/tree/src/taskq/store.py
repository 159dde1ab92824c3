"""The task store. Production uses PostgreSQL through asyncpg; this module holds the
in-process implementation used by tests and single-node deployments, with the same
semantics: every state change is conditional on the current state and lease holder."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from .errors import LeaseLost, TaskNotFound
from .models import Task, TaskState


class TaskStore:
    def __init__(self, clock=time.time):
        self._tasks: dict[str, Task] = {}
        self._lock = asyncio.Lock()
        self._clock = clock

    async def enqueue(self, queue: str, payload: dict[str, Any], max_attempts: int = 5) -> Task:
        task = Task(id=uuid.uuid4().hex, queue=queue, payload=payload, max_attempts=max_attempts)
        async with self._lock:
            self._tasks[task.id] = task
        return task

    async def claim(self, queue: str, worker_id: str, lease_ttl: float) -> Task | None:
        """Leases the oldest runnable task of the queue to the worker."""
        now = self._clock()
        async with self._lock:
            runnable = [
                t for t in self._tasks.values()
                if t.queue == queue and t.state is TaskState.PENDING and t.run_at <= now
            ]
            if not runnable:
                return None
            task = min(runnable, key=lambda t: t.run_at)
            task.state = TaskState.LEASED
            task.lease_holder = worker_id
            task.lease_expires_at = now + lease_ttl
            task.attempt += 1
            return task

    async def renew(self, task_id: str, worker_id: str, lease_ttl: float) -> None:
        """Extends the lease; raises LeaseLost if the worker does not hold it any more."""
        now = self._clock()
        async with self._lock:
            task = self._get(task_id)
            if not task.leased_by(worker_id, now):
                raise LeaseLost(task_id, task.lease_holder if task.state is TaskState.LEASED else None)
            task.lease_expires_at = now + lease_ttl

    async def complete(self, task_id: str, worker_id: str, result: Any) -> None:
        async with self._lock:
            task = self._get(task_id)
            if task.lease_holder != worker_id:
                raise LeaseLost(task_id, task.lease_holder)
            task.state = TaskState.SUCCEEDED
            task.result = result
            task.lease_holder = None

    async def retry(self, task_id: str, worker_id: str, delay: float, error: str) -> None:
        async with self._lock:
            task = self._get(task_id)
            if task.lease_holder != worker_id:
                raise LeaseLost(task_id, task.lease_holder)
            task.state = TaskState.PENDING
            task.run_at = self._clock() + delay
            task.last_error = error
            task.lease_holder = None

    async def fail(self, task_id: str, worker_id: str, error: str, dead: bool) -> None:
        async with self._lock:
            task = self._get(task_id)
            if task.lease_holder != worker_id:
                raise LeaseLost(task_id, task.lease_holder)
            task.state = TaskState.DEAD if dead else TaskState.FAILED
            task.last_error = error
            task.lease_holder = None

    async def reap_expired(self) -> list[Task]:
        """Returns tasks whose lease expired to PENDING so another worker runs them."""
        now = self._clock()
        reaped = []
        async with self._lock:
            for task in self._tasks.values():
                if task.state is TaskState.LEASED and task.lease_expires_at <= now:
                    task.state = TaskState.PENDING
                    task.lease_holder = None
                    task.run_at = now
                    reaped.append(task)
        return reaped

    async def get(self, task_id: str) -> Task:
        async with self._lock:
            return self._get(task_id)

    def _get(self, task_id: str) -> Task:
        try:
            return self._tasks[task_id]
        except KeyError:
            raise TaskNotFound(task_id) from None
