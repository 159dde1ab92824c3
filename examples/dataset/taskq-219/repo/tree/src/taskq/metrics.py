"""Prometheus-style metrics without a dependency: counters, gauges, histograms with
labels, the text exposition format, and a tiny asyncio HTTP endpoint for /metrics."""

from __future__ import annotations

import asyncio
import bisect
import json
import logging
import math
import threading
from typing import Any, Callable, Iterable

log = logging.getLogger("taskq.metrics")

DEFAULT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def _label_key(labelnames: tuple[str, ...], labels: dict[str, str]) -> tuple[str, ...]:
    if set(labels) != set(labelnames):
        raise ValueError(f"expected labels {labelnames}, got {tuple(sorted(labels))}")
    return tuple(str(labels[name]) for name in labelnames)


def _format_labels(labelnames: tuple[str, ...], key: tuple[str, ...], extra: str = "") -> str:
    pairs = [f'{name}="{_escape(value)}"' for name, value in zip(labelnames, key)]
    if extra:
        pairs.append(extra)
    return "{" + ",".join(pairs) + "}" if pairs else ""


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _format_value(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == int(value):
        return str(int(value))
    return repr(value)


class _Metric:
    kind = "untyped"

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = ()):
        self.name = name
        self.help = help_text
        self.labelnames = tuple(labelnames)
        self._lock = threading.Lock()

    def samples(self) -> list[str]:
        raise NotImplementedError

    def render(self) -> str:
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}"]
        lines.extend(self.samples())
        return "\n".join(lines)


class Counter(_Metric):
    kind = "counter"

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = ()):
        super().__init__(name, help_text, labelnames)
        self._values: dict[tuple[str, ...], float] = {}

    def inc(self, amount: float = 1.0, **labels: str) -> None:
        if amount < 0:
            raise ValueError("counters only go up")
        key = _label_key(self.labelnames, labels)
        with self._lock:
            self._values[key] = self._values.get(key, 0.0) + amount

    def value(self, **labels: str) -> float:
        with self._lock:
            return self._values.get(_label_key(self.labelnames, labels), 0.0)

    def samples(self) -> list[str]:
        with self._lock:
            return [f"{self.name}{_format_labels(self.labelnames, k)} {_format_value(v)}" for k, v in sorted(self._values.items())]


class Gauge(Counter):
    kind = "gauge"

    def inc(self, amount: float = 1.0, **labels: str) -> None:
        key = _label_key(self.labelnames, labels)
        with self._lock:
            self._values[key] = self._values.get(key, 0.0) + amount

    def dec(self, amount: float = 1.0, **labels: str) -> None:
        self.inc(-amount, **labels)

    def set(self, value: float, **labels: str) -> None:
        key = _label_key(self.labelnames, labels)
        with self._lock:
            self._values[key] = value


class Histogram(_Metric):
    kind = "histogram"

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = (), buckets: Iterable[float] = DEFAULT_BUCKETS):
        super().__init__(name, help_text, labelnames)
        self.buckets = tuple(sorted(buckets)) + (math.inf,)
        self._counts: dict[tuple[str, ...], list[int]] = {}
        self._sums: dict[tuple[str, ...], float] = {}

    def observe(self, value: float, **labels: str) -> None:
        key = _label_key(self.labelnames, labels)
        index = bisect.bisect_left(self.buckets, value)
        with self._lock:
            counts = self._counts.setdefault(key, [0] * len(self.buckets))
            counts[index] += 1
            self._sums[key] = self._sums.get(key, 0.0) + value

    def count(self, **labels: str) -> int:
        with self._lock:
            return sum(self._counts.get(_label_key(self.labelnames, labels), []))

    def samples(self) -> list[str]:
        lines = []
        with self._lock:
            for key in sorted(self._counts):
                cumulative = 0
                for bound, n in zip(self.buckets, self._counts[key]):
                    cumulative += n
                    le = f'le="{_format_value(bound)}"'
                    lines.append(f"{self.name}_bucket{_format_labels(self.labelnames, key, le)} {cumulative}")
                lines.append(f"{self.name}_sum{_format_labels(self.labelnames, key)} {_format_value(self._sums[key])}")
                lines.append(f"{self.name}_count{_format_labels(self.labelnames, key)} {cumulative}")
        return lines


class Registry:
    """Metrics by name; asking twice for the same name returns the same metric."""

    def __init__(self) -> None:
        self._metrics: dict[str, _Metric] = {}
        self._lock = threading.Lock()

    def _get(self, cls: type, name: str, *args, **kwargs) -> _Metric:
        with self._lock:
            metric = self._metrics.get(name)
            if metric is None:
                metric = self._metrics[name] = cls(name, *args, **kwargs)
            elif type(metric) is not cls:
                raise ValueError(f"metric {name} is already registered as a {metric.kind}")
            return metric

    def counter(self, name: str, help_text: str, labelnames: Iterable[str] = ()) -> Counter:
        return self._get(Counter, name, help_text, labelnames)  # type: ignore[return-value]

    def gauge(self, name: str, help_text: str, labelnames: Iterable[str] = ()) -> Gauge:
        return self._get(Gauge, name, help_text, labelnames)  # type: ignore[return-value]

    def histogram(self, name: str, help_text: str, labelnames: Iterable[str] = (), buckets: Iterable[float] = DEFAULT_BUCKETS) -> Histogram:
        return self._get(Histogram, name, help_text, labelnames, buckets)  # type: ignore[return-value]

    def exposition(self) -> str:
        with self._lock:
            metrics = sorted(self._metrics.values(), key=lambda m: m.name)
        return "\n".join(m.render() for m in metrics) + "\n"


async def serve_metrics(registry: Registry, host: str, port: int,
                        health: Callable[[], dict[str, Any]] | None = None) -> asyncio.AbstractServer:
    """Serves GET /metrics and, given a health callback, GET /healthz (503 unless "ok")."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = await asyncio.wait_for(reader.readline(), 5.0)
            while (await asyncio.wait_for(reader.readline(), 5.0)) not in (b"\r\n", b"\n", b""):
                pass
            parts = request_line.decode("latin-1").split()
            path = parts[1].split("?")[0] if len(parts) >= 2 and parts[0] == "GET" else None
            if path == "/metrics":
                body = registry.exposition().encode("utf-8")
                head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
            elif path == "/healthz" and health is not None:
                status = health()
                body = json.dumps(status, sort_keys=True).encode("utf-8")
                head = ("HTTP/1.1 200 OK" if status.get("ok") else "HTTP/1.1 503 Service Unavailable") + "\r\nContent-Type: application/json\r\n"
            else:
                body = b"not found\n"
                head = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n"
            writer.write(f"{head}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode("latin-1") + body)
            await writer.drain()
        except (asyncio.TimeoutError, ConnectionError) as exc:
            log.debug("metrics request failed: %s", exc)
        finally:
            writer.close()

    server = await asyncio.start_server(handle, host, port)
    log.info("metrics on http://%s:%d/metrics", host, port)
    return server
