"""Token buckets that cap how fast a worker claims tasks of a queue, e.g. to respect a
downstream API's rate limit across all concurrency slots of a worker."""

from __future__ import annotations

import asyncio
import time
from typing import Callable


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` saved up. A rate of 0 means unlimited."""

    def __init__(self, rate: float, burst: float | None = None, clock: Callable[[], float] = time.monotonic):
        if rate < 0:
            raise ValueError("rate must not be negative")
        self.rate = rate
        self.burst = burst if burst is not None else max(1.0, rate)
        self._tokens = self.burst
        self._clock = clock
        self._updated = clock()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._updated) * self.rate)
        self._updated = now

    def try_acquire(self, tokens: float = 1.0) -> bool:
        if self.rate == 0:
            return True
        self._refill()
        if self._tokens >= tokens:
            self._tokens -= tokens
            return True
        return False

    def delay_until_available(self, tokens: float = 1.0) -> float:
        if self.rate == 0:
            return 0.0
        self._refill()
        return max(0.0, (tokens - self._tokens) / self.rate)

    async def acquire(self, tokens: float = 1.0) -> None:
        """Waits until `tokens` are available and takes them."""
        async with self._lock:
            while not self.try_acquire(tokens):
                await asyncio.sleep(self.delay_until_available(tokens))
