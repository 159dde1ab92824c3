"""The broker: serves a task store to remote workers over the broker protocol.

One asyncio task per connection reads requests and answers them in the order they
complete. Each store call runs under a timeout: a store that hangs must not leave the
client waiting forever, because the client's lease heartbeat depends on an answer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import asdict
from typing import Any, Awaitable, Callable

from . import protocol
from .errors import StoreUnavailable
from .metrics import Registry
from .models import Task
from .protocol import Op, ProtocolError, Request, Response
from .store import TaskStore

log = logging.getLogger("taskq.server")


def task_to_wire(task: Task | None) -> dict[str, Any] | None:
    if task is None:
        return None
    data = asdict(task)
    data["state"] = task.state.value
    return data


class BrokerServer:
    def __init__(
        self,
        store: TaskStore,
        host: str = "127.0.0.1",
        port: int = 7420,
        *,
        max_connections: int = 1024,
        idle_timeout: float = 300.0,
        store_timeout: float = 10.0,
        max_frame: int = protocol.DEFAULT_MAX_FRAME,
        registry: Registry | None = None,
    ):
        self.store = store
        self.host = host
        self.port = port
        self.max_connections = max_connections
        self.idle_timeout = idle_timeout
        self.store_timeout = store_timeout
        self.max_frame = max_frame
        self._server: asyncio.AbstractServer | None = None
        self._connections: set[asyncio.Task] = set()
        registry = registry or Registry()
        self._requests = registry.counter("taskq_broker_requests_total", "Requests handled", ("op", "outcome"))
        self._latency = registry.histogram("taskq_broker_request_seconds", "Request latency", ("op",))
        self._open = registry.gauge("taskq_broker_connections", "Open client connections")
        self._handlers: dict[Op, Callable[[dict[str, Any]], Awaitable[Any]]] = {
            Op.ENQUEUE: self._enqueue,
            Op.CLAIM: self._claim,
            Op.RENEW: self._renew,
            Op.COMPLETE: self._complete,
            Op.RETRY: self._retry,
            Op.FAIL: self._fail,
            Op.GET: self._get,
            Op.STATS: self._stats,
        }

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        sockets = self._server.sockets or []
        if sockets:
            self.port = sockets[0].getsockname()[1]
        log.info("broker listening on %s:%d", self.host, self.port)

    async def stop(self, grace: float = 5.0) -> None:
        """Stops accepting, then gives open connections `grace` seconds to finish."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self._connections:
            done, pending = await asyncio.wait(self._connections, timeout=grace)
            for conn in pending:
                conn.cancel()
            log.info("broker stopped (%d connections drained, %d cut)", len(done), len(pending))

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        if len(self._connections) >= self.max_connections:
            log.warning("refusing connection from %s: %d connections open", peer, len(self._connections))
            writer.close()
            return
        current = asyncio.current_task()
        assert current is not None
        self._connections.add(current)
        self._open.inc()
        write_lock = asyncio.Lock()
        in_flight: set[asyncio.Task] = set()
        try:
            if not await self._handshake(reader, writer):
                return
            while True:
                try:
                    message = await asyncio.wait_for(protocol.read_frame(reader, self.max_frame), self.idle_timeout)
                except asyncio.TimeoutError:
                    log.info("closing idle connection from %s", peer)
                    return
                if message is None:
                    return
                request = Request.from_dict(message)
                handling = asyncio.create_task(self._answer(request, writer, write_lock))
                in_flight.add(handling)
                handling.add_done_callback(in_flight.discard)
        except ProtocolError as exc:
            log.warning("protocol error from %s: %s", peer, exc)
        except ConnectionError as exc:
            log.debug("connection from %s lost: %s", peer, exc)
        finally:
            for handling in in_flight:
                handling.cancel()
            self._connections.discard(current)
            self._open.dec()
            writer.close()

    async def _handshake(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        message = await protocol.read_frame(reader, self.max_frame)
        if message is None:
            return False
        request = Request.from_dict(message)
        if request.op is not Op.HELLO:
            raise ProtocolError(f"expected hello, got {request.op.value}")
        try:
            version = protocol.negotiate(int(request.args.get("version", 0)))
        except ProtocolError as exc:
            error = {"code": protocol.ErrorCode.UNSUPPORTED_VERSION.value, "message": str(exc)}
            writer.write(protocol.encode(Response(request.id, error=error).to_dict()))
            await writer.drain()
            return False
        hello = {"version": version, "server": "taskq", "max_frame": self.max_frame}
        writer.write(protocol.encode(Response(request.id, result=hello).to_dict()))
        await writer.drain()
        return True

    async def _answer(self, request: Request, writer: asyncio.StreamWriter, write_lock: asyncio.Lock) -> None:
        started = time.perf_counter()
        outcome = "ok"
        try:
            if request.op is Op.PING:
                response = Response(request.id, result="pong")
            else:
                handler = self._handlers.get(request.op)
                if handler is None:
                    raise ProtocolError(f"operation {request.op.value} is not allowed after the handshake")
                result = await asyncio.wait_for(handler(request.args), self.store_timeout)
                response = Response(request.id, result=result)
        except asyncio.TimeoutError:
            outcome = "timeout"
            response = Response.failure(request.id, StoreUnavailable(f"store did not answer {request.op.value} in {self.store_timeout}s"))
        except Exception as exc:  # noqa: BLE001 - every failure is reported to the client
            outcome = type(exc).__name__
            response = Response.failure(request.id, exc)
        self._requests.inc(op=request.op.value, outcome=outcome)
        self._latency.observe(time.perf_counter() - started, op=request.op.value)
        async with write_lock:
            writer.write(protocol.encode(response.to_dict(), self.max_frame))
            await writer.drain()

    async def _enqueue(self, args: dict[str, Any]) -> Any:
        task = await self.store.enqueue(args["queue"], args["payload"], int(args.get("max_attempts", 5)))
        return task_to_wire(task)

    async def _claim(self, args: dict[str, Any]) -> Any:
        task = await self.store.claim(args["queue"], args["worker_id"], float(args["lease_ttl"]))
        return task_to_wire(task)

    async def _renew(self, args: dict[str, Any]) -> Any:
        await self.store.renew(args["task_id"], args["worker_id"], float(args["lease_ttl"]))

    async def _complete(self, args: dict[str, Any]) -> Any:
        await self.store.complete(args["task_id"], args["worker_id"], args.get("result"))

    async def _retry(self, args: dict[str, Any]) -> Any:
        await self.store.retry(args["task_id"], args["worker_id"], float(args["delay"]), args["error"])

    async def _fail(self, args: dict[str, Any]) -> Any:
        await self.store.fail(args["task_id"], args["worker_id"], args["error"], bool(args["dead"]))

    async def _get(self, args: dict[str, Any]) -> Any:
        return task_to_wire(await self.store.get(args["task_id"]))

    async def _stats(self, args: dict[str, Any]) -> Any:
        counts = getattr(self.store, "counts", None)
        if counts is None:
            return {}
        return await counts()
