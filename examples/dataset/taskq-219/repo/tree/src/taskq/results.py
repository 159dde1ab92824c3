"""Waiting for a task's outcome from the code that enqueued it."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

from .errors import StoreUnavailable, TaskqError
from .models import Task, TaskState

FINAL_STATES = (TaskState.SUCCEEDED, TaskState.FAILED, TaskState.DEAD)


class TaskFailed(TaskqError):
    def __init__(self, task: Task):
        super().__init__(f"task {task.id} ended {task.state.value} after {task.attempt} attempt(s): {task.last_error}")
        self.task = task


class ResultTimeout(TaskqError):
    pass


class AsyncResult:
    """Polls the store with growing intervals until the task reaches a final state."""

    def __init__(self, store: Any, task_id: str, *, clock: Callable[[], float] = time.monotonic):
        self.store = store
        self.task_id = task_id
        self._clock = clock

    async def state(self) -> TaskState:
        return (await self.store.get(self.task_id)).state

    async def wait(self, timeout: float = 60.0, *, first_interval: float = 0.05, max_interval: float = 2.0) -> Task:
        deadline = self._clock() + timeout
        interval = first_interval
        while True:
            try:
                task = await self.store.get(self.task_id)
                if task.state in FINAL_STATES:
                    return task
            except StoreUnavailable:
                pass  # keep polling until the deadline
            remaining = deadline - self._clock()
            if remaining <= 0:
                raise ResultTimeout(f"task {self.task_id} not finished after {timeout}s")
            await asyncio.sleep(min(interval, remaining))
            interval = min(max_interval, interval * 1.5)

    async def get(self, timeout: float = 60.0) -> Any:
        """The handler's return value; raises TaskFailed if the task failed for good."""
        task = await self.wait(timeout)
        if task.state is not TaskState.SUCCEEDED:
            raise TaskFailed(task)
        return task.result
