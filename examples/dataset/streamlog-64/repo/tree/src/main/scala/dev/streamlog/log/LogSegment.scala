package dev.streamlog.log

import scala.collection.mutable.ArrayBuffer

/** A segment: records with offsets from baseOffset, in offset order, plus its last modification time. */
final class LogSegment(val baseOffset: Long, initial: Seq[Record] = Nil) {
  private val buffer = ArrayBuffer.from(initial)
  @volatile var lastModified: Long = initial.lastOption.map(_.timestamp).getOrElse(0L)

  def records: Seq[Record] = buffer.toSeq

  def append(record: Record): Unit = {
    require(record.offset >= nextOffset, s"offset ${record.offset} < next offset $nextOffset")
    buffer += record
    lastModified = record.timestamp
  }

  /** The offset after the last record of this segment (baseOffset if empty). */
  def nextOffset: Long = buffer.lastOption.map(_.offset + 1).getOrElse(baseOffset)

  def sizeInBytes: Int = buffer.iterator.map(_.sizeInBytes).sum

  def isEmpty: Boolean = buffer.isEmpty

  override def toString: String = s"LogSegment(base=$baseOffset, next=$nextOffset, records=${buffer.size})"
}
