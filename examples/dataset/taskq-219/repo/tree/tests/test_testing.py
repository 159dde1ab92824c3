from taskq import TaskStore
from taskq.models import TaskState
from taskq.testing import ManualClock, run_pending


async def test_run_pending_applies_retries_with_the_manual_clock():
    clock = ManualClock()
    store = TaskStore(clock=clock)
    flaky = await store.enqueue("q", {"fail_times": 2}, max_attempts=5)
    calls = {"n": 0}

    async def handler(payload):
        calls["n"] += 1
        if calls["n"] <= payload["fail_times"]:
            raise ConnectionError("reset by peer")
        return "ok"

    clock.advance(1)
    outcomes = await run_pending(store, "q", handler, clock=clock)
    assert [(o.attempt, o.error is None) for o in outcomes] == [(1, False), (2, False), (3, True)]
    assert (await store.get(flaky.id)).state is TaskState.SUCCEEDED


async def test_non_retryable_errors_end_the_task():
    clock = ManualClock()
    store = TaskStore(clock=clock)
    task = await store.enqueue("q", {}, max_attempts=1)

    async def handler(payload):
        raise ValueError("bad payload")

    clock.advance(1)
    outcomes = await run_pending(store, "q", handler, clock=clock)
    assert len(outcomes) == 1 and "ValueError" in outcomes[0].error
    assert (await store.get(task.id)).state is TaskState.DEAD
