package dev.streamlog.cleaner

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.log.{Log, LogSegment, Record}

/** What one cleaning pass did. */
final case class CleanerStats(
    dirtyStart: Long,
    nextDirtyOffset: Long,
    recordsRead: Long,
    recordsRetained: Long,
    tombstonesRemoved: Long,
    mapUtilization: Double
)

/**
 * Compacts a log: for every key only the latest record survives; tombstones survive for
 * `deleteRetentionMs` after their segment was last written, so consumers see the delete.
 *
 * A pass reads the dirty section [firstDirtyOffset, active segment) into the offset map,
 * then rewrites every segment before the map's end offset, keeping a record only when
 * no later record of its key is in the map.
 */
final class Cleaner(val id: Int, offsetMapCapacity: Int, deleteRetentionMs: Long, time: () => Long)
    extends LazyLogging {

  private val offsetMap = new OffsetMap(offsetMapCapacity)

  def clean(log: Log, firstDirtyOffset: Long): CleanerStats = {
    val activeBase = log.activeSegment.baseOffset
    val endOffset = buildOffsetMap(log, firstDirtyOffset, activeBase, offsetMap)
    val deleteHorizonMs = time() - deleteRetentionMs
    logger.info(
      f"Cleaner $id: building offset map for ${log.topicPartition} [$firstDirtyOffset, $activeBase): " +
        f"map ${offsetMap.utilization * 100}%.1f%% full, cleaning up to $endOffset"
    )

    var read = 0L
    var retained = 0L
    var tombstonesRemoved = 0L
    for (group <- groupSegments(log.segments(log.logStartOffset, endOffset))) {
      val cleaned = new LogSegment(group.head.baseOffset)
      for (segment <- group; record <- segment.records if record.offset < endOffset) {
        read += 1
        if (shouldRetain(record, segment, deleteHorizonMs)) {
          cleaned.append(record)
          retained += 1
        } else if (record.isTombstone) tombstonesRemoved += 1
      }
      cleaned.lastModified = group.map(_.lastModified).max
      log.replaceSegments(cleaned, group)
    }
    CleanerStats(firstDirtyOffset, endOffset, read, retained, tombstonesRemoved, offsetMap.utilization)
  }

  /**
   * Fills the map with the dirty section [start, end) and returns the offset up to which
   * every record was added: the next pass starts there.
   */
  private[cleaner] def buildOffsetMap(log: Log, start: Long, end: Long, map: OffsetMap): Long = {
    map.clear()
    var offset = start
    var full = false
    for (segment <- log.segments(start, end) if !full) {
      for (record <- segment.records if !full && record.offset >= start && record.offset < end) {
        if (map.isFull && map.get(record.key).isEmpty) {
          full = true
          logger.debug(s"Offset map full at offset ${record.offset} of ${log.topicPartition}")
        } else {
          map.put(record.key, record.offset)
        }
      }
      offset = math.min(segment.nextOffset, end)
    }
    offset
  }

  private def shouldRetain(record: Record, segment: LogSegment, deleteHorizonMs: Long): Boolean = {
    val supersededByLaterRecord = offsetMap.get(record.key).exists(_ > record.offset)
    if (supersededByLaterRecord) false
    else if (record.isTombstone) segment.lastModified > deleteHorizonMs
    else true
  }

  /** Groups adjacent segments so a cleaned group fits in one segment. */
  private def groupSegments(segments: Seq[LogSegment], maxRecords: Int = 100000): List[List[LogSegment]] = {
    val groups = List.newBuilder[List[LogSegment]]
    var current = List.empty[LogSegment]
    var size = 0
    for (segment <- segments) {
      val n = segment.records.size
      if (current.nonEmpty && size + n > maxRecords) {
        groups += current.reverse
        current = Nil
        size = 0
      }
      current = segment :: current
      size += n
    }
    if (current.nonEmpty) groups += current.reverse
    groups.result()
  }
}
