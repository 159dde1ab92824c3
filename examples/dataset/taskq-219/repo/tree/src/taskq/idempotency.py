"""Idempotency keys for handlers with side effects.

A task may run more than once: a worker can crash after the side effect and before
``complete``, and the reaper hands the task to another worker. A handler that must not
repeat its effect records a key before doing it::

    async def send_invoice(customer_id, period):
        async with keys.claim(f"invoice:{customer_id}:{period}") as first:
            if not first:
                return "already sent"
            await provider.post(...)

A key is held while its block runs and kept for ``ttl`` seconds once the block
succeeded; if the block fails, the key is released so a retry can do the work.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager
from typing import AsyncIterator, Callable


class KeyInProgress(Exception):
    """Another run holds the key right now; the caller should retry later."""


class IdempotencyKeys:
    """In-process key store; the PostgreSQL deployment uses a table with the same rules."""

    def __init__(self, ttl: float = 7 * 24 * 3600, clock: Callable[[], float] = time.time):
        self.ttl = ttl
        self._clock = clock
        self._done: dict[str, float] = {}
        self._running: set[str] = set()
        self._lock = asyncio.Lock()

    async def _begin(self, key: str) -> bool:
        async with self._lock:
            now = self._clock()
            expires = self._done.get(key)
            if expires is not None and expires > now:
                return False
            if key in self._running:
                raise KeyInProgress(key)
            self._running.add(key)
            return True

    async def _end(self, key: str, succeeded: bool) -> None:
        async with self._lock:
            self._running.discard(key)
            if succeeded:
                self._done[key] = self._clock() + self.ttl

    @asynccontextmanager
    async def claim(self, key: str) -> AsyncIterator[bool]:
        """Yields True if this run should do the work, False if it was already done."""
        first = await self._begin(key)
        if not first:
            yield False
            return
        try:
            yield True
        except BaseException:
            await self._end(key, succeeded=False)
            raise
        await self._end(key, succeeded=True)

    async def purge(self) -> int:
        """Drops expired keys; returns how many."""
        async with self._lock:
            now = self._clock()
            expired = [k for k, t in self._done.items() if t <= now]
            for k in expired:
                del self._done[k]
            return len(expired)
