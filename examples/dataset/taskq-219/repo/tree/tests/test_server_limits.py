import asyncio

from taskq import TaskStore, protocol
from taskq.metrics import Registry
from taskq.protocol import Op, Request, Response
from taskq.server import BrokerServer


async def exchange(port: int, *messages: dict) -> list:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    replies = []
    for message in messages:
        writer.write(protocol.encode(message))
        await writer.drain()
        replies.append(await protocol.read_frame(reader))
    writer.close()
    return replies


async def test_requests_before_hello_close_the_connection():
    server = BrokerServer(TaskStore(), "127.0.0.1", 0)
    await server.start()
    try:
        (reply,) = await exchange(server.port, Request(1, Op.CLAIM, {"queue": "q"}).to_dict())
        assert reply is None
    finally:
        await server.stop()


async def test_old_clients_are_refused_and_requests_counted():
    registry = Registry()
    server = BrokerServer(TaskStore(), "127.0.0.1", 0, registry=registry)
    await server.start()
    try:
        (refused,) = await exchange(server.port, Request(1, Op.HELLO, {"version": 0}).to_dict())
        assert Response.from_dict(refused).error["code"] == "unsupported_version"
        hello, pong, bad = await exchange(
            server.port,
            Request(1, Op.HELLO, {"version": protocol.PROTOCOL_VERSION}).to_dict(),
            Request(2, Op.PING).to_dict(),
            Request(3, Op.RENEW, {"task_id": "t1"}).to_dict(),
        )
        assert Response.from_dict(hello).result["version"] == protocol.PROTOCOL_VERSION
        assert Response.from_dict(pong).result == "pong"
        assert Response.from_dict(bad).error["code"] == "bad_request"
        requests = registry.counter("taskq_broker_requests_total", "", ("op", "outcome"))
        assert requests.value(op="renew", outcome="KeyError") == 1
    finally:
        await server.stop()
