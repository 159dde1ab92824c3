import pytest

from taskq import LeaseLost
from taskq.backends.sqlite import SqliteTaskStore
from taskq.errors import TaskNotFound
from taskq.models import TaskState


@pytest.fixture
async def store(tmp_path):
    now = [1000.0]
    s = SqliteTaskStore(str(tmp_path / "taskq.db"), clock=lambda: now[0])
    s.now = now
    yield s
    await s.close()


async def test_claim_renew_complete(store):
    task = await store.enqueue("q", {"n": 1})
    claimed = await store.claim("q", "w1", lease_ttl=10)
    assert claimed.id == task.id and claimed.state is TaskState.LEASED and claimed.attempt == 1
    assert await store.claim("q", "w2", lease_ttl=10) is None
    await store.renew(task.id, "w1", lease_ttl=10)
    await store.complete(task.id, "w1", {"ok": True})
    assert (await store.get(task.id)).result == {"ok": True}
    assert await store.counts() == {"q:succeeded": 1}


async def test_expired_lease_is_reaped_and_lost(store):
    task = await store.enqueue("q", {"n": 1})
    await store.claim("q", "w1", lease_ttl=10)
    store.now[0] += 11
    with pytest.raises(LeaseLost):
        await store.renew(task.id, "w1", lease_ttl=10)
    assert [t.id for t in await store.reap_expired()] == [task.id]
    await store.claim("q", "w2", lease_ttl=10)
    with pytest.raises(LeaseLost) as lost:
        await store.complete(task.id, "w1", None)
    assert lost.value.holder == "w2"
    with pytest.raises(TaskNotFound):
        await store.renew("missing", "w1", lease_ttl=10)
