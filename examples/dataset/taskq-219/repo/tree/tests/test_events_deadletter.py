import json
import time

import pytest

from taskq import TaskStore
from taskq.admin import StoreAdmin
from taskq.deadletter import export_dead, import_tasks
from taskq.events import EventBus, ObservedStore


async def test_transitions_publish_events_in_order():
    bus = EventBus()
    seen = []
    bus.subscribe(lambda e: seen.append((e.kind, e.attempt, e.worker_id)))
    bus.subscribe(lambda e: 1 / 0)  # a broken subscriber is logged, not raised
    store = ObservedStore(TaskStore(clock=lambda: time.time() + 1), bus)
    task = await store.enqueue("q", {"n": 1})
    await store.claim("q", "w1", lease_ttl=30)
    await store.retry(task.id, "w1", delay=0, error="ConnectionError")
    await store.claim("q", "w1", lease_ttl=30)
    await store.fail(task.id, "w1", "ValueError", dead=True)
    assert seen == [("enqueued", 0, None), ("claimed", 1, "w1"), ("retried", 1, "w1"), ("claimed", 2, "w1"), ("dead", 2, "w1")]


async def test_dead_tasks_round_trip_through_an_export(tmp_path):
    store = TaskStore(clock=lambda: time.time() + 1)
    admin = StoreAdmin(store)
    for n in range(3):
        task = await store.enqueue("invoices", {"n": n}, max_attempts=1)
        await store.claim("invoices", "w1", lease_ttl=30)
        await store.fail(task.id, "w1", "provider down", dead=n != 1)
    path = tmp_path / "dead.jsonl"
    assert await export_dead(admin, "invoices", path, page_size=1) == 2
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted(r["payload"]["n"] for r in records) == [0, 2]
    assert {r["last_error"] for r in records} == {"provider down"}
    new_ids = await import_tasks(store, path, queue="invoices-replay", max_attempts=3)
    assert len(new_ids) == 2
    replayed = await store.claim("invoices-replay", "w2", lease_ttl=30)
    assert replayed.max_attempts == 3 and replayed.attempt == 1


async def test_an_invalid_export_imports_nothing(tmp_path):
    store = TaskStore()
    path = tmp_path / "dead.jsonl"
    path.write_text('{"queue": "q", "payload": {"n": 1}}\n{"queue": "q"}\n')
    with pytest.raises(ValueError, match=":2:"):
        await import_tasks(store, path)
    assert store._tasks == {}
