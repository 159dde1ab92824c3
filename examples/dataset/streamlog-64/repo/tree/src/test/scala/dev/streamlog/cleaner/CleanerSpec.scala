package dev.streamlog.cleaner

import dev.streamlog.log.Log
import org.scalatest.funsuite.AnyFunSuite

class CleanerSpec extends AnyFunSuite {

  test("only the latest record of a key survives") {
    val log = new Log("t-0", segmentMaxRecords = 3)
    for (i <- 0 until 9) log.append(s"k${i % 3}", Some(Array(i.toByte)), timestamp = i.toLong)
    log.roll()
    val cleaner = new Cleaner(0, offsetMapCapacity = 100, deleteRetentionMs = 1000L, time = () => 10L)
    val stats = cleaner.clean(log, 0L)
    assert(stats.nextDirtyOffset == 9L)
    assert(log.read(0L).map(_.offset).toList == List(6L, 7L, 8L))
  }
}
