package dev.streamlog.log

/** One record of a partition log. A record with no value is a tombstone: it deletes its key. */
final case class Record(offset: Long, key: String, value: Option[Array[Byte]], timestamp: Long) {
  def isTombstone: Boolean = value.isEmpty
  def sizeInBytes: Int = 24 + key.length + value.map(_.length).getOrElse(0)
}
