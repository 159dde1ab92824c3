from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field
from typing import Any


class TaskState(enum.Enum):
    PENDING = "pending"
    LEASED = "leased"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    DEAD = "dead"


@dataclass
class Task:
    id: str
    queue: str
    payload: dict[str, Any]
    state: TaskState = TaskState.PENDING
    attempt: int = 0
    max_attempts: int = 5
    run_at: float = field(default_factory=time.time)
    lease_holder: str | None = None
    lease_expires_at: float = 0.0
    last_error: str | None = None
    result: Any = None

    def leased_by(self, worker_id: str, now: float) -> bool:
        return (
            self.state is TaskState.LEASED
            and self.lease_holder == worker_id
            and self.lease_expires_at > now
        )
