package dev.streamlog.storage

import java.nio.channels.FileChannel
import java.nio.file.{Files, StandardOpenOption}

import org.scalatest.funsuite.AnyFunSuite

class DiskSegmentSpec extends AnyFunSuite {

  private def batch(baseOffset: Long, count: Int): RecordBatch =
    RecordBatch.build(baseOffset, (0 until count).map(i => (s"k$i".getBytes, Some(Array.fill(100)(i.toByte)), 1000L + i)))

  private def newSegment(): DiskSegment =
    new DiskSegment(Files.createTempDirectory("segment").toFile, 50L, indexIntervalBytes = 1, maxIndexSize = 1024, createdMs = 0L)

  test("a read starts at the batch that contains the offset") {
    val segment = newSegment()
    segment.append(batch(50L, 5))
    segment.append(batch(55L, 5))
    segment.append(batch(60L, 5))
    assert(segment.nextOffset == 65L)
    val slice = segment.read(57L, maxSize = 1).get
    assert(slice.firstOffset == 55L)
    assert(new RecordBatch(slice.records).records.map(_.offset).toList == (55L to 59L).toList)
  }

  test("recovery truncates a batch torn by a crash and rebuilds the index") {
    val segment = newSegment()
    segment.append(batch(50L, 3))
    segment.append(batch(53L, 3))
    val torn = batch(56L, 3).buffer.duplicate()
    torn.limit(torn.limit() - 10)
    val tornSize = torn.remaining()
    val channel = FileChannel.open(segment.records.file.toPath, StandardOpenOption.APPEND)
    try channel.write(torn)
    finally channel.close()

    val reopened = new DiskSegment(segment.dir, 50L, indexIntervalBytes = 1, maxIndexSize = 1024, createdMs = 0L)
    assert(reopened.recover() == tornSize)
    assert(reopened.nextOffset == 56L)
    assert(reopened.read(53L, maxSize = 4096).get.firstOffset == 53L)
  }

  test("truncation removes whole batches from the offset on") {
    val segment = newSegment()
    (0 until 4).foreach(i => segment.append(batch(50L + i * 5, 5)))
    segment.truncateTo(60L)
    assert(segment.nextOffset == 60L)
    assertThrows[IllegalStateException](segment.truncateTo(57L))
  }

  test("a corrupted batch fails its checksum") {
    val b = batch(0L, 2)
    assert(b.isValid)
    b.buffer.put(RecordBatch.HeaderSize + 20, 42.toByte)
    assert(!b.isValid)
  }
}
