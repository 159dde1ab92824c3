class TaskqError(Exception):
    """Base class of taskq errors."""


class StoreUnavailable(TaskqError):
    """The store could not be reached; the operation may be retried."""


class LeaseLost(TaskqError):
    """The worker no longer holds the task's lease (it expired and was reaped or re-claimed)."""

    def __init__(self, task_id: str, holder: str | None):
        super().__init__(f"lease on task {task_id} is held by {holder or 'nobody'}")
        self.task_id = task_id
        self.holder = holder


class TaskNotFound(TaskqError):
    pass
