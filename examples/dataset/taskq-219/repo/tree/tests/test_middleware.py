import asyncio

import pytest

from taskq.idempotency import IdempotencyKeys, KeyInProgress
from taskq.metrics import Registry
from taskq.middleware import TaskTimeout, deadline, measure, wrap


async def test_deadline_and_measure():
    registry = Registry()

    async def slow(payload):
        await asyncio.sleep(payload["sleep"])
        return "done"

    handler = wrap(slow, measure(registry, "q"), deadline(0.05))
    assert await handler({"sleep": 0}) == "done"
    with pytest.raises(TaskTimeout):
        await handler({"sleep": 1})
    runs = registry.counter("taskq_task_runs_total", "", ("queue", "outcome"))
    assert runs.value(queue="q", outcome="success") == 1
    assert runs.value(queue="q", outcome="TaskTimeout") == 1


async def test_idempotency_keys_let_one_run_do_the_work():
    now = [0.0]
    keys = IdempotencyKeys(ttl=60, clock=lambda: now[0])
    async with keys.claim("invoice:40417:2025-09") as first:
        assert first
        with pytest.raises(KeyInProgress):
            async with keys.claim("invoice:40417:2025-09"):
                pass
    async with keys.claim("invoice:40417:2025-09") as again:
        assert not again
    now[0] += 61
    assert await keys.purge() == 1


async def test_a_failed_run_releases_its_key():
    keys = IdempotencyKeys()
    with pytest.raises(RuntimeError):
        async with keys.claim("k") as first:
            assert first
            raise RuntimeError("provider down")
    async with keys.claim("k") as retry:
        assert retry
