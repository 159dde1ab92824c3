package dev.streamlog.network

import java.io.{EOFException, IOException}
import java.nio.ByteBuffer
import java.nio.channels.{GatheringByteChannel, ScatteringByteChannel}

final class InvalidReceiveException(message: String) extends IOException(message)

/**
 * A size-delimited receive: a four-byte size, then that many bytes. Non-blocking reads may
 * complete it over several calls. The size is checked before the payload buffer is
 * allocated, so a client cannot make the broker allocate arbitrary memory.
 */
final class NetworkReceive(val source: String, maxSize: Int) {
  private val size = ByteBuffer.allocate(4)
  private var payload: ByteBuffer = _

  def complete: Boolean = payload != null && !payload.hasRemaining

  /** Reads what is available; returns the bytes read, or throws EOFException if the peer closed. */
  def readFrom(channel: ScatteringByteChannel): Long = {
    var read = 0L
    if (size.hasRemaining) {
      val n = channel.read(size)
      if (n < 0) throw new EOFException(s"connection $source closed")
      read += n
      if (!size.hasRemaining) {
        size.rewind()
        val receiveSize = size.getInt()
        if (receiveSize < 0) throw new InvalidReceiveException(s"Invalid receive (size = $receiveSize)")
        if (receiveSize > maxSize)
          throw new InvalidReceiveException(s"Invalid receive (size = $receiveSize larger than $maxSize)")
        payload = ByteBuffer.allocate(receiveSize)
      }
    }
    if (payload != null) {
      val n = channel.read(payload)
      if (n < 0) throw new EOFException(s"connection $source closed in the middle of a receive")
      read += n
    }
    read
  }

  /** The received bytes, positioned at the start; only valid once complete. */
  def payloadBuffer: ByteBuffer = {
    require(complete, s"receive from $source is not complete")
    payload.flip()
    payload
  }
}

/** A response on its way out: the size prefix and the payload, written without copying. */
final class NetworkSend(val destination: String, payload: ByteBuffer) {
  private val buffers = Array(ByteBuffer.allocate(4).putInt(0, payload.remaining()), payload)
  private var remaining = 4L + payload.remaining()

  def completed: Boolean = remaining <= 0

  def writeTo(channel: GatheringByteChannel): Long = {
    val written = channel.write(buffers)
    if (written < 0) throw new EOFException(s"wrote negative bytes to $destination")
    remaining -= written
    written
  }
}
