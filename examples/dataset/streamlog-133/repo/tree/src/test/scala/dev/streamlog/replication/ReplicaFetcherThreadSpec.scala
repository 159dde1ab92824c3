package dev.streamlog.replication

import java.nio.ByteBuffer
import scala.collection.mutable

import dev.streamlog.common.{ErrorCode, MockTime, TopicPartition}
import dev.streamlog.storage.RecordBatch
import org.scalatest.funsuite.AnyFunSuite

class ReplicaFetcherThreadSpec extends AnyFunSuite {

  private val tp = TopicPartition("orders", 3)

  private final class FakeLog(var end: Long) extends ReplicaLog {
    val truncations = mutable.Buffer.empty[String]
    var highWatermark = 0L
    def logEndOffset(tp: TopicPartition): Long = end
    def latestEpoch(tp: TopicPartition): Option[Int] = Some(4)
    def appendAsFollower(tp: TopicPartition, records: ByteBuffer): Long = { end = new RecordBatch(records).nextOffset; end }
    def truncateTo(tp: TopicPartition, offset: Long): Unit = { truncations += s"to $offset"; end = offset }
    def truncateFullyAndStartAt(tp: TopicPartition, offset: Long): Unit = { truncations += s"fully at $offset"; end = offset }
    def updateHighWatermark(tp: TopicPartition, hw: Long): Unit = highWatermark = hw
    def updateLogStartOffset(tp: TopicPartition, offset: Long): Unit = ()
  }

  private final class FakeLeader(start: Long, end: Long, epochEnd: Long) extends LeaderEndpoint {
    var responses: List[FetchPartitionData] = Nil
    def fetch(partitions: Map[TopicPartition, PartitionFetchState], maxBytes: Int): Map[TopicPartition, FetchPartitionData] = {
      val response = responses.head
      responses = responses.tail
      Map(tp -> response)
    }
    def earliestOffset(tp: TopicPartition, leaderEpoch: Int): Long = start
    def latestOffset(tp: TopicPartition, leaderEpoch: Int): Long = end
    def endOffsetForEpoch(tp: TopicPartition, epoch: Int): (Int, Long) = (epoch, epochEnd)
  }

  private def fetcher(leader: LeaderEndpoint, log: ReplicaLog) =
    new ReplicaFetcherThread("ReplicaFetcherThread-0-1", 1, leader, log, 1024 * 1024, 100L, new MockTime())

  test("truncates to the leader's end of our latest epoch, then fetches from there") {
    val log = new FakeLog(120L)
    val leader = new FakeLeader(start = 0L, end = 200L, epochEnd = 110L)
    val batch = RecordBatch.build(110L, Seq(("k".getBytes, Some("v".getBytes), 1L)))
    leader.responses = List(FetchPartitionData(ErrorCode.NONE, 111L, 0L, batch.buffer))
    val f = fetcher(leader, log)
    f.addPartitions(Map(tp -> ((120L, 5))))
    f.doWork()
    assert(log.truncations == Seq("to 110"))
    assert(log.end == 111L)
    assert(log.highWatermark == 111L)
  }

  test("an offset below the leader's log start restarts the replica at the leader's start") {
    val log = new FakeLog(50L)
    val leader = new FakeLeader(start = 500L, end = 900L, epochEnd = 900L)
    leader.responses = List(FetchPartitionData(ErrorCode.OFFSET_OUT_OF_RANGE, -1L, 500L, ByteBuffer.allocate(0)))
    val f = fetcher(leader, log)
    f.addPartitions(Map(tp -> ((50L, 5))))
    f.doWork()
    assert(log.truncations == Seq("fully at 500"))
    assert(log.end == 500L)
  }
}
