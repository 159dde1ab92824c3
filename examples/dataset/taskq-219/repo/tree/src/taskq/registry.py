"""Task handlers by name.

Payloads carry the handler name in ``"task"`` and its arguments in ``"args"``; one
``Worker`` per queue runs ``registry.dispatch``::

    registry = HandlerRegistry()

    @registry.task("send_invoice", queue="invoices")
    async def send_invoice(customer_id: int, period: str) -> dict: ...

    await store.enqueue("invoices", registry.payload("send_invoice", customer_id=40417, period="2025-09"))
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Awaitable, Callable


class UnknownTask(KeyError):
    """The payload names a task that no handler was registered for; not retried."""


@dataclass(frozen=True)
class Registration:
    name: str
    queue: str
    fn: Callable[..., Awaitable[Any]]


class HandlerRegistry:
    def __init__(self) -> None:
        self._handlers: dict[str, Registration] = {}

    def task(self, name: str, *, queue: str = "default") -> Callable:
        def register(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
            if not inspect.iscoroutinefunction(fn):
                raise TypeError(f"handler {name} must be an async function")
            if name in self._handlers:
                raise ValueError(f"task {name} is already registered by {self._handlers[name].fn.__qualname__}")
            self._handlers[name] = Registration(name, queue, fn)
            return fn

        return register

    def queues(self) -> set[str]:
        return {r.queue for r in self._handlers.values()}

    def payload(self, name: str, **args: Any) -> dict[str, Any]:
        if name not in self._handlers:
            raise UnknownTask(name)
        return {"task": name, "args": args}

    async def dispatch(self, payload: dict[str, Any]) -> Any:
        """The Worker handler: runs the registered function with the payload's args."""
        name = payload.get("task")
        registration = self._handlers.get(name) if isinstance(name, str) else None
        if registration is None:
            raise UnknownTask(f"no handler for task {name!r}")
        return await registration.fn(**payload.get("args", {}))
