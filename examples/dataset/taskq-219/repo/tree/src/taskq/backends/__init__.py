"""Task store backends other than the in-process ``TaskStore``.

``open_store`` picks one by the DSN scheme: ``memory://`` (optionally journaled),
``sqlite:///path/to/db``, ``postgresql://`` and ``taskq://host:port`` (a remote broker).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse


async def open_store(dsn: str, *, statement_timeout: float = 5.0, pool_min: int = 2, pool_max: int = 10,
                     journal_path: str | None = None, request_timeout: float = 10.0) -> Any:
    scheme = urlparse(dsn).scheme
    if scheme == "memory":
        from ..store import TaskStore

        if journal_path is None:
            return TaskStore()
        from ..journal import JournaledStore

        return await JournaledStore.open(journal_path)
    if scheme == "sqlite":
        from .sqlite import SqliteTaskStore

        return SqliteTaskStore(urlparse(dsn).path or ":memory:", busy_timeout=statement_timeout)
    if scheme in ("postgresql", "postgres"):
        from .postgres import PostgresTaskStore

        return await PostgresTaskStore.connect(dsn, statement_timeout=statement_timeout, min_size=pool_min, max_size=pool_max)
    if scheme == "taskq":
        from ..client import BrokerClient, RemoteStore

        parsed = urlparse(dsn)
        return RemoteStore(BrokerClient(parsed.hostname or "127.0.0.1", parsed.port or 7420, request_timeout=request_timeout))
    raise ValueError(f"unsupported store DSN scheme {scheme!r}")
