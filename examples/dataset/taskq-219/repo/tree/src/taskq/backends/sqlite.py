"""A SQLite store for development and small single-host deployments.

Same rules as the PostgreSQL store: each transition is a conditional UPDATE on the state
and lease holder, checked through the changed-row count. SQLite serializes writers, so a
claim is a ``BEGIN IMMEDIATE`` transaction instead of ``SKIP LOCKED``. Calls run in a
thread so they do not block the event loop; a busy database raises StoreUnavailable
after ``busy_timeout`` seconds.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
import uuid
from typing import Any, Callable

from ..errors import LeaseLost, StoreUnavailable, TaskNotFound
from ..models import Task, TaskState

SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    id TEXT PRIMARY KEY,
    queue TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    attempt INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 5,
    run_at REAL NOT NULL,
    lease_holder TEXT,
    lease_expires_at REAL NOT NULL DEFAULT 0,
    last_error TEXT,
    result TEXT
);
CREATE INDEX IF NOT EXISTS tasks_runnable ON tasks (queue, state, run_at);
"""

_COLUMNS = "id, queue, payload, state, attempt, max_attempts, run_at, lease_holder, lease_expires_at, last_error, result"


def _task(row: tuple) -> Task:
    (task_id, queue, payload, state, attempt, max_attempts, run_at, holder, expires, error, result) = row
    return Task(id=task_id, queue=queue, payload=json.loads(payload), state=TaskState(state), attempt=attempt,
                max_attempts=max_attempts, run_at=run_at, lease_holder=holder, lease_expires_at=expires,
                last_error=error, result=json.loads(result) if result is not None else None)


class SqliteTaskStore:
    def __init__(self, path: str, *, busy_timeout: float = 5.0, clock: Callable[[], float] = time.time):
        self._conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(SCHEMA)
        self._lock = threading.Lock()
        self._clock = clock

    async def _run(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        def locked() -> Any:
            with self._lock:
                try:
                    return fn(self._conn)
                except sqlite3.OperationalError as exc:
                    if "locked" in str(exc) or "busy" in str(exc):
                        raise StoreUnavailable(f"sqlite: {exc}") from exc
                    raise

        return await asyncio.to_thread(locked)

    async def enqueue(self, queue: str, payload: dict[str, Any], max_attempts: int = 5) -> Task:
        task = Task(id=uuid.uuid4().hex, queue=queue, payload=payload, max_attempts=max_attempts, run_at=self._clock())

        def insert(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO tasks (id, queue, payload, max_attempts, run_at) VALUES (?, ?, ?, ?, ?)",
                         (task.id, queue, json.dumps(payload), max_attempts, task.run_at))

        await self._run(insert)
        return task

    async def claim(self, queue: str, worker_id: str, lease_ttl: float) -> Task | None:
        now = self._clock()

        def claim_one(conn: sqlite3.Connection) -> Task | None:
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute(
                    "SELECT id FROM tasks WHERE queue = ? AND state = 'pending' AND run_at <= ? ORDER BY run_at LIMIT 1",
                    (queue, now)).fetchone()
                if row is None:
                    conn.execute("COMMIT")
                    return None
                conn.execute("UPDATE tasks SET state = 'leased', lease_holder = ?, lease_expires_at = ?, attempt = attempt + 1 "
                             "WHERE id = ?", (worker_id, now + lease_ttl, row[0]))
                claimed = conn.execute(f"SELECT {_COLUMNS} FROM tasks WHERE id = ?", (row[0],)).fetchone()
                conn.execute("COMMIT")
                return _task(claimed)
            except BaseException:
                conn.execute("ROLLBACK")
                raise

        return await self._run(claim_one)

    async def _transition(self, task_id: str, sql: str, params: tuple) -> None:
        def update(conn: sqlite3.Connection) -> tuple[int, tuple | None]:
            changed = conn.execute(sql, params).rowcount
            holder = None if changed else conn.execute("SELECT state, lease_holder FROM tasks WHERE id = ?", (task_id,)).fetchone()
            return changed, holder

        changed, row = await self._run(update)
        if changed:
            return
        if row is None:
            raise TaskNotFound(task_id)
        raise LeaseLost(task_id, row[1] if row[0] == TaskState.LEASED.value else None)

    async def renew(self, task_id: str, worker_id: str, lease_ttl: float) -> None:
        now = self._clock()
        await self._transition(task_id, "UPDATE tasks SET lease_expires_at = ? WHERE id = ? AND state = 'leased' "
                               "AND lease_holder = ? AND lease_expires_at > ?", (now + lease_ttl, task_id, worker_id, now))

    async def complete(self, task_id: str, worker_id: str, result: Any) -> None:
        await self._transition(task_id, "UPDATE tasks SET state = 'succeeded', result = ?, lease_holder = NULL "
                               "WHERE id = ? AND state = 'leased' AND lease_holder = ?", (json.dumps(result), task_id, worker_id))

    async def retry(self, task_id: str, worker_id: str, delay: float, error: str) -> None:
        await self._transition(task_id, "UPDATE tasks SET state = 'pending', run_at = ?, last_error = ?, lease_holder = NULL "
                               "WHERE id = ? AND state = 'leased' AND lease_holder = ?",
                               (self._clock() + delay, error, task_id, worker_id))

    async def fail(self, task_id: str, worker_id: str, error: str, dead: bool) -> None:
        state = TaskState.DEAD if dead else TaskState.FAILED
        await self._transition(task_id, "UPDATE tasks SET state = ?, last_error = ?, lease_holder = NULL "
                               "WHERE id = ? AND state = 'leased' AND lease_holder = ?", (state.value, error, task_id, worker_id))

    async def reap_expired(self) -> list[Task]:
        now = self._clock()

        def reap(conn: sqlite3.Connection) -> list[Task]:
            conn.execute("BEGIN IMMEDIATE")
            try:
                rows = conn.execute(f"SELECT {_COLUMNS} FROM tasks WHERE state = 'leased' AND lease_expires_at <= ?", (now,)).fetchall()
                conn.execute("UPDATE tasks SET state = 'pending', lease_holder = NULL, run_at = ? "
                             "WHERE state = 'leased' AND lease_expires_at <= ?", (now, now))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            reaped = [_task(r) for r in rows]
            for task in reaped:
                task.state, task.lease_holder, task.run_at = TaskState.PENDING, None, now
            return reaped

        return await self._run(reap)

    async def get(self, task_id: str) -> Task:
        row = await self._run(lambda conn: conn.execute(f"SELECT {_COLUMNS} FROM tasks WHERE id = ?", (task_id,)).fetchone())
        if row is None:
            raise TaskNotFound(task_id)
        return _task(row)

    async def counts(self) -> dict[str, int]:
        rows = await self._run(lambda conn: conn.execute("SELECT queue || ':' || state, count(*) FROM tasks GROUP BY 1").fetchall())
        return {key: n for key, n in rows}

    async def close(self) -> None:
        await self._run(lambda conn: conn.close())
