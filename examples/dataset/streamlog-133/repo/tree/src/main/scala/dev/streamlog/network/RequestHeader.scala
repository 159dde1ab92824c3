package dev.streamlog.network

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets

/**
 * The header in front of every request: api key, api version, correlation id (echoed in the
 * response so the client can match it) and the client id for quotas and logs.
 */
final case class RequestHeader(apiKey: ApiKeys, apiVersion: Short, correlationId: Int, clientId: String) {

  def sizeInBytes: Int = 2 + 2 + 4 + 2 + clientId.getBytes(StandardCharsets.UTF_8).length

  def writeTo(buffer: ByteBuffer): Unit = {
    buffer.putShort(apiKey.id)
    buffer.putShort(apiVersion)
    buffer.putInt(correlationId)
    RequestHeader.writeString(buffer, clientId)
  }
}

final class InvalidRequestException(message: String) extends RuntimeException(message)

object RequestHeader {

  /** Parses the header at the buffer's position and leaves the position at the body. */
  def parse(buffer: ByteBuffer): RequestHeader = {
    if (buffer.remaining() < 10) throw new InvalidRequestException(s"request of ${buffer.remaining()} bytes has no header")
    val keyId = buffer.getShort()
    val version = buffer.getShort()
    val correlationId = buffer.getInt()
    val apiKey = ApiKeys.forId(keyId).getOrElse(
      throw new InvalidRequestException(s"Unknown API key $keyId (correlation id $correlationId)"))
    if (!apiKey.isVersionSupported(version))
      throw new InvalidRequestException(s"Unsupported version $version of $apiKey (supported ${apiKey.minVersion}-${apiKey.maxVersion})")
    RequestHeader(apiKey, version, correlationId, readString(buffer))
  }

  def writeString(buffer: ByteBuffer, s: String): Unit = {
    if (s == null) buffer.putShort(-1)
    else {
      val bytes = s.getBytes(StandardCharsets.UTF_8)
      buffer.putShort(bytes.length.toShort)
      buffer.put(bytes)
    }
  }

  def readString(buffer: ByteBuffer): String = {
    val length = buffer.getShort()
    if (length < 0) null
    else {
      if (length > buffer.remaining()) throw new InvalidRequestException(s"string of $length bytes exceeds the request")
      val bytes = new Array[Byte](length)
      buffer.get(bytes)
      new String(bytes, StandardCharsets.UTF_8)
    }
  }
}
