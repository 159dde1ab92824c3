"""Handler middleware: wrappers around a Worker handler, composed with ``wrap``.

    handler = wrap(registry.dispatch, deadline(300), measure(metrics_registry, "invoices"), log_errors())

Each middleware takes the next handler and returns a handler with the same signature,
``async (payload) -> result``; the first one listed is the outermost.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import traceback
from typing import Any, Awaitable, Callable

from .errors import TaskqError
from .metrics import Registry

log = logging.getLogger("taskq.middleware")

Handler = Callable[[dict[str, Any]], Awaitable[Any]]
Middleware = Callable[[Handler], Handler]


class TaskTimeout(TaskqError):
    """The handler ran longer than its deadline; retried like any other failure."""


def wrap(handler: Handler, *middlewares: Middleware) -> Handler:
    for middleware in reversed(middlewares):
        handler = middleware(handler)
    return handler


def deadline(seconds: float, *, payload_key: str = "timeout") -> Middleware:
    """Fails a run that takes longer than `seconds` (or the payload's own ``timeout``).

    The handler coroutine is cancelled at the deadline, so it must not swallow
    CancelledError in code that has side effects left to do.
    """

    def middleware(next_handler: Handler) -> Handler:
        @functools.wraps(next_handler)
        async def run(payload: dict[str, Any]) -> Any:
            limit = float(payload.get(payload_key, seconds))
            try:
                return await asyncio.wait_for(next_handler(payload), timeout=limit)
            except asyncio.TimeoutError:
                raise TaskTimeout(f"handler did not finish within {limit:.0f}s") from None

        return run

    return middleware


def measure(registry: Registry, queue: str) -> Middleware:
    """Counts runs by outcome and observes their duration."""
    runs = registry.counter("taskq_task_runs_total", "Handler runs by outcome", ("queue", "outcome"))
    duration = registry.histogram("taskq_task_duration_seconds", "Handler run time", ("queue",))

    def middleware(next_handler: Handler) -> Handler:
        @functools.wraps(next_handler)
        async def run(payload: dict[str, Any]) -> Any:
            started = time.perf_counter()
            outcome = "success"
            try:
                return await next_handler(payload)
            except asyncio.CancelledError:
                outcome = "cancelled"
                raise
            except Exception as exc:
                outcome = type(exc).__name__
                raise
            finally:
                runs.inc(queue=queue, outcome=outcome)
                duration.observe(time.perf_counter() - started, queue=queue)

        return run

    return middleware


def log_errors(level: int = logging.ERROR, *, limit: int = 20) -> Middleware:
    """Logs the traceback of a failing handler (the worker only logs the exception line)."""

    def middleware(next_handler: Handler) -> Handler:
        @functools.wraps(next_handler)
        async def run(payload: dict[str, Any]) -> Any:
            try:
                return await next_handler(payload)
            except Exception as exc:
                frames = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=limit))
                log.log(level, "handler failed for payload keys %s:\n%s", sorted(payload), frames.rstrip())
                raise

        return run

    return middleware


def concurrency_limit(limit: int) -> Middleware:
    """At most `limit` concurrent runs of the wrapped handler in this process, e.g. for a
    handler that holds a scarce connection; other runs wait inside their lease."""
    semaphore = asyncio.Semaphore(limit)

    def middleware(next_handler: Handler) -> Handler:
        @functools.wraps(next_handler)
        async def run(payload: dict[str, Any]) -> Any:
            async with semaphore:
                return await next_handler(payload)

        return run

    return middleware
