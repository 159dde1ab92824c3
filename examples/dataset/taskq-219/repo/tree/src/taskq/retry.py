from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter.

    ``base`` seconds for the first retry, doubling up to ``cap``; ``max_attempts`` counts
    the first run.
    """

    base: float = 1.0
    cap: float = 300.0
    max_attempts: int = 5
    non_retryable: tuple[type[BaseException], ...] = (ValueError, KeyError)

    def should_retry(self, exc: BaseException, attempt: int) -> bool:
        if isinstance(exc, self.non_retryable):
            return False
        return attempt < self.max_attempts

    def next_delay(self, attempt: int, rng: random.Random | None = None) -> float:
        rng = rng or random.Random()
        ceiling = min(self.cap, self.base * (2 ** max(0, attempt - 1)))
        return rng.uniform(0, ceiling)
