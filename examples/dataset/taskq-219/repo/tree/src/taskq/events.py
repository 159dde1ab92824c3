"""Task lifecycle events for dashboards and audit logs.

``ObservedStore`` wraps a store and publishes an event after every transition that
succeeded. Subscribers run in the publisher's task and must be fast; slow sinks such as
``WebhookSink`` buffer events and deliver them from their own task, dropping the oldest
when the buffer is full rather than slowing down workers.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable
from urllib.parse import urlparse

from .models import Task

log = logging.getLogger("taskq.events")


@dataclass(frozen=True)
class TaskEvent:
    kind: str
    task_id: str
    queue: str
    attempt: int
    worker_id: str | None = None
    detail: str | None = None
    at: float = field(default_factory=time.time)


Subscriber = Callable[[TaskEvent], None]


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        self._subscribers.append(subscriber)
        return lambda: self._subscribers.remove(subscriber)

    def publish(self, event: TaskEvent) -> None:
        for subscriber in list(self._subscribers):
            try:
                subscriber(event)
            except Exception:  # noqa: BLE001 - a broken subscriber must not fail the transition
                log.exception("event subscriber %r failed on %s", subscriber, event.kind)


class ObservedStore:
    def __init__(self, store: Any, bus: EventBus):
        self._store = store
        self.bus = bus

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def _emit(self, kind: str, task: Task, worker_id: str | None = None, detail: str | None = None) -> None:
        self.bus.publish(TaskEvent(kind, task.id, task.queue, task.attempt, worker_id, detail))

    async def enqueue(self, queue: str, payload: dict[str, Any], max_attempts: int = 5) -> Task:
        task = await self._store.enqueue(queue, payload, max_attempts)
        self._emit("enqueued", task)
        return task

    async def claim(self, queue: str, worker_id: str, lease_ttl: float) -> Task | None:
        task = await self._store.claim(queue, worker_id, lease_ttl)
        if task is not None:
            self._emit("claimed", task, worker_id)
        return task

    async def complete(self, task_id: str, worker_id: str, result: Any) -> None:
        await self._store.complete(task_id, worker_id, result)
        self._emit("completed", await self._store.get(task_id), worker_id)

    async def retry(self, task_id: str, worker_id: str, delay: float, error: str) -> None:
        await self._store.retry(task_id, worker_id, delay, error)
        self._emit("retried", await self._store.get(task_id), worker_id, error)

    async def fail(self, task_id: str, worker_id: str, error: str, dead: bool) -> None:
        await self._store.fail(task_id, worker_id, error, dead)
        self._emit("dead" if dead else "failed", await self._store.get(task_id), worker_id, error)

    async def reap_expired(self) -> list[Task]:
        reaped = await self._store.reap_expired()
        for task in reaped:
            self._emit("reaped", task)
        return reaped


class WebhookSink:
    """POSTs events as JSON to an HTTP endpoint, in order, with retries."""

    def __init__(self, url: str, *, buffer: int = 10_000, timeout: float = 5.0, retries: int = 3):
        parsed = urlparse(url)
        if parsed.scheme != "http":
            raise ValueError("WebhookSink speaks plain http; put a proxy in front for https")
        self.host = parsed.hostname or "localhost"
        self.port = parsed.port or 80
        self.path = parsed.path or "/"
        self.timeout = timeout
        self.retries = retries
        self._queue: asyncio.Queue[TaskEvent] = asyncio.Queue(buffer)
        self.dropped = 0

    def __call__(self, event: TaskEvent) -> None:
        if self._queue.full():
            self._queue.get_nowait()
            self.dropped += 1
        self._queue.put_nowait(event)

    async def run(self) -> None:
        while True:
            event = await self._queue.get()
            for attempt in range(self.retries + 1):
                try:
                    await asyncio.wait_for(self._post(asdict(event)), self.timeout)
                    break
                except (OSError, asyncio.TimeoutError, ValueError) as exc:
                    if attempt == self.retries:
                        log.warning("dropping %s event of task %s after %d attempts: %s", event.kind, event.task_id, attempt + 1, exc)
                    else:
                        await asyncio.sleep(0.5 * 2 ** attempt)

    async def _post(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode("utf-8")
        reader, writer = await asyncio.open_connection(self.host, self.port)
        try:
            writer.write(
                f"POST {self.path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode("latin-1") + data
            )
            await writer.drain()
            status_line = await reader.readline()
            parts = status_line.split()
            if len(parts) < 2 or not parts[1].startswith(b"2"):
                raise ValueError(f"webhook answered {status_line.decode('latin-1').strip()!r}")
        finally:
            writer.close()
