package dev.streamlog.clients.producer

import java.util.concurrent.ThreadLocalRandom
import scala.collection.concurrent.TrieMap

/**
 * Chooses the partition of a record: by murmur2 hash of the key, so all records of a key
 * go to the same partition; records without a key stick to one partition until its batch
 * is sent, which makes larger batches than spreading them round-robin.
 */
final class Partitioner {
  private val stickyPartition = TrieMap.empty[String, Int]

  def partition(topic: String, key: Option[Array[Byte]], numPartitions: Int): Int = key match {
    case Some(k) => Partitioner.toPositive(Partitioner.murmur2(k)) % numPartitions
    case None => stickyPartition.getOrElseUpdate(topic, ThreadLocalRandom.current().nextInt(numPartitions))
  }

  /** Called when the batch of the sticky partition was sent: pick a different partition. */
  def onNewBatch(topic: String, previous: Int, numPartitions: Int): Unit = {
    if (numPartitions > 1 && stickyPartition.get(topic).contains(previous)) {
      var next = previous
      while (next == previous) next = ThreadLocalRandom.current().nextInt(numPartitions)
      stickyPartition.put(topic, next)
    }
  }
}

object Partitioner {
  def toPositive(n: Int): Int = n & 0x7fffffff

  /** 32-bit murmur2, seed 0x9747b28c; must stay identical across client versions. */
  def murmur2(data: Array[Byte]): Int = {
    val m = 0x5bd1e995
    val r = 24
    val length = data.length
    var h = 0x9747b28c ^ length
    val length4 = length / 4
    for (i <- 0 until length4) {
      val i4 = i * 4
      var k = (data(i4) & 0xff) + ((data(i4 + 1) & 0xff) << 8) + ((data(i4 + 2) & 0xff) << 16) + ((data(i4 + 3) & 0xff) << 24)
      k *= m
      k ^= k >>> r
      k *= m
      h *= m
      h ^= k
    }
    val rest = length % 4
    if (rest == 3) h ^= (data((length & ~3) + 2) & 0xff) << 16
    if (rest >= 2) h ^= (data((length & ~3) + 1) & 0xff) << 8
    if (rest >= 1) {
      h ^= data(length & ~3) & 0xff
      h *= m
    }
    h ^= h >>> 13
    h *= m
    h ^= h >>> 15
    h
  }
}
