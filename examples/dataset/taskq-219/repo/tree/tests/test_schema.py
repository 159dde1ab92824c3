from contextlib import asynccontextmanager

from taskq.backends.schema import MIGRATIONS, migrate


class FakeConnection:
    """Records statements; knows only what migrate() asks."""

    def __init__(self, version: int):
        self.version = version
        self.statements: list[str] = []

    async def execute(self, sql: str, *args) -> str:
        self.statements.append(" ".join(sql.split()))
        if sql.startswith("INSERT INTO taskq_schema"):
            self.version = args[0]
        return "OK"

    async def fetchval(self, sql: str):
        return self.version

    @asynccontextmanager
    async def transaction(self):
        yield


async def test_only_missing_migrations_run_in_order():
    conn = FakeConnection(version=1)
    assert await migrate(conn) == MIGRATIONS[-1][0]
    applied = [s for s in conn.statements if s.startswith("INSERT INTO taskq_schema")]
    assert len(applied) == len(MIGRATIONS) - 1
    assert conn.statements[1] == "SELECT pg_advisory_lock(7420)"
    assert conn.statements[-1] == "SELECT pg_advisory_unlock(7420)"


async def test_an_up_to_date_database_is_left_alone():
    conn = FakeConnection(version=MIGRATIONS[-1][0])
    await migrate(conn)
    assert not any(s.startswith(("CREATE INDEX", "ALTER TABLE", "INSERT")) for s in conn.statements)
