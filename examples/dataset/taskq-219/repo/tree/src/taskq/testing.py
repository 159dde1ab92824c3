"""Helpers for testing handlers and code that enqueues tasks, without worker threads.

    clock = ManualClock()
    store = TaskStore(clock=clock)
    await store.enqueue("invoices", payload)
    results = await run_pending(store, "invoices", send_invoice, clock=clock)

``run_pending`` claims and runs tasks one at a time, applying the retry policy like a
worker would, and advances the manual clock over retry delays so a whole retry history
runs in one call.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from typing import Any

from .retry import RetryPolicy
from .worker import Handler


class ManualClock:
    """A clock for TaskStore that only moves when told to; starts at the wall time."""

    def __init__(self, start: float | None = None):
        self.now = time.time() if start is None else start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time does not go backwards")
        self.now += seconds


@dataclass
class Outcome:
    task_id: str
    attempt: int
    result: Any = None
    error: str | None = None


async def run_pending(store: Any, queue: str, handler: Handler, *, clock: ManualClock | None = None,
                      retry_policy: RetryPolicy | None = None, worker_id: str = "test-worker",
                      lease_ttl: float = 30.0, max_runs: int = 1000) -> list[Outcome]:
    """Runs tasks of `queue` until none is runnable; returns every run's outcome in order."""
    policy = retry_policy or RetryPolicy(base=0.0 if clock is None else 1.0)
    outcomes: list[Outcome] = []
    for _ in range(max_runs):
        task = await store.claim(queue, worker_id, lease_ttl)
        if task is None:
            return outcomes
        try:
            result = await handler(task.payload)
        except Exception as exc:  # noqa: BLE001 - recorded as the run's outcome
            error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            outcomes.append(Outcome(task.id, task.attempt, error=error))
            if policy.should_retry(exc, task.attempt):
                delay = policy.next_delay(task.attempt)
                await store.retry(task.id, worker_id, delay, error)
                if clock is not None:
                    clock.advance(delay)
            else:
                await store.fail(task.id, worker_id, error, dead=task.attempt >= task.max_attempts)
            continue
        await store.complete(task.id, worker_id, result)
        outcomes.append(Outcome(task.id, task.attempt, result=result))
    raise RuntimeError(f"more than {max_runs} runs on queue {queue}; does a handler always fail?")
