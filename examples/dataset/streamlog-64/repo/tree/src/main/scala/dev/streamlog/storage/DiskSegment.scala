package dev.streamlog.storage

import java.io.File
import java.nio.ByteBuffer

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.common.{ApiException, ErrorCode}

/** What a fetch read from a segment: the bytes and the offset of their first batch. */
final case class FetchSlice(firstOffset: Long, records: ByteBuffer)

/**
 * A segment on disk: `<base offset>.log` with its batches and `<base offset>.index`. The
 * file names carry the base offset zero-padded to 20 digits so they sort by offset.
 */
final class DiskSegment(
    val dir: File,
    val baseOffset: Long,
    indexIntervalBytes: Int,
    maxIndexSize: Int,
    val createdMs: Long
) extends LazyLogging {

  val records: FileRecords = FileRecords.open(new File(dir, DiskSegment.fileName(baseOffset, ".log")))
  val offsetIndex = new OffsetIndex(new File(dir, DiskSegment.fileName(baseOffset, ".index")), baseOffset, maxIndexSize)

  @volatile private var bytesSinceLastIndexEntry = 0
  @volatile private var nextOffsetCache: Option[Long] = None
  @volatile var largestTimestamp: Long = -1L

  def sizeInBytes: Int = records.sizeInBytes

  /**
   * Appends a batch whose offsets were already assigned. An index entry is added for the
   * batch when `index.interval.bytes` were appended since the last entry.
   */
  def append(batch: RecordBatch): Unit = {
    if (batch.baseOffset < nextOffset)
      throw new IllegalArgumentException(s"batch at ${batch.baseOffset} is behind the end of segment $baseOffset ($nextOffset)")
    val position = records.sizeInBytes
    if (bytesSinceLastIndexEntry > indexIntervalBytes && !offsetIndex.isFull) {
      offsetIndex.append(batch.baseOffset, position)
      bytesSinceLastIndexEntry = 0
    }
    records.append(batch)
    bytesSinceLastIndexEntry += batch.sizeInBytes
    largestTimestamp = math.max(largestTimestamp, batch.maxTimestamp)
    nextOffsetCache = Some(batch.nextOffset)
  }

  /** The offset after the last batch; computed by a scan once, then cached. */
  def nextOffset: Long = nextOffsetCache.getOrElse {
    val start = offsetIndex.lookup(Long.MaxValue).position
    val last = records.batchesFrom(start).foldLeft(baseOffset - 1)((_, b) => b.lastOffset)
    val next = last + 1
    nextOffsetCache = Some(next)
    next
  }

  /**
   * Reads batches from the one containing `startOffset`, up to `maxSize` bytes. At least one
   * whole batch is returned even if it is larger than `maxSize`, so a consumer can always
   * make progress.
   */
  def read(startOffset: Long, maxSize: Int, maxPosition: Int = Int.MaxValue): Option[FetchSlice] = {
    if (maxSize < 0) throw new IllegalArgumentException(s"Invalid max size $maxSize for log read from segment $baseOffset")
    val from = offsetIndex.lookup(startOffset)
    records.searchForOffset(startOffset, from.position).map { first =>
      val limit = math.min(maxPosition, records.sizeInBytes)
      val length = math.max(first.size, math.min(maxSize, limit - first.position))
      FetchSlice(first.baseOffset, records.read(first.position, length))
    }
  }

  /** The first offset with a timestamp >= `timestamp`, for ListOffsets by time. */
  def findOffsetByTimestamp(timestamp: Long): Option[Long] =
    records.searchForTimestamp(timestamp, 0).flatMap { position =>
      records.batchAt(position).records.find(_.timestamp >= timestamp).map(_.offset)
    }

  /**
   * Rebuilds the index by scanning the log and truncates everything after the last valid
   * batch. Runs at startup for segments after the recovery point.
   *
   * @return the bytes truncated
   */
  def recover(): Int = {
    offsetIndex.reset()
    bytesSinceLastIndexEntry = 0
    largestTimestamp = -1L
    var validBytes = 0
    val it = records.batchesFrom(0)
    var corrupt = false
    while (!corrupt && it.hasNext) {
      val position = it.next()
      val batch = records.batchAt(position)
      try {
        batch.ensureValid()
        if (bytesSinceLastIndexEntry > indexIntervalBytes && !offsetIndex.isFull) {
          offsetIndex.append(batch.baseOffset, position.position)
          bytesSinceLastIndexEntry = 0
        }
        bytesSinceLastIndexEntry += position.size
        largestTimestamp = math.max(largestTimestamp, batch.maxTimestamp)
        validBytes += position.size
      } catch {
        case e: ApiException if e.error == ErrorCode.CORRUPT_MESSAGE =>
          logger.warn(s"Found invalid batch in segment ${records.file}: ${e.getMessage}")
          corrupt = true
      }
    }
    val truncated = records.truncateTo(validBytes)
    if (truncated > 0)
      logger.warn(s"Truncated $truncated invalid bytes at the end of segment ${records.file} during recovery")
    nextOffsetCache = None
    truncated
  }

  /** Removes every batch at or after `offset`; a follower does this before re-fetching. */
  def truncateTo(offset: Long): Int = {
    val from = offsetIndex.lookup(offset)
    offsetIndex.truncateTo(offset)
    val cut = records.searchForOffset(offset, from.position) match {
      case Some(b) if b.baseOffset >= offset => records.truncateTo(b.position)
      case Some(b) => throw new IllegalStateException(s"offset $offset is inside the batch $b; truncation must be at batch boundaries")
      case None => 0
    }
    nextOffsetCache = None
    bytesSinceLastIndexEntry = 0
    cut
  }

  /** Whether the active segment must roll before an append of `batchSize` bytes. */
  def shouldRoll(batchSize: Int, segmentBytes: Int, segmentMs: Long, nowMs: Long): Boolean =
    sizeInBytes > segmentBytes - batchSize || (sizeInBytes > 0 && nowMs - createdMs > segmentMs) || offsetIndex.isFull

  def onBecomeInactive(): Unit = offsetIndex.trimToValidSize()

  def flush(): Unit = {
    records.flush()
    offsetIndex.flush()
  }

  def delete(): Unit = {
    val deletedLog = records.deleteIfExists()
    val deletedIndex = offsetIndex.deleteIfExists()
    if (!deletedLog) logger.warn(s"Segment file ${records.file} was already gone when deleting segment $baseOffset")
    if (!deletedIndex) logger.debug(s"Index of segment $baseOffset did not exist")
  }

  override def toString: String = s"DiskSegment(base=$baseOffset, size=$sizeInBytes, dir=$dir)"
}

object DiskSegment {
  def fileName(offset: Long, suffix: String): String = f"$offset%020d$suffix"

  /** The base offset in a segment file name, if it is one. */
  def offsetFromFileName(name: String): Option[Long] = {
    val dot = name.indexOf('.')
    if (dot != 20) None else name.substring(0, dot).toLongOption
  }
}
