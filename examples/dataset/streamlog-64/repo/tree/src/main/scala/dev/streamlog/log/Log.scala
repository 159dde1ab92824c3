package dev.streamlog.log

import java.util.concurrent.ConcurrentSkipListMap
import scala.jdk.CollectionConverters._

/**
 * A partition's log: segments keyed by base offset. The last segment is the active one and
 * is never cleaned.
 */
final class Log(val topicPartition: String, val segmentMaxRecords: Int) {
  private val segmentMap = new ConcurrentSkipListMap[java.lang.Long, LogSegment]()
  segmentMap.put(0L, new LogSegment(0L))
  private val lock = new Object

  def activeSegment: LogSegment = segmentMap.lastEntry().getValue

  def logEndOffset: Long = activeSegment.nextOffset

  def logStartOffset: Long = segmentMap.firstKey()

  def allSegments: Seq[LogSegment] = segmentMap.values().asScala.toSeq

  /** Segments overlapping [from, to). */
  def segments(from: Long, to: Long): Seq[LogSegment] = lock.synchronized {
    val floor = Option(segmentMap.floorKey(from)).getOrElse(segmentMap.firstKey())
    segmentMap.subMap(floor, true, to, false).values().asScala.toSeq
  }

  def append(key: String, value: Option[Array[Byte]], timestamp: Long): Long = lock.synchronized {
    if (activeSegment.records.size >= segmentMaxRecords) roll()
    val offset = logEndOffset
    activeSegment.append(Record(offset, key, value, timestamp))
    offset
  }

  def roll(): LogSegment = lock.synchronized {
    val segment = new LogSegment(logEndOffset)
    segmentMap.put(segment.baseOffset, segment)
    segment
  }

  /** Replaces a group of old segments by their cleaned version, keeping the base offset. */
  def replaceSegments(newSegment: LogSegment, oldSegments: Seq[LogSegment]): Unit = lock.synchronized {
    oldSegments.foreach(s => segmentMap.remove(s.baseOffset))
    segmentMap.put(newSegment.baseOffset, newSegment)
  }

  /** Reads every record from offset on, in order. */
  def read(from: Long): Iterator[Record] =
    segments(from, Long.MaxValue).iterator.flatMap(_.records.iterator).filter(_.offset >= from)
}
