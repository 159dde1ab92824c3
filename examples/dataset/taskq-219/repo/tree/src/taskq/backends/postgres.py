"""The PostgreSQL store (asyncpg).

Every transition is one conditional UPDATE: it applies only if the task is in the state
and held by the worker the caller believes, and ``RETURNING`` tells whether it did. So
two workers can never both complete a task, whatever the timing; a worker that lost
the lease learns it from the next statement it runs.

Connection problems and statement timeouts raise ``StoreUnavailable``: the caller
cannot know whether the statement was applied, and retries later.
"""

from __future__ import annotations

import json
import logging
import uuid
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import asyncpg

from ..errors import LeaseLost, StoreUnavailable, TaskNotFound
from ..models import Task, TaskState
from .schema import migrate

log = logging.getLogger("taskq.store.postgres")

_UNAVAILABLE = (
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.QueryCanceledError,
    asyncpg.CannotConnectNowError,
    OSError,
    TimeoutError,
)

_COLUMNS = "id, queue, payload, state, attempt, max_attempts, run_at, lease_holder, lease_expires_at, last_error, result"

_CLAIM = f"""
WITH next AS (
    SELECT id FROM taskq_tasks
    WHERE queue = $1 AND state = 'pending' AND run_at <= extract(epoch FROM now())
    ORDER BY run_at
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
UPDATE taskq_tasks t
SET state = 'leased', lease_holder = $2, lease_expires_at = extract(epoch FROM now()) + $3, attempt = t.attempt + 1
FROM next WHERE t.id = next.id
RETURNING {", ".join("t." + c.strip() for c in _COLUMNS.split(","))}
"""

_RENEW = """
UPDATE taskq_tasks SET lease_expires_at = extract(epoch FROM now()) + $3
WHERE id = $1 AND state = 'leased' AND lease_holder = $2 AND lease_expires_at > extract(epoch FROM now())
RETURNING id
"""

_FINISH = """
UPDATE taskq_tasks SET state = $3, result = $4, last_error = $5, lease_holder = NULL
WHERE id = $1 AND state = 'leased' AND lease_holder = $2
RETURNING id
"""

_RETRY = """
UPDATE taskq_tasks SET state = 'pending', run_at = extract(epoch FROM now()) + $3, last_error = $4, lease_holder = NULL
WHERE id = $1 AND state = 'leased' AND lease_holder = $2
RETURNING id
"""

_REAP = f"""
UPDATE taskq_tasks SET state = 'pending', lease_holder = NULL, run_at = extract(epoch FROM now())
WHERE state = 'leased' AND lease_expires_at <= extract(epoch FROM now())
RETURNING {_COLUMNS}
"""


def _task(row: asyncpg.Record) -> Task:
    return Task(
        id=row["id"],
        queue=row["queue"],
        payload=json.loads(row["payload"]),
        state=TaskState(row["state"]),
        attempt=row["attempt"],
        max_attempts=row["max_attempts"],
        run_at=row["run_at"],
        lease_holder=row["lease_holder"],
        lease_expires_at=row["lease_expires_at"] or 0.0,
        last_error=row["last_error"],
        result=json.loads(row["result"]) if row["result"] is not None else None,
    )


class PostgresTaskStore:
    def __init__(self, pool: asyncpg.Pool, statement_timeout: float):
        self._pool = pool
        self._timeout = statement_timeout

    @classmethod
    async def connect(cls, dsn: str, *, statement_timeout: float = 5.0, min_size: int = 2, max_size: int = 10) -> "PostgresTaskStore":
        try:
            pool = await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size, command_timeout=statement_timeout)
        except _UNAVAILABLE as exc:
            raise StoreUnavailable(f"cannot connect to {dsn.split('@')[-1]}: {exc}") from exc
        async with pool.acquire() as conn:
            await migrate(conn)
        return cls(pool, statement_timeout)

    async def close(self) -> None:
        await self._pool.close()

    @asynccontextmanager
    async def _conn(self) -> AsyncIterator[asyncpg.Connection]:
        try:
            async with self._pool.acquire(timeout=self._timeout) as conn:
                yield conn
        except _UNAVAILABLE as exc:
            raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc

    async def enqueue(self, queue: str, payload: dict[str, Any], max_attempts: int = 5) -> Task:
        async with self._conn() as conn:
            row = await conn.fetchrow(
                f"INSERT INTO taskq_tasks (id, queue, payload, max_attempts, run_at) "
                f"VALUES ($1, $2, $3, $4, extract(epoch FROM now())) RETURNING {_COLUMNS}",
                uuid.uuid4().hex, queue, json.dumps(payload), max_attempts,
            )
        return _task(row)

    async def claim(self, queue: str, worker_id: str, lease_ttl: float) -> Task | None:
        async with self._conn() as conn:
            row = await conn.fetchrow(_CLAIM, queue, worker_id, lease_ttl)
        return _task(row) if row is not None else None

    async def renew(self, task_id: str, worker_id: str, lease_ttl: float) -> None:
        async with self._conn() as conn:
            if await conn.fetchval(_RENEW, task_id, worker_id, lease_ttl) is None:
                raise LeaseLost(task_id, await self._holder(conn, task_id))

    async def complete(self, task_id: str, worker_id: str, result: Any) -> None:
        await self._finish(task_id, worker_id, TaskState.SUCCEEDED, json.dumps(result), None)

    async def fail(self, task_id: str, worker_id: str, error: str, dead: bool) -> None:
        await self._finish(task_id, worker_id, TaskState.DEAD if dead else TaskState.FAILED, None, error)

    async def _finish(self, task_id: str, worker_id: str, state: TaskState, result: str | None, error: str | None) -> None:
        async with self._conn() as conn:
            if await conn.fetchval(_FINISH, task_id, worker_id, state.value, result, error) is None:
                raise LeaseLost(task_id, await self._holder(conn, task_id))

    async def retry(self, task_id: str, worker_id: str, delay: float, error: str) -> None:
        async with self._conn() as conn:
            if await conn.fetchval(_RETRY, task_id, worker_id, delay, error) is None:
                raise LeaseLost(task_id, await self._holder(conn, task_id))

    async def reap_expired(self) -> list[Task]:
        async with self._conn() as conn:
            rows = await conn.fetch(_REAP)
        return [_task(r) for r in rows]

    async def get(self, task_id: str) -> Task:
        async with self._conn() as conn:
            row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM taskq_tasks WHERE id = $1", task_id)
        if row is None:
            raise TaskNotFound(task_id)
        return _task(row)

    async def counts(self) -> dict[str, int]:
        async with self._conn() as conn:
            rows = await conn.fetch("SELECT queue || ':' || state AS k, count(*) AS n FROM taskq_tasks GROUP BY 1")
        return {r["k"]: r["n"] for r in rows}

    async def requeue_dead(self, queue: str) -> int:
        """Gives dead tasks of a queue a fresh set of attempts; returns how many."""
        async with self._conn() as conn:
            status = await conn.execute(
                "UPDATE taskq_tasks SET state = 'pending', attempt = 0, run_at = extract(epoch FROM now()) "
                "WHERE queue = $1 AND state = 'dead'", queue,
            )
        return int(status.split()[-1])

    @staticmethod
    async def _holder(conn: asyncpg.Connection, task_id: str) -> str | None:
        row = await conn.fetchrow("SELECT state, lease_holder FROM taskq_tasks WHERE id = $1", task_id)
        if row is None:
            raise TaskNotFound(task_id)
        return row["lease_holder"] if row["state"] == TaskState.LEASED.value else None
