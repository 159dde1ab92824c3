from datetime import datetime, timezone

import pytest

from taskq import TaskStore
from taskq.scheduler import Schedule, Scheduler


def ts(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc).timestamp()


def test_next_run_times():
    hourly = Schedule("compact", "maintenance", {}, minute=15)
    assert hourly.next_after(ts("2025-09-14 02:10:00")) == ts("2025-09-14 02:15:00")
    assert hourly.next_after(ts("2025-09-14 02:15:00")) == ts("2025-09-14 03:15:00")
    daily = Schedule("invoices", "invoices", {}, minute=0, hour=2)
    assert daily.next_after(ts("2025-09-14 02:10:00")) == ts("2025-09-15 02:00:00")
    assert Schedule("poll", "q", {}, every=60).next_after(ts("2025-09-14 02:10:30")) == ts("2025-09-14 02:11:00")
    with pytest.raises(ValueError):
        Schedule("both", "q", {}, every=60, minute=1)


async def test_due_runs_are_enqueued_and_misfires_skipped():
    now = [ts("2025-09-14 02:00:05")]
    store = TaskStore(clock=lambda: now[0])
    scheduler = Scheduler(store, [Schedule("poll", "q", {"kind": "poll"}, every=60)], clock=lambda: now[0], misfire_grace=30)
    assert await scheduler.tick() == []
    now[0] = ts("2025-09-14 02:01:02")
    assert await scheduler.tick() == ["poll"]
    assert await scheduler.tick() == []
    now[0] = ts("2025-09-14 02:05:00")
    assert await scheduler.tick() == []
    assert scheduler.schedules[0].next_run == ts("2025-09-14 02:06:00")
    assert len(store._tasks) == 1
    (task,) = store._tasks.values()
    assert task.payload == {"kind": "poll", "scheduled_for": ts("2025-09-14 02:01:00")}
