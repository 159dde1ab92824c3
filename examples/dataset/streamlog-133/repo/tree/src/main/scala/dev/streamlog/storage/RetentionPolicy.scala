package dev.streamlog.storage

/** A segment as retention sees it. The active segment is never deleted. */
final case class SegmentInfo(baseOffset: Long, nextOffset: Long, sizeInBytes: Long, largestTimestamp: Long)

/**
 * Decides which segments of a `cleanup.policy=delete` log can be deleted: by age
 * (`retention.ms`, judged by the largest timestamp in the segment), by total size
 * (`retention.bytes`), and every segment entirely below the log start offset (after a
 * DeleteRecords). Only a prefix of segments is ever deleted, and never beyond the high
 * watermark, so consumers never lose records that are not yet fully replicated.
 */
final class RetentionPolicy(retentionMs: Long, retentionBytes: Long) {

  /** The segments to delete, oldest first. `segments` excludes the active segment. */
  def deletable(segments: Seq[SegmentInfo], logStartOffset: Long, highWatermark: Long, nowMs: Long): Seq[SegmentInfo] = {
    val upToHighWatermark = segments.takeWhile(_.nextOffset <= highWatermark)
    val belowStart = upToHighWatermark.takeWhile(_.nextOffset <= logStartOffset)
    val expired =
      if (retentionMs < 0) Seq.empty
      else upToHighWatermark.takeWhile(s => nowMs - s.largestTimestamp > retentionMs)
    val oversized = bySize(upToHighWatermark, segments.map(_.sizeInBytes).sum)
    Seq(belowStart, expired, oversized).maxBy(_.size)
  }

  private def bySize(segments: Seq[SegmentInfo], totalSize: Long): Seq[SegmentInfo] = {
    if (retentionBytes < 0) return Seq.empty
    var diff = totalSize - retentionBytes
    segments.takeWhile { s =>
      val delete = diff - s.sizeInBytes >= 0
      if (delete) diff -= s.sizeInBytes
      delete
    }
  }

  /** The log start offset after deleting `deleted`. */
  def newLogStartOffset(deleted: Seq[SegmentInfo], current: Long): Long =
    deleted.lastOption.map(s => math.max(current, s.nextOffset)).getOrElse(current)
}
