package dev.streamlog.storage

import java.io.{File, IOException}
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{Files, StandardOpenOption}
import java.util.concurrent.atomic.AtomicInteger

/** Where a batch starts in a file and how large it is. */
final case class BatchPosition(position: Int, size: Int, baseOffset: Long, lastOffset: Long, maxTimestamp: Long)

/**
 * The record batches of one segment in a file. Appends go to the end; reads return slices
 * by file position. The size is tracked in memory: the file may be longer (preallocated or
 * a torn write after a crash) until recovery truncates it.
 */
final class FileRecords private (val file: File, channel: FileChannel, initialSize: Int) {

  private val size = new AtomicInteger(initialSize)

  def sizeInBytes: Int = size.get()

  /** Appends a whole batch; returns the bytes written. */
  def append(batch: RecordBatch): Int = {
    if (batch.sizeInBytes > Int.MaxValue - size.get())
      throw new IllegalArgumentException(s"Append of ${batch.sizeInBytes} bytes would overflow the segment file $file")
    val buffer = batch.buffer.duplicate()
    var written = 0
    while (buffer.hasRemaining) written += channel.write(buffer)
    size.addAndGet(written)
    written
  }

  def flush(): Unit = channel.force(true)

  /** Reads `length` bytes from `position` (fewer at the end of the file). */
  def read(position: Int, length: Int): ByteBuffer = {
    val end = math.min(size.get(), position + length)
    val buffer = ByteBuffer.allocate(math.max(0, end - position))
    var pos = position.toLong
    while (buffer.hasRemaining) {
      val n = channel.read(buffer, pos)
      if (n < 0) throw new IOException(s"Unexpected end of $file at $pos while reading $length bytes from $position")
      pos += n
    }
    buffer.flip()
    buffer
  }

  /** Batch positions from `start` on, stopping at the end or at a batch that is cut short. */
  def batchesFrom(start: Int): Iterator[BatchPosition] = new Iterator[BatchPosition] {
    private var position = start
    private var nextBatch: Option[BatchPosition] = advance()

    private def advance(): Option[BatchPosition] = {
      val limit = sizeInBytes
      if (position + RecordBatch.HeaderSize > limit) None
      else {
        val header = read(position, RecordBatch.HeaderSize)
        val batchSize = RecordBatch.LogOverhead + header.getInt(RecordBatch.LengthPos)
        if (batchSize < RecordBatch.HeaderSize || position + batchSize > limit) None
        else {
          val batch = new RecordBatch(header)
          val found = BatchPosition(position, batchSize, batch.baseOffset, batch.lastOffset, batch.maxTimestamp)
          position += batchSize
          Some(found)
        }
      }
    }

    override def hasNext: Boolean = nextBatch.isDefined

    override def next(): BatchPosition = {
      val current = nextBatch.getOrElse(throw new NoSuchElementException)
      nextBatch = advance()
      current
    }
  }

  def batchAt(position: BatchPosition): RecordBatch = new RecordBatch(read(position.position, position.size))

  /** The first batch at or after `startingPosition` whose last offset is >= `targetOffset`. */
  def searchForOffset(targetOffset: Long, startingPosition: Int): Option[BatchPosition] =
    batchesFrom(startingPosition).find(_.lastOffset >= targetOffset)

  /** The first batch at or after `startingPosition` with a timestamp >= `timestamp`. */
  def searchForTimestamp(timestamp: Long, startingPosition: Int): Option[BatchPosition] =
    batchesFrom(startingPosition).find(_.maxTimestamp >= timestamp)

  /** Cuts the file to `targetSize` bytes; returns the bytes removed. */
  def truncateTo(targetSize: Int): Int = {
    val originalSize = size.get()
    if (targetSize > originalSize || targetSize < 0)
      throw new IllegalArgumentException(s"Attempt to truncate $file to $targetSize bytes, but it has $originalSize")
    if (targetSize < channel.size()) {
      channel.truncate(targetSize.toLong)
      size.set(targetSize)
    }
    originalSize - targetSize
  }

  def close(): Unit = channel.close()

  def deleteIfExists(): Boolean = {
    if (channel.isOpen) close()
    Files.deleteIfExists(file.toPath)
  }
}

object FileRecords {
  def open(file: File): FileRecords = {
    val channel = FileChannel.open(file.toPath, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)
    val size = math.min(channel.size(), Int.MaxValue.toLong).toInt
    channel.position(size.toLong)
    new FileRecords(file, channel, size)
  }
}
