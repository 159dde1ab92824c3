"""The PostgreSQL schema and its migrations. Each migration runs once, in order, inside
a transaction; the applied versions are kept in ``taskq_schema``."""

from __future__ import annotations

import logging

log = logging.getLogger("taskq.store.schema")

MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE taskq_tasks (
            id               text PRIMARY KEY,
            queue            text NOT NULL,
            payload          jsonb NOT NULL,
            state            text NOT NULL DEFAULT 'pending',
            attempt          integer NOT NULL DEFAULT 0,
            max_attempts     integer NOT NULL DEFAULT 5,
            run_at           double precision NOT NULL,
            lease_holder     text,
            lease_expires_at double precision,
            last_error       text,
            result           jsonb
        );
        CREATE INDEX taskq_tasks_runnable ON taskq_tasks (queue, run_at) WHERE state = 'pending';
        """,
    ),
    (
        2,
        """
        CREATE INDEX taskq_tasks_leased ON taskq_tasks (lease_expires_at) WHERE state = 'leased';
        ALTER TABLE taskq_tasks ADD CONSTRAINT taskq_tasks_state_check
            CHECK (state IN ('pending', 'leased', 'succeeded', 'failed', 'dead'));
        """,
    ),
    (
        3,
        """
        ALTER TABLE taskq_tasks ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
        ALTER TABLE taskq_tasks ADD COLUMN dedupe_key text;
        CREATE UNIQUE INDEX taskq_tasks_dedupe ON taskq_tasks (queue, dedupe_key)
            WHERE dedupe_key IS NOT NULL AND state IN ('pending', 'leased');
        """,
    ),
]


async def migrate(conn) -> int:
    """Applies the migrations the database does not have yet; returns the new version."""
    await conn.execute("CREATE TABLE IF NOT EXISTS taskq_schema (version integer PRIMARY KEY, applied_at timestamptz DEFAULT now())")
    # one migrator at a time: workers starting together must not race on DDL
    await conn.execute("SELECT pg_advisory_lock(7420)")
    try:
        current = await conn.fetchval("SELECT coalesce(max(version), 0) FROM taskq_schema")
        for version, ddl in MIGRATIONS:
            if version <= current:
                continue
            async with conn.transaction():
                await conn.execute(ddl)
                await conn.execute("INSERT INTO taskq_schema (version) VALUES ($1)", version)
            log.info("applied schema migration %d", version)
            current = version
        return current
    finally:
        await conn.execute("SELECT pg_advisory_unlock(7420)")
