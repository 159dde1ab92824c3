package dev.streamlog.storage

import java.io.{File, RandomAccessFile}
import java.nio.MappedByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.Files

/** An index entry: the first offset of a batch and the file position of that batch. */
final case class OffsetPosition(offset: Long, position: Int)

final class CorruptIndexException(message: String) extends RuntimeException(message)

/**
 * The sparse offset index of a segment, memory-mapped. Each entry is 8 bytes: the offset
 * relative to the segment's base offset (int32) and the file position (int32). An entry is
 * added every `index.interval.bytes` of appended data, so a lookup gives the position to
 * start scanning from, never the exact batch.
 */
final class OffsetIndex(val file: File, val baseOffset: Long, maxIndexSize: Int) {
  import OffsetIndex.EntrySize

  private val lock = new Object
  private var mmap: MappedByteBuffer = map(roundDown(maxIndexSize))
  private var entries: Int = mmap.position() / EntrySize
  private var lastEntryOffset: Long = if (entries == 0) baseOffset else entry(entries - 1).offset

  private def roundDown(n: Int): Int = n / EntrySize * EntrySize

  private def map(size: Int): MappedByteBuffer = {
    val isNew = !file.exists() || file.length() == 0
    val raf = new RandomAccessFile(file, "rw")
    try {
      if (isNew) raf.setLength(size.toLong)
      val length = raf.length()
      val buffer = raf.getChannel.map(FileChannel.MapMode.READ_WRITE, 0, length)
      // a new index starts empty; an existing one was trimmed to its entries when its segment rolled
      buffer.position(if (isNew) 0 else roundDown(length.toInt))
      buffer
    } finally raf.close()
  }

  def entryCount: Int = lock.synchronized(entries)
  def maxEntries: Int = lock.synchronized(mmap.limit() / EntrySize)
  def isFull: Boolean = lock.synchronized(entries >= maxEntries)
  def lastOffset: Long = lock.synchronized(lastEntryOffset)

  private def entry(n: Int): OffsetPosition =
    OffsetPosition(baseOffset + mmap.getInt(n * EntrySize), mmap.getInt(n * EntrySize + 4))

  def append(offset: Long, position: Int): Unit = lock.synchronized {
    require(!isFull, s"Attempt to append to a full index (size = $entries) of $file")
    if (entries > 0 && offset <= lastEntryOffset)
      throw new IllegalArgumentException(s"Attempt to append an offset ($offset) to position $entries no larger than the last offset appended ($lastEntryOffset) to $file")
    val relative = offset - baseOffset
    require(relative >= 0 && relative <= Int.MaxValue, s"offset $offset does not fit in the index of base $baseOffset")
    mmap.putInt(relative.toInt)
    mmap.putInt(position)
    entries += 1
    lastEntryOffset = offset
  }

  /** The entry with the largest offset <= target, or the segment start if there is none. */
  def lookup(targetOffset: Long): OffsetPosition = lock.synchronized {
    var lo = 0
    var hi = entries - 1
    var found = -1
    while (lo <= hi) {
      val mid = (lo + hi) >>> 1
      if (entry(mid).offset <= targetOffset) {
        found = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    if (found < 0) OffsetPosition(baseOffset, 0) else entry(found)
  }

  /** Removes every entry with offset >= `offset`, e.g. when a follower truncates its log. */
  def truncateTo(offset: Long): Unit = lock.synchronized {
    var keep = entries
    while (keep > 0 && entry(keep - 1).offset >= offset) keep -= 1
    entries = keep
    mmap.position(keep * EntrySize)
    lastEntryOffset = if (keep == 0) baseOffset else entry(keep - 1).offset
  }

  /** Checks an index loaded from disk; a failure makes the segment rebuild it. */
  def sanityCheck(): Unit = lock.synchronized {
    if (file.length() % EntrySize != 0)
      throw new CorruptIndexException(s"Index file ${file.getAbsolutePath} is corrupt, found ${file.length()} bytes which is not a multiple of $EntrySize")
    if (entries != 0 && lastEntryOffset < baseOffset)
      throw new CorruptIndexException(s"Corrupt index found, index file (${file.getAbsolutePath}) has non-zero size but the last offset is $lastEntryOffset which is less than the base offset $baseOffset.")
  }

  /** Shrinks the file to the entries in use, when the segment stops being the active one. */
  def trimToValidSize(): Unit = lock.synchronized {
    val raf = new RandomAccessFile(file, "rw")
    try raf.setLength((entries * EntrySize).toLong)
    finally raf.close()
    mmap = map(entries * EntrySize)
    mmap.position(entries * EntrySize)
  }

  def reset(): Unit = truncateTo(baseOffset)

  def flush(): Unit = lock.synchronized(mmap.force())

  def deleteIfExists(): Boolean = Files.deleteIfExists(file.toPath)
}

object OffsetIndex {
  val EntrySize = 8
}
