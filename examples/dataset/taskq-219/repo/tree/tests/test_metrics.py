import asyncio

import pytest

from taskq.metrics import Registry, serve_metrics


def test_exposition_format():
    registry = Registry()
    runs = registry.counter("taskq_task_runs_total", "Handler runs", ("queue", "outcome"))
    runs.inc(queue="invoices", outcome="success")
    runs.inc(2, queue="invoices", outcome="LeaseLost")
    latency = registry.histogram("taskq_claim_seconds", "Claim latency", buckets=(0.1, 1.0))
    for value in (0.05, 0.5, 3.0):
        latency.observe(value)
    text = registry.exposition()
    assert 'taskq_task_runs_total{queue="invoices",outcome="LeaseLost"} 2' in text
    assert 'taskq_claim_seconds_bucket{le="0.1"} 1' in text
    assert 'taskq_claim_seconds_bucket{le="1"} 2' in text
    assert 'taskq_claim_seconds_bucket{le="+Inf"} 3' in text
    assert "taskq_claim_seconds_count 3" in text
    assert "# TYPE taskq_claim_seconds histogram" in text


def test_labels_and_names_are_checked():
    registry = Registry()
    counter = registry.counter("requests_total", "Requests", ("op",))
    with pytest.raises(ValueError):
        counter.inc(queue="q")
    with pytest.raises(ValueError):
        counter.inc(-1, op="claim")
    assert registry.counter("requests_total", "Requests", ("op",)) is counter
    with pytest.raises(ValueError):
        registry.gauge("requests_total", "Requests")


async def http_get(port: int, path: str) -> tuple[str, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
    await writer.drain()
    response = (await reader.read()).decode()
    writer.close()
    head, _, body = response.partition("\r\n\r\n")
    return head.splitlines()[0], body


async def test_metrics_and_health_endpoints():
    registry = Registry()
    registry.gauge("taskq_broker_connections", "Open connections").set(3)
    health = {"ok": True}
    server = await serve_metrics(registry, "127.0.0.1", 0, health=lambda: health)
    port = server.sockets[0].getsockname()[1]
    try:
        status, body = await http_get(port, "/metrics")
        assert status.endswith("200 OK") and "taskq_broker_connections 3" in body
        assert (await http_get(port, "/healthz"))[0].endswith("200 OK")
        health["ok"] = False
        assert "503" in (await http_get(port, "/healthz"))[0]
        assert "404" in (await http_get(port, "/nope"))[0]
    finally:
        server.close()
        await server.wait_closed()
