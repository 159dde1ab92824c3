import pytest

from taskq import LeaseLost, TaskStore


async def test_renew_after_reap_raises_lease_lost():
    now = [1000.0]
    store = TaskStore(clock=lambda: now[0])
    task = await store.enqueue("q", {"n": 1})
    await store.claim("q", "w1", lease_ttl=10)
    now[0] += 11
    await store.reap_expired()
    with pytest.raises(LeaseLost):
        await store.renew(task.id, "w1", lease_ttl=10)
