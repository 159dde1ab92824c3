package dev.streamlog.storage

import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

class OffsetIndexSpec extends AnyFunSuite {

  private def newIndex(baseOffset: Long): OffsetIndex = {
    val file = Files.createTempFile("offset-index", ".index").toFile
    file.delete()
    new OffsetIndex(file, baseOffset, maxIndexSize = 8 * 10)
  }

  test("lookup returns the largest entry at or below the target") {
    val index = newIndex(100L)
    index.append(110L, 4096)
    index.append(130L, 8192)
    assert(index.lookup(99L) == OffsetPosition(100L, 0))
    assert(index.lookup(110L) == OffsetPosition(110L, 4096))
    assert(index.lookup(129L) == OffsetPosition(110L, 4096))
    assert(index.lookup(1000L) == OffsetPosition(130L, 8192))
  }

  test("offsets must increase and the index has a fixed capacity") {
    val index = newIndex(0L)
    (1 to 10).foreach(i => index.append(i * 10L, i * 100))
    assert(index.isFull)
    assertThrows[IllegalArgumentException](index.append(200L, 2000))
    index.truncateTo(55L)
    assert(index.entryCount == 5)
    assertThrows[IllegalArgumentException](index.append(50L, 600))
  }

  test("a trimmed index reopens with its entries") {
    val index = newIndex(0L)
    index.append(10L, 100)
    index.append(20L, 200)
    index.trimToValidSize()
    val reopened = new OffsetIndex(index.file, 0L, maxIndexSize = 8 * 10)
    assert(reopened.entryCount == 2)
    assert(reopened.lookup(25L) == OffsetPosition(20L, 200))
  }
}
