"""Durability for single-node deployments: the in-process store with a journal.

Every state change appends the task's full state as one line, ``<crc32 hex> <json>``.
Opening the store replays the journal (the last line of a task wins), so a restart
loses nothing that was acknowledged. A line torn by a crash (short, or a checksum that
does not match) ends the replay; every line after it is ignored, because it may
describe a state that depends on the torn one.
"""

from __future__ import annotations

import json
import logging
import os
import zlib
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .models import Task, TaskState
from .store import TaskStore

log = logging.getLogger("taskq.journal")

FINISHED = (TaskState.SUCCEEDED, TaskState.FAILED, TaskState.DEAD)


def encode_line(task: Task) -> bytes:
    data = asdict(task)
    data["state"] = task.state.value
    body = json.dumps(data, separators=(",", ":"), sort_keys=True, default=str).encode("utf-8")
    return b"%08x " % zlib.crc32(body) + body + b"\n"


def decode_line(line: bytes) -> Task | None:
    """The task on a journal line, or None if the line is torn or corrupt."""
    if not line.endswith(b"\n") or len(line) < 10 or line[8:9] != b" ":
        return None
    body = line[9:-1]
    try:
        if int(line[:8], 16) != zlib.crc32(body):
            return None
        data = json.loads(body)
    except ValueError:
        return None
    data["state"] = TaskState(data["state"])
    return Task(**data)


class JournaledStore(TaskStore):
    def __init__(self, path: str | Path, *, fsync: bool = True, compact_after: int = 100_000, **kwargs: Any):
        super().__init__(**kwargs)
        self.path = Path(path)
        self.fsync = fsync
        self.compact_after = compact_after
        self._fh = None
        self._lines = 0

    @classmethod
    async def open(cls, path: str | Path, **kwargs: Any) -> "JournaledStore":
        store = cls(path, **kwargs)
        store._replay()
        store._fh = open(store.path, "ab")
        return store

    def _replay(self) -> None:
        if not self.path.exists():
            return
        valid_bytes = 0
        with open(self.path, "rb") as fh:
            for line in fh:
                task = decode_line(line)
                if task is None:
                    log.warning("journal %s: torn or corrupt record at byte %d; ignoring the rest", self.path, valid_bytes)
                    break
                self._tasks[task.id] = task
                valid_bytes += len(line)
                self._lines += 1
        if valid_bytes < self.path.stat().st_size:
            os.truncate(self.path, valid_bytes)
        log.info("journal %s: replayed %d records, %d tasks", self.path, self._lines, len(self._tasks))

    def _append(self, task: Task) -> None:
        assert self._fh is not None, "JournaledStore must be created with open()"
        self._fh.write(encode_line(task))
        self._fh.flush()
        if self.fsync:
            os.fsync(self._fh.fileno())
        self._lines += 1
        if self._lines > self.compact_after and self._lines > 4 * len(self._tasks):
            self.compact()

    def compact(self) -> None:
        """Rewrites the journal with one line per task, dropping finished ones."""
        tmp = self.path.with_suffix(self.path.suffix + ".compact")
        live = [t for t in self._tasks.values() if t.state not in FINISHED]
        with open(tmp, "wb") as fh:
            for task in live:
                fh.write(encode_line(task))
            fh.flush()
            os.fsync(fh.fileno())
        if self._fh is not None:
            self._fh.close()
        os.replace(tmp, self.path)
        self._fh = open(self.path, "ab")
        for task in [t for t in self._tasks.values() if t.state in FINISHED]:
            del self._tasks[task.id]
        log.info("journal %s compacted from %d to %d records", self.path, self._lines, len(live))
        self._lines = len(live)

    async def enqueue(self, queue: str, payload: dict[str, Any], max_attempts: int = 5) -> Task:
        task = await super().enqueue(queue, payload, max_attempts)
        self._append(task)
        return task

    async def claim(self, queue: str, worker_id: str, lease_ttl: float) -> Task | None:
        task = await super().claim(queue, worker_id, lease_ttl)
        if task is not None:
            self._append(task)
        return task

    async def renew(self, task_id: str, worker_id: str, lease_ttl: float) -> None:
        await super().renew(task_id, worker_id, lease_ttl)
        self._append(self._get(task_id))

    async def complete(self, task_id: str, worker_id: str, result: Any) -> None:
        await super().complete(task_id, worker_id, result)
        self._append(self._get(task_id))

    async def retry(self, task_id: str, worker_id: str, delay: float, error: str) -> None:
        await super().retry(task_id, worker_id, delay, error)
        self._append(self._get(task_id))

    async def fail(self, task_id: str, worker_id: str, error: str, dead: bool) -> None:
        await super().fail(task_id, worker_id, error, dead)
        self._append(self._get(task_id))

    async def reap_expired(self) -> list[Task]:
        reaped = await super().reap_expired()
        for task in reaped:
            self._append(task)
        return reaped

    async def counts(self) -> dict[str, int]:
        async with self._lock:
            out: dict[str, int] = {}
            for task in self._tasks.values():
                key = f"{task.queue}:{task.state.value}"
                out[key] = out.get(key, 0) + 1
            return out

    async def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
