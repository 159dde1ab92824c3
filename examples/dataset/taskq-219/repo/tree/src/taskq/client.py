"""The broker client and a store that talks to a broker.

``RemoteStore`` has the methods of ``TaskStore``, so a ``Worker`` runs unchanged against
a broker on another host. Connection problems surface as ``StoreUnavailable`` (the
worker backs off and retries); broker-side errors come back as the exceptions the store
raised there, e.g. ``LeaseLost``.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
from typing import Any

from . import protocol
from .errors import StoreUnavailable
from .models import Task, TaskState
from .protocol import Op, ProtocolError, Request, Response

log = logging.getLogger("taskq.client")


def task_from_wire(data: dict[str, Any] | None) -> Task | None:
    if data is None:
        return None
    fields = dict(data)
    fields["state"] = TaskState(fields["state"])
    return Task(**fields)


class BrokerClient:
    """One connection to the broker with pipelined requests and automatic reconnects.

    A request that is in flight when the connection breaks fails with StoreUnavailable:
    it may or may not have been applied, and only the caller knows whether it is safe
    to send it again.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        request_timeout: float = 10.0,
        connect_timeout: float = 5.0,
        reconnect_backoff: float = 0.2,
        reconnect_backoff_max: float = 10.0,
        max_frame: int = protocol.DEFAULT_MAX_FRAME,
    ):
        self.host = host
        self.port = port
        self.request_timeout = request_timeout
        self.connect_timeout = connect_timeout
        self.reconnect_backoff = reconnect_backoff
        self.reconnect_backoff_max = reconnect_backoff_max
        self.max_frame = max_frame
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future] = {}
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._read_loop: asyncio.Task | None = None
        self._connect_lock = asyncio.Lock()
        self._failures = 0
        self._next_attempt = 0.0
        self._closed = False
        self.server_version: int | None = None

    @property
    def connected(self) -> bool:
        return self._writer is not None and not self._writer.is_closing()

    async def _ensure_connected(self) -> None:
        if self.connected:
            return
        async with self._connect_lock:
            if self.connected:
                return
            if self._closed:
                raise StoreUnavailable("client is closed")
            loop = asyncio.get_running_loop()
            if loop.time() < self._next_attempt:
                raise StoreUnavailable(f"broker {self.host}:{self.port} unreachable, next attempt in {self._next_attempt - loop.time():.1f}s")
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), self.connect_timeout)
                hello = Request(next(self._ids), Op.HELLO, {"version": protocol.PROTOCOL_VERSION})
                writer.write(protocol.encode(hello.to_dict(), self.max_frame))
                await writer.drain()
                message = await asyncio.wait_for(protocol.read_frame(reader, self.max_frame), self.connect_timeout)
            except (OSError, asyncio.TimeoutError, ProtocolError) as exc:
                self._failures += 1
                delay = min(self.reconnect_backoff_max, self.reconnect_backoff * 2 ** (self._failures - 1))
                self._next_attempt = loop.time() + delay * random.uniform(0.8, 1.2)
                raise StoreUnavailable(f"cannot connect to broker {self.host}:{self.port}: {exc}") from exc
            if message is None:
                raise StoreUnavailable("broker closed the connection during the handshake")
            response = Response.from_dict(message)
            if not response.ok:
                writer.close()
                raise protocol.exception_for(response.error or {})
            self.server_version = int(response.result["version"])
            self._reader, self._writer = reader, writer
            self._failures = 0
            self._read_loop = asyncio.create_task(self._read_responses(reader), name="taskq-client-reader")
            log.info("connected to broker %s:%d (protocol %d)", self.host, self.port, self.server_version)

    async def _read_responses(self, reader: asyncio.StreamReader) -> None:
        reason: Exception = StoreUnavailable("broker closed the connection")
        try:
            while True:
                message = await protocol.read_frame(reader, self.max_frame)
                if message is None:
                    break
                response = Response.from_dict(message)
                future = self._pending.pop(response.id, None)
                if future is None:
                    log.debug("response to unknown or timed-out request %d", response.id)
                elif not future.done():
                    future.set_result(response)
        except (OSError, ProtocolError) as exc:
            reason = StoreUnavailable(f"connection to broker lost: {exc}")
        finally:
            self._drop_connection(reason)

    def _drop_connection(self, reason: Exception) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(reason)

    async def call(self, op: Op, **args: Any) -> Any:
        await self._ensure_connected()
        assert self._writer is not None
        request = Request(next(self._ids), op, args)
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self._pending[request.id] = future
        try:
            self._writer.write(protocol.encode(request.to_dict(), self.max_frame))
            await self._writer.drain()
            response: Response = await asyncio.wait_for(future, self.request_timeout)
        except asyncio.TimeoutError:
            raise StoreUnavailable(f"{op.value} timed out after {self.request_timeout}s") from None
        except OSError as exc:
            self._drop_connection(StoreUnavailable(str(exc)))
            raise StoreUnavailable(f"{op.value} failed: {exc}") from exc
        finally:
            self._pending.pop(request.id, None)
        if not response.ok:
            raise protocol.exception_for(response.error or {})
        return response.result

    async def close(self) -> None:
        self._closed = True
        if self._read_loop is not None:
            self._read_loop.cancel()
        self._drop_connection(StoreUnavailable("client closed"))


class RemoteStore:
    """The TaskStore interface over a BrokerClient."""

    def __init__(self, client: BrokerClient):
        self.client = client

    async def enqueue(self, queue: str, payload: dict[str, Any], max_attempts: int = 5) -> Task:
        task = task_from_wire(await self.client.call(Op.ENQUEUE, queue=queue, payload=payload, max_attempts=max_attempts))
        assert task is not None
        return task

    async def claim(self, queue: str, worker_id: str, lease_ttl: float) -> Task | None:
        return task_from_wire(await self.client.call(Op.CLAIM, queue=queue, worker_id=worker_id, lease_ttl=lease_ttl))

    async def renew(self, task_id: str, worker_id: str, lease_ttl: float) -> None:
        await self.client.call(Op.RENEW, task_id=task_id, worker_id=worker_id, lease_ttl=lease_ttl)

    async def complete(self, task_id: str, worker_id: str, result: Any) -> None:
        await self.client.call(Op.COMPLETE, task_id=task_id, worker_id=worker_id, result=result)

    async def retry(self, task_id: str, worker_id: str, delay: float, error: str) -> None:
        await self.client.call(Op.RETRY, task_id=task_id, worker_id=worker_id, delay=delay, error=error)

    async def fail(self, task_id: str, worker_id: str, error: str, dead: bool) -> None:
        await self.client.call(Op.FAIL, task_id=task_id, worker_id=worker_id, error=error, dead=dead)

    async def get(self, task_id: str) -> Task:
        task = task_from_wire(await self.client.call(Op.GET, task_id=task_id))
        assert task is not None
        return task

    async def counts(self) -> dict[str, int]:
        return await self.client.call(Op.STATS)
