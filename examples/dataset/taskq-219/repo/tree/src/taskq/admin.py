"""Operations on the in-process store that the CLI and tests use: listing, purging
finished tasks, cancelling pending ones, moving tasks between queues.

Only tasks that no worker holds are changed: a leased task belongs to its worker until
it finishes or its lease is reaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .errors import TaskqError
from .models import Task, TaskState
from .store import TaskStore

FINISHED = (TaskState.SUCCEEDED, TaskState.FAILED, TaskState.DEAD)


class TaskBusy(TaskqError):
    """The task is leased; it cannot be changed from outside."""


@dataclass(frozen=True)
class Page:
    tasks: list[Task]
    next_cursor: str | None


class StoreAdmin:
    def __init__(self, store: TaskStore):
        self.store = store

    async def list(self, queue: str | None = None, states: Iterable[TaskState] = (), *, limit: int = 100,
                   cursor: str | None = None) -> Page:
        """Tasks ordered by id, `limit` at a time; pass `next_cursor` to get the next page."""
        wanted = set(states)
        async with self.store._lock:
            matching = sorted(
                (t for t in self.store._tasks.values()
                 if (queue is None or t.queue == queue) and (not wanted or t.state in wanted) and (cursor is None or t.id > cursor)),
                key=lambda t: t.id,
            )
        page = matching[:limit]
        return Page(page, page[-1].id if len(matching) > limit else None)

    async def purge_finished(self, older_than: float, now: float) -> int:
        """Deletes finished tasks whose last run was scheduled before `now - older_than`."""
        async with self.store._lock:
            doomed = [t.id for t in self.store._tasks.values() if t.state in FINISHED and t.run_at < now - older_than]
            for task_id in doomed:
                del self.store._tasks[task_id]
        return len(doomed)

    async def cancel(self, task_id: str, reason: str = "cancelled by operator") -> Task:
        """Marks a pending task failed so no worker claims it."""
        async with self.store._lock:
            task = self.store._get(task_id)
            if task.state is TaskState.LEASED:
                raise TaskBusy(f"task {task_id} is leased by {task.lease_holder}")
            if task.state is TaskState.PENDING:
                task.state = TaskState.FAILED
                task.last_error = reason
            return task

    async def move(self, task_ids: Iterable[str], queue: str) -> int:
        """Moves pending tasks to another queue; leased or finished ones are skipped."""
        moved = 0
        async with self.store._lock:
            for task_id in task_ids:
                task = self.store._get(task_id)
                if task.state is TaskState.PENDING:
                    task.queue = queue
                    moved += 1
        return moved

    async def requeue_dead(self, queue: str, now: float) -> int:
        """Gives dead tasks of a queue a fresh set of attempts."""
        count = 0
        async with self.store._lock:
            for task in self.store._tasks.values():
                if task.queue == queue and task.state is TaskState.DEAD:
                    task.state = TaskState.PENDING
                    task.attempt = 0
                    task.run_at = now
                    task.last_error = None
                    count += 1
        return count
