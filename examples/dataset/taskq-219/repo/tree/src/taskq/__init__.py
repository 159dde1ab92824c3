"""taskq: leased task execution with retries."""

from .errors import LeaseLost, StoreUnavailable, TaskqError
from .models import Task, TaskState
from .retry import RetryPolicy
from .store import TaskStore
from .worker import Worker

__all__ = [
    "LeaseLost",
    "RetryPolicy",
    "StoreUnavailable",
    "Task",
    "TaskState",
    "TaskStore",
    "TaskqError",
    "Worker",
]
__version__ = "2.3.0"
