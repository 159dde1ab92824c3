"""Configuration: a TOML file, overridden by ``TASKQ_*`` environment variables.

.. code-block:: toml

    [store]
    dsn = "postgresql://taskq@db/taskq"
    statement_timeout = 5.0

    [worker]
    concurrency = 8
    lease_ttl = 30.0

    [queues.invoices]
    max_attempts = 5
    rate_limit = 20.0      # claims per second, 0 for none
    retry_base = 2.0

Environment variables name a section and key: ``TASKQ_WORKER__LEASE_TTL=60``.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .errors import TaskqError
from .retry import RetryPolicy

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ENV_PREFIX = "TASKQ_"


class ConfigError(TaskqError):
    """The configuration is invalid; the message names the offending key."""


@dataclass(frozen=True)
class StoreConfig:
    dsn: str = "memory://"
    pool_min: int = 2
    pool_max: int = 10
    statement_timeout: float = 5.0
    journal_path: str | None = None


@dataclass(frozen=True)
class WorkerConfig:
    concurrency: int = 8
    lease_ttl: float = 30.0
    poll_interval: float = 0.5
    shutdown_grace: float = 30.0
    worker_id: str | None = None


@dataclass(frozen=True)
class ReaperConfig:
    enabled: bool = True
    interval: float = 5.0


@dataclass(frozen=True)
class BrokerConfig:
    host: str = "127.0.0.1"
    port: int = 7420
    max_connections: int = 1024
    idle_timeout: float = 300.0
    request_timeout: float = 10.0


@dataclass(frozen=True)
class MetricsConfig:
    enabled: bool = False
    host: str = "0.0.0.0"
    port: int = 9464


@dataclass(frozen=True)
class QueueConfig:
    max_attempts: int = 5
    rate_limit: float = 0.0
    retry_base: float = 1.0
    retry_cap: float = 300.0

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(base=self.retry_base, cap=self.retry_cap, max_attempts=self.max_attempts)


@dataclass(frozen=True)
class Config:
    store: StoreConfig = field(default_factory=StoreConfig)
    worker: WorkerConfig = field(default_factory=WorkerConfig)
    reaper: ReaperConfig = field(default_factory=ReaperConfig)
    broker: BrokerConfig = field(default_factory=BrokerConfig)
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    queues: dict[str, QueueConfig] = field(default_factory=dict)

    def queue(self, name: str) -> QueueConfig:
        return self.queues.get(name, QueueConfig())


_SECTIONS = {"store": StoreConfig, "worker": WorkerConfig, "reaper": ReaperConfig, "broker": BrokerConfig, "metrics": MetricsConfig}


def _coerce(section: str, key: str, target: type | str, value: Any) -> Any:
    """Converts a TOML or environment value to the field's type, or raises ConfigError."""
    name = target if isinstance(target, str) else target.__name__
    try:
        if "bool" in name:
            if isinstance(value, bool):
                return value
            lowered = str(value).strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if "float" in name:
            return float(value)
        if "int" in name:
            if isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            return int(value)
        return None if value in ("", None) and "None" in name else str(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{section}.{key}: expected {name}, got {value!r}") from None


def _build(section: str, cls: type, values: Mapping[str, Any]) -> Any:
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(values) - set(fields)
    if unknown:
        raise ConfigError(f"unknown key(s) in [{section}]: {', '.join(sorted(unknown))}")
    kwargs = {k: _coerce(section, k, fields[k].type, v) for k, v in values.items()}
    return cls(**kwargs)


def env_overrides(environ: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """``TASKQ_WORKER__LEASE_TTL=60`` -> ``{"worker": {"lease_ttl": "60"}}``."""
    out: dict[str, dict[str, str]] = {}
    for name, value in environ.items():
        if not name.startswith(ENV_PREFIX) or "__" not in name:
            continue
        section, _, key = name[len(ENV_PREFIX):].lower().partition("__")
        if section in _SECTIONS:
            out.setdefault(section, {})[key] = value
    return out


def load(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
    raw: dict[str, Any] = {}
    if path is not None:
        try:
            with open(path, "rb") as fh:
                raw = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}") from None
    return from_dict(raw, os.environ if environ is None else environ)


def from_dict(raw: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> Config:
    unknown = set(raw) - set(_SECTIONS) - {"queues"}
    if unknown:
        raise ConfigError(f"unknown section(s): {', '.join(sorted(unknown))}")
    merged = {section: dict(raw.get(section, {})) for section in _SECTIONS}
    for section, values in env_overrides(environ or {}).items():
        merged[section].update(values)
    sections = {section: _build(section, cls, merged[section]) for section, cls in _SECTIONS.items()}
    queues = {name: _build(f"queues.{name}", QueueConfig, values) for name, values in dict(raw.get("queues", {})).items()}
    config = Config(queues=queues, **sections)
    validate(config)
    return config


def validate(config: Config) -> None:
    """Checks that need more than one value."""
    w = config.worker
    if w.concurrency < 1:
        raise ConfigError("worker.concurrency must be at least 1")
    if w.lease_ttl < 3 * w.poll_interval:
        raise ConfigError(f"worker.lease_ttl ({w.lease_ttl}s) must be at least three poll intervals ({w.poll_interval}s)")
    if config.reaper.enabled and config.reaper.interval >= w.lease_ttl:
        # a reaper slower than the lease would let dead workers hold tasks for up to two leases
        raise ConfigError(f"reaper.interval ({config.reaper.interval}s) must be shorter than worker.lease_ttl ({w.lease_ttl}s)")
    if config.store.pool_min > config.store.pool_max:
        raise ConfigError("store.pool_min must not exceed store.pool_max")
    if not config.store.dsn.startswith(("memory://", "sqlite://", "postgresql://", "postgres://", "taskq://")):
        raise ConfigError(f"store.dsn: unsupported scheme in {config.store.dsn!r}")
    for name, queue in config.queues.items():
        if queue.max_attempts < 1:
            raise ConfigError(f"queues.{name}.max_attempts must be at least 1")
        if queue.rate_limit < 0:
            raise ConfigError(f"queues.{name}.rate_limit must not be negative")
        if queue.retry_base <= 0 or queue.retry_cap < queue.retry_base:
            raise ConfigError(f"queues.{name}: need 0 < retry_base <= retry_cap")
