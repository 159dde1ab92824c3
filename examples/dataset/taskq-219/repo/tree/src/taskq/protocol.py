"""The broker protocol: length-prefixed JSON frames over TCP.

Every frame is a 4-byte big-endian length followed by a UTF-8 JSON object. A client
opens with a ``hello`` carrying the protocol version; after that each request has an
``id`` that its response echoes, so requests can be pipelined and answered out of order.

Errors travel as a code and a message and are turned back into the same exception
types the in-process store raises, so a worker cannot tell a remote store from a local
one.
"""

from __future__ import annotations

import asyncio
import enum
import json
import struct
from dataclasses import dataclass, field
from typing import Any

from .errors import LeaseLost, StoreUnavailable, TaskNotFound, TaskqError

PROTOCOL_VERSION = 2
MIN_PROTOCOL_VERSION = 1
DEFAULT_MAX_FRAME = 4 * 1024 * 1024
_LENGTH = struct.Struct(">I")


class Op(str, enum.Enum):
    HELLO = "hello"
    ENQUEUE = "enqueue"
    CLAIM = "claim"
    RENEW = "renew"
    COMPLETE = "complete"
    RETRY = "retry"
    FAIL = "fail"
    GET = "get"
    STATS = "stats"
    PING = "ping"


class ErrorCode(str, enum.Enum):
    LEASE_LOST = "lease_lost"
    NOT_FOUND = "not_found"
    UNAVAILABLE = "unavailable"
    BAD_REQUEST = "bad_request"
    UNSUPPORTED_VERSION = "unsupported_version"
    INTERNAL = "internal"


class ProtocolError(TaskqError):
    """The peer sent something that is not a valid frame or message."""


class RemoteError(TaskqError):
    """The broker answered with an error that has no more specific exception type."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code


@dataclass
class Request:
    id: int
    op: Op
    args: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "op": self.op.value, "args": self.args}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Request":
        try:
            return cls(id=int(data["id"]), op=Op(data["op"]), args=dict(data.get("args") or {}))
        except (KeyError, ValueError, TypeError) as exc:
            raise ProtocolError(f"malformed request: {exc}") from None


@dataclass
class Response:
    id: int
    result: Any = None
    error: dict[str, str] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id}
        if self.error is not None:
            out["error"] = self.error
        else:
            out["result"] = self.result
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Response":
        if "id" not in data:
            raise ProtocolError("response without id")
        return cls(id=int(data["id"]), result=data.get("result"), error=data.get("error"))

    @classmethod
    def failure(cls, request_id: int, exc: BaseException) -> "Response":
        return cls(id=request_id, error=error_for(exc))


def error_for(exc: BaseException) -> dict[str, str]:
    """The wire form of an exception raised while handling a request."""
    if isinstance(exc, LeaseLost):
        return {"code": ErrorCode.LEASE_LOST.value, "message": str(exc), "task_id": exc.task_id, "holder": exc.holder or ""}
    if isinstance(exc, TaskNotFound):
        return {"code": ErrorCode.NOT_FOUND.value, "message": str(exc)}
    if isinstance(exc, StoreUnavailable):
        return {"code": ErrorCode.UNAVAILABLE.value, "message": str(exc)}
    if isinstance(exc, (ProtocolError, ValueError, TypeError, KeyError)):
        return {"code": ErrorCode.BAD_REQUEST.value, "message": str(exc)}
    return {"code": ErrorCode.INTERNAL.value, "message": f"{type(exc).__name__}: {exc}"}


def exception_for(error: dict[str, str]) -> TaskqError:
    """The exception a client raises for an error response."""
    code = error.get("code", ErrorCode.INTERNAL.value)
    message = error.get("message", "")
    if code == ErrorCode.LEASE_LOST.value:
        return LeaseLost(error.get("task_id", ""), error.get("holder") or None)
    if code == ErrorCode.NOT_FOUND.value:
        return TaskNotFound(message)
    if code == ErrorCode.UNAVAILABLE.value:
        return StoreUnavailable(message)
    return RemoteError(code, message)


def encode(message: dict[str, Any], max_frame: int = DEFAULT_MAX_FRAME) -> bytes:
    body = json.dumps(message, separators=(",", ":"), default=str).encode("utf-8")
    if len(body) > max_frame:
        raise ProtocolError(f"frame of {len(body)} bytes exceeds the maximum of {max_frame}")
    return _LENGTH.pack(len(body)) + body


def decode(body: bytes) -> dict[str, Any]:
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"frame is not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise ProtocolError("frame is not a JSON object")
    return message


async def read_frame(reader: asyncio.StreamReader, max_frame: int = DEFAULT_MAX_FRAME) -> dict[str, Any] | None:
    """Reads one frame; returns None on a clean end of stream between frames."""
    try:
        header = await reader.readexactly(_LENGTH.size)
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise ProtocolError("connection closed inside a frame header") from None
        return None
    (length,) = _LENGTH.unpack(header)
    if length > max_frame:
        raise ProtocolError(f"frame of {length} bytes exceeds the maximum of {max_frame}")
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise ProtocolError(f"connection closed after {length} byte frame header") from None
    return decode(body)


def negotiate(client_version: int) -> int:
    """The version both sides speak, or ProtocolError if there is none."""
    if client_version < MIN_PROTOCOL_VERSION:
        raise ProtocolError(f"client protocol {client_version} is older than {MIN_PROTOCOL_VERSION}")
    return min(client_version, PROTOCOL_VERSION)
