package dev.streamlog.cleaner

import scala.collection.mutable

/**
 * Maps a key to the offset of its latest record in the dirty section. Memory is bounded:
 * the cleaner sizes it from `log.cleaner.dedupe.buffer.size` and stops filling it when full.
 */
final class OffsetMap(val capacity: Int) {
  private val map = mutable.HashMap.empty[String, Long]
  private var lastOffset = -1L

  def put(key: String, offset: Long): Unit = {
    require(map.size < capacity || map.contains(key), "offset map is full")
    map.update(key, offset)
    lastOffset = offset
  }

  def get(key: String): Option[Long] = map.get(key)

  def size: Int = map.size

  def isFull: Boolean = map.size >= capacity

  def latestOffset: Long = lastOffset

  def clear(): Unit = {
    map.clear()
    lastOffset = -1L
  }

  def utilization: Double = map.size.toDouble / capacity
}
