import asyncio
import struct

import pytest

from taskq import protocol
from taskq.errors import LeaseLost, StoreUnavailable, TaskNotFound
from taskq.protocol import Op, ProtocolError, Request, Response


def reader_with(data: bytes) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return reader


async def test_frames_round_trip():
    request = Request(7, Op.RENEW, {"task_id": "t1", "worker_id": "w1", "lease_ttl": 30.0})
    reader = reader_with(protocol.encode(request.to_dict()) + protocol.encode({"id": 8, "result": None}))
    first = Request.from_dict(await protocol.read_frame(reader))
    assert first == request
    assert Response.from_dict(await protocol.read_frame(reader)).ok
    assert await protocol.read_frame(reader) is None


async def test_oversized_and_torn_frames_are_protocol_errors():
    with pytest.raises(ProtocolError):
        await protocol.read_frame(reader_with(struct.pack(">I", 10_000) + b"{}"), max_frame=1024)
    with pytest.raises(ProtocolError):
        await protocol.read_frame(reader_with(struct.pack(">I", 10) + b'{"id":'))
    with pytest.raises(ProtocolError):
        await protocol.read_frame(reader_with(b"\x00\x00"))


def test_errors_cross_the_wire_as_the_same_exception_types():
    lost = protocol.exception_for(protocol.error_for(LeaseLost("t1", "worker-2")))
    assert isinstance(lost, LeaseLost)
    assert (lost.task_id, lost.holder) == ("t1", "worker-2")
    nobody = protocol.exception_for(protocol.error_for(LeaseLost("t1", None)))
    assert isinstance(nobody, LeaseLost) and nobody.holder is None
    assert isinstance(protocol.exception_for(protocol.error_for(TaskNotFound("t9"))), TaskNotFound)
    assert isinstance(protocol.exception_for(protocol.error_for(StoreUnavailable("db"))), StoreUnavailable)
    other = protocol.exception_for(protocol.error_for(RuntimeError("boom")))
    assert isinstance(other, protocol.RemoteError) and other.code == "internal"


def test_version_negotiation():
    assert protocol.negotiate(protocol.PROTOCOL_VERSION + 3) == protocol.PROTOCOL_VERSION
    assert protocol.negotiate(protocol.MIN_PROTOCOL_VERSION) == protocol.MIN_PROTOCOL_VERSION
    with pytest.raises(ProtocolError):
        protocol.negotiate(0)


def test_malformed_requests_are_rejected():
    with pytest.raises(ProtocolError):
        Request.from_dict({"id": 1, "op": "explode"})
    with pytest.raises(ProtocolError):
        Request.from_dict({"op": "claim"})
