import asyncio
import time

from taskq import TaskStore
from taskq.admin import StoreAdmin, TaskBusy
from taskq.config import from_dict
from taskq.models import TaskState
from taskq.pool import WorkerPool


async def test_pool_runs_every_queue_and_stops():
    store = TaskStore(clock=lambda: time.time() + 1)
    config = from_dict({"worker": {"poll_interval": 0.01, "lease_ttl": 3.0, "shutdown_grace": 2.0},
                        "reaper": {"interval": 0.5}, "queues": {"emails": {"rate_limit": 100.0}}})
    seen = []

    async def handle(payload):
        seen.append(payload["n"])
        return payload["n"] * 2

    pool = WorkerPool(store, config, {"invoices": handle, "emails": handle})
    ids = []
    for n, queue in enumerate(["invoices", "emails", "invoices"]):
        ids.append((await store.enqueue(queue, {"n": n})).id)
    await pool.start()
    for _ in range(200):
        states = [(await store.get(i)).state for i in ids]
        if all(state is TaskState.SUCCEEDED for state in states):
            break
        await asyncio.sleep(0.01)
    assert pool.health()["ok"]
    await pool.stop()
    assert sorted(seen) == [0, 1, 2]
    assert not pool.health()["ok"]


async def test_admin_does_not_touch_leased_tasks():
    store = TaskStore(clock=lambda: time.time() + 1)
    admin = StoreAdmin(store)
    leased = await store.enqueue("q", {})
    pending = await store.enqueue("q", {})
    await store.claim("q", "w1", lease_ttl=30)
    try:
        await admin.cancel(leased.id)
        raise AssertionError("cancel of a leased task must fail")
    except TaskBusy:
        pass
    assert (await admin.cancel(pending.id)).state is TaskState.FAILED
    page = await admin.list("q", [TaskState.LEASED])
    assert [t.id for t in page.tasks] == [leased.id] and page.next_cursor is None
