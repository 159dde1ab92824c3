import time

import pytest

from taskq import TaskStore
from taskq.chains import ChainRunner, chain
from taskq.registry import HandlerRegistry, UnknownTask


def make_registry() -> HandlerRegistry:
    registry = HandlerRegistry()

    @registry.task("render", queue="invoices")
    async def render(customer_id: int, previous=None) -> str:
        return f"invoice-{customer_id}"

    @registry.task("send", queue="invoices")
    async def send(previous: str) -> str:
        return f"sent {previous}"

    return registry


async def test_dispatch_runs_the_named_handler():
    registry = make_registry()
    assert registry.queues() == {"invoices"}
    assert await registry.dispatch(registry.payload("render", customer_id=40417)) == "invoice-40417"
    with pytest.raises(UnknownTask):
        await registry.dispatch({"task": "refund", "args": {}})

    async def render_again(customer_id: int) -> str:
        return ""

    with pytest.raises(ValueError):
        registry.task("render")(render_again)


def test_handlers_must_be_async():
    with pytest.raises(TypeError):
        HandlerRegistry().task("sync")(lambda: 1)


async def test_a_chain_enqueues_its_next_step_with_the_result():
    store = TaskStore(clock=lambda: time.time() + 1)
    runner = ChainRunner(store, make_registry())
    payload = chain(("render", {"customer_id": 7}), ("send", {}), queue="chains")
    assert await runner(payload) == "invoice-7"
    follow_up = await store.claim("chains", "w1", lease_ttl=30)
    assert follow_up.payload["position"] == 1 and follow_up.payload["previous"] == "invoice-7"
    assert await runner(follow_up.payload) == "sent invoice-7"
    assert await store.claim("chains", "w1", lease_ttl=30) is None
