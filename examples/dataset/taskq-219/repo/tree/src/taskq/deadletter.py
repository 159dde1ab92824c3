"""Exporting dead tasks for inspection and re-importing them once the cause is fixed.

The export is JSON lines, one task per line with its payload, attempts and last error;
importing enqueues each payload as a new task (new id, fresh attempts), so the export
file can be edited in between, e.g. to drop tasks that must not run again.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterator

from .admin import StoreAdmin
from .models import TaskState


async def export_dead(admin: StoreAdmin, queue: str, path: str | Path, *, page_size: int = 500) -> int:
    count = 0
    cursor = None
    with open(path, "w", encoding="utf-8") as out:
        while True:
            page = await admin.list(queue, [TaskState.DEAD], limit=page_size, cursor=cursor)
            for task in page.tasks:
                record = asdict(task)
                record["state"] = task.state.value
                out.write(json.dumps(record, sort_keys=True, default=str) + "\n")
                count += 1
            if page.next_cursor is None:
                return count
            cursor = page.next_cursor


def read_export(path: str | Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not JSON ({exc})") from None
            if not isinstance(record.get("payload"), dict) or not record.get("queue"):
                raise ValueError(f"{path}:{number}: a record needs a queue and a payload object")
            yield record


async def import_tasks(store: Any, path: str | Path, *, queue: str | None = None, max_attempts: int | None = None) -> list[str]:
    """Enqueues every exported payload; returns the new task ids in file order."""
    records = list(read_export(path))  # validate the whole file before enqueuing anything
    ids = []
    for record in records:
        task = await store.enqueue(queue or record["queue"], record["payload"], max_attempts or int(record.get("max_attempts", 5)))
        ids.append(task.id)
    return ids
