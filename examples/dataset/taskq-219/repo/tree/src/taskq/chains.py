"""Workflows of tasks: a chain runs steps one after the other, each step's result
passed to the next as ``previous``.

A chain is a payload like any other; the ``ChainRunner`` handler runs the current step
through the registry and, when it succeeds, enqueues the rest of the chain as a new
task. A failing step fails its own task (with its retries); the steps after it are
never enqueued.
"""

from __future__ import annotations

import logging
from typing import Any

from .registry import HandlerRegistry

log = logging.getLogger("taskq.chains")

CHAIN_KEY = "chain"


def chain(*steps: tuple[str, dict[str, Any]], queue: str) -> dict[str, Any]:
    """The payload of a chain of (task name, args) steps, all on `queue`."""
    if not steps:
        raise ValueError("a chain needs at least one step")
    return {CHAIN_KEY: [{"task": name, "args": args} for name, args in steps], "queue": queue, "position": 0}


class ChainRunner:
    """The handler of a chain queue."""

    def __init__(self, store: Any, registry: HandlerRegistry, *, max_attempts: int = 5):
        self.store = store
        self.registry = registry
        self.max_attempts = max_attempts

    async def __call__(self, payload: dict[str, Any]) -> Any:
        steps = payload[CHAIN_KEY]
        position = int(payload.get("position", 0))
        if not 0 <= position < len(steps):
            raise ValueError(f"chain position {position} outside of {len(steps)} steps")
        step = dict(steps[position])
        if "previous" in payload:
            step["args"] = dict(step.get("args", {}), previous=payload["previous"])
        result = await self.registry.dispatch(step)
        if position + 1 < len(steps):
            follow_up = dict(payload, position=position + 1, previous=result)
            task = await self.store.enqueue(payload["queue"], follow_up, self.max_attempts)
            log.info("chain step %d/%d (%s) done, next step is task %s", position + 1, len(steps), step["task"], task.id)
        return result
