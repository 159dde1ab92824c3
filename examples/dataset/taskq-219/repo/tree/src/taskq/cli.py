"""The ``taskq`` command.

    taskq serve                      run a broker in front of the configured store
    taskq worker MODULE:REGISTRY     run the workers of a handler registry
    taskq enqueue QUEUE '{"...": 1}' add a task
    taskq inspect TASK_ID            show a task
    taskq stats                      task counts by queue and state
    taskq requeue-dead QUEUE         give dead tasks of a queue new attempts
    taskq migrate                    apply the PostgreSQL schema migrations
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import logging
import signal
import sys
from dataclasses import asdict
from typing import Any, Sequence

from . import __version__
from .backends import open_store
from .config import Config, ConfigError, load
from .errors import TaskNotFound, TaskqError
from .metrics import Registry, serve_metrics
from .pool import WorkerPool
from .registry import HandlerRegistry
from .server import BrokerServer

log = logging.getLogger("taskq.cli")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="taskq", description="Leased task execution with retries.")
    parser.add_argument("--config", "-c", help="TOML configuration file")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument("--version", action="version", version=f"taskq {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="run a broker")
    worker = sub.add_parser("worker", help="run workers")
    worker.add_argument("registry", help="MODULE:ATTRIBUTE of a HandlerRegistry")
    worker.add_argument("--queue", "-q", action="append", help="only these queues (default: all of the registry)")
    enqueue = sub.add_parser("enqueue", help="add a task")
    enqueue.add_argument("queue")
    enqueue.add_argument("payload", help="JSON object")
    enqueue.add_argument("--max-attempts", type=int, default=None)
    inspect = sub.add_parser("inspect", help="show a task")
    inspect.add_argument("task_id")
    sub.add_parser("stats", help="task counts by queue and state")
    requeue = sub.add_parser("requeue-dead", help="retry dead tasks of a queue")
    requeue.add_argument("queue")
    sub.add_parser("migrate", help="apply schema migrations (PostgreSQL)")
    return parser


def load_registry(spec: str) -> HandlerRegistry:
    module_name, _, attribute = spec.partition(":")
    if not attribute:
        raise ConfigError(f"registry must be MODULE:ATTRIBUTE, got {spec!r}")
    registry = getattr(importlib.import_module(module_name), attribute, None)
    if not isinstance(registry, HandlerRegistry):
        raise ConfigError(f"{spec} is not a HandlerRegistry")
    return registry


async def _open(config: Config) -> Any:
    s = config.store
    return await open_store(s.dsn, statement_timeout=s.statement_timeout, pool_min=s.pool_min, pool_max=s.pool_max,
                            journal_path=s.journal_path, request_timeout=config.broker.request_timeout)


async def cmd_serve(config: Config, args: argparse.Namespace) -> int:
    store = await _open(config)
    registry = Registry()
    b = config.broker
    server = BrokerServer(store, b.host, b.port, max_connections=b.max_connections, idle_timeout=b.idle_timeout,
                          store_timeout=config.store.statement_timeout * 2, registry=registry)
    await server.start()
    if config.metrics.enabled:
        await serve_metrics(registry, config.metrics.host, config.metrics.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop()
    return 0


async def cmd_worker(config: Config, args: argparse.Namespace) -> int:
    registry = load_registry(args.registry)
    queues = args.queue or sorted(registry.queues())
    store = await _open(config)
    metrics = Registry()
    pool = WorkerPool(store, config, {q: registry.dispatch for q in queues}, registry=metrics)
    if config.metrics.enabled:
        await serve_metrics(metrics, config.metrics.host, config.metrics.port, health=pool.health)
    pool.install_signal_handlers()
    await pool.start()
    await pool.wait()
    return 0


async def cmd_enqueue(config: Config, args: argparse.Namespace) -> int:
    payload = json.loads(args.payload)
    if not isinstance(payload, dict):
        raise ConfigError("payload must be a JSON object")
    store = await _open(config)
    max_attempts = args.max_attempts or config.queue(args.queue).max_attempts
    task = await store.enqueue(args.queue, payload, max_attempts)
    print(task.id)
    return 0


async def cmd_inspect(config: Config, args: argparse.Namespace) -> int:
    store = await _open(config)
    try:
        task = await store.get(args.task_id)
    except TaskNotFound:
        print(f"no task {args.task_id}", file=sys.stderr)
        return 1
    data = asdict(task)
    data["state"] = task.state.value
    print(json.dumps(data, indent=2, default=str))
    return 0


async def cmd_stats(config: Config, args: argparse.Namespace) -> int:
    store = await _open(config)
    counts = await store.counts() if hasattr(store, "counts") else {}
    for key in sorted(counts):
        queue, _, state = key.partition(":")
        print(f"{queue:<24} {state:<10} {counts[key]:>8}")
    return 0


async def cmd_requeue_dead(config: Config, args: argparse.Namespace) -> int:
    store = await _open(config)
    if not hasattr(store, "requeue_dead"):
        print("requeue-dead needs the PostgreSQL store", file=sys.stderr)
        return 2
    print(f"requeued {await store.requeue_dead(args.queue)} dead task(s) of {args.queue}")
    return 0


async def cmd_migrate(config: Config, args: argparse.Namespace) -> int:
    if not config.store.dsn.startswith(("postgresql://", "postgres://")):
        print("migrate needs a PostgreSQL store.dsn", file=sys.stderr)
        return 2
    await _open(config)  # connecting applies pending migrations
    return 0


COMMANDS = {
    "serve": cmd_serve,
    "worker": cmd_worker,
    "enqueue": cmd_enqueue,
    "inspect": cmd_inspect,
    "stats": cmd_stats,
    "requeue-dead": cmd_requeue_dead,
    "migrate": cmd_migrate,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        config = load(args.config)
        return asyncio.run(COMMANDS[args.command](config, args))
    except ConfigError as exc:
        print(f"taskq: configuration error: {exc}", file=sys.stderr)
        return 2
    except TaskqError as exc:
        print(f"taskq: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
