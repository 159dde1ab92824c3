from taskq.journal import JournaledStore, decode_line, encode_line
from taskq.models import TaskState


async def test_replay_restores_the_last_state_of_every_task(tmp_path):
    path = tmp_path / "tasks.journal"
    store = await JournaledStore.open(path, fsync=False)
    done = await store.enqueue("q", {"n": 1})
    waiting = await store.enqueue("q", {"n": 2})
    await store.claim("q", "w1", lease_ttl=30)
    await store.complete(done.id, "w1", "ok")
    await store.close()

    reopened = await JournaledStore.open(path, fsync=False)
    assert (await reopened.get(done.id)).state is TaskState.SUCCEEDED
    assert (await reopened.get(done.id)).result == "ok"
    assert (await reopened.get(waiting.id)).state is TaskState.PENDING


async def test_a_torn_record_ends_the_replay(tmp_path):
    path = tmp_path / "tasks.journal"
    store = await JournaledStore.open(path, fsync=False)
    first = await store.enqueue("q", {"n": 1})
    await store.enqueue("q", {"n": 2})
    await store.close()
    data = path.read_bytes()
    path.write_bytes(data[:-7])

    reopened = await JournaledStore.open(path, fsync=False)
    assert list(reopened._tasks) == [first.id]
    assert path.read_bytes() == data[: data.index(b"\n") + 1]


async def test_compaction_keeps_only_unfinished_tasks(tmp_path):
    store = await JournaledStore.open(tmp_path / "j", fsync=False)
    for n in range(3):
        await store.enqueue("q", {"n": n})
    task = await store.claim("q", "w1", lease_ttl=30)
    await store.complete(task.id, "w1", None)
    store.compact()
    await store.close()
    lines = (tmp_path / "j").read_bytes().splitlines(keepends=True)
    assert len(lines) == 2
    assert all(decode_line(line).state is TaskState.PENDING for line in lines)


def test_checksums_catch_corruption():
    from taskq.models import Task

    line = encode_line(Task(id="t1", queue="q", payload={"a": 1}))
    assert decode_line(line).id == "t1"
    assert decode_line(line.replace(b'"a":1', b'"a":2')) is None
    assert decode_line(line[:-1]) is None
