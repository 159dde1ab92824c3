import asyncio
import time

import pytest

from taskq import LeaseLost, StoreUnavailable, TaskStore
from taskq.client import BrokerClient, RemoteStore
from taskq.models import TaskState
from taskq.server import BrokerServer


@pytest.fixture
async def broker():
    skew = [0.0]  # tasks get run_at from the wall clock, so the test clock only moves ahead of it
    store = TaskStore(clock=lambda: time.time() + skew[0])
    server = BrokerServer(store, "127.0.0.1", 0, store_timeout=1.0)
    await server.start()
    client = BrokerClient("127.0.0.1", server.port, request_timeout=2.0)
    yield RemoteStore(client), store, skew, server
    await client.close()
    await server.stop(grace=1.0)


async def test_a_worker_cycle_over_the_broker(broker):
    remote, store, _, _ = broker
    task = await remote.enqueue("invoices", {"customer": 40417})
    claimed = await remote.claim("invoices", "w1", lease_ttl=30)
    assert claimed.id == task.id and claimed.attempt == 1
    await remote.renew(task.id, "w1", lease_ttl=30)
    await remote.complete(task.id, "w1", {"invoice": "INV-1"})
    done = await remote.get(task.id)
    assert done.state is TaskState.SUCCEEDED
    assert done.result == {"invoice": "INV-1"}
    assert (await store.get(task.id)).state is TaskState.SUCCEEDED


async def test_lease_lost_on_the_broker_is_lease_lost_on_the_client(broker):
    remote, store, skew, _ = broker
    task = await remote.enqueue("q", {"n": 1})
    await remote.claim("q", "w1", lease_ttl=10)
    skew[0] += 11
    await store.reap_expired()
    await remote.claim("q", "w2", lease_ttl=10)
    with pytest.raises(LeaseLost) as lost:
        await remote.renew(task.id, "w1", lease_ttl=10)
    assert lost.value.holder == "w2"


async def test_a_store_that_hangs_is_unavailable_not_stuck(broker):
    remote, store, _, _ = broker
    release = asyncio.Event()

    async def hang(*args, **kwargs):
        await release.wait()

    store.renew = hang
    with pytest.raises(StoreUnavailable):
        await remote.renew("t1", "w1", lease_ttl=10)
    release.set()


async def test_unreachable_broker_is_unavailable():
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    client = BrokerClient("127.0.0.1", port, connect_timeout=0.5)
    with pytest.raises(StoreUnavailable):
        await RemoteStore(client).claim("q", "w1", lease_ttl=10)
    await client.close()
