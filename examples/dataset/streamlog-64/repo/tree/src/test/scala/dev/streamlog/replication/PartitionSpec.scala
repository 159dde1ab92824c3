package dev.streamlog.replication

import scala.collection.mutable

import dev.streamlog.common.{ApiException, ErrorCode, MockTime, TopicPartition}
import org.scalatest.funsuite.AnyFunSuite

class PartitionSpec extends AnyFunSuite {

  private val tp = TopicPartition("orders", 0)

  private def leader(time: MockTime, isrChanges: mutable.Buffer[Set[Int]], initialIsr: Set[Int] = Set(1, 2, 3)): Partition = {
    val p = new Partition(tp, localBrokerId = 1, replicas = Seq(1, 2, 3), minInsyncReplicas = 2,
      replicaLagTimeMaxMs = 10000L, time, (_, isr) => isrChanges += isr)
    p.makeLeader(epoch = 5, initialIsr, logEndOffset = 100L, hw = 90L)
    p
  }

  test("the high watermark is the smallest end offset in the ISR") {
    val p = leader(new MockTime(), mutable.Buffer.empty)
    p.updateFollowerFetchState(2, 100L, 5)
    assert(p.currentHighWatermark == 90L)
    p.updateFollowerFetchState(3, 95L, 5)
    assert(p.currentHighWatermark == 95L)
  }

  test("a follower that does not catch up leaves the ISR and rejoins when it does") {
    val time = new MockTime()
    val changes = mutable.Buffer.empty[Set[Int]]
    val p = leader(time, changes)
    p.updateFollowerFetchState(2, 100L, 5)
    p.updateFollowerFetchState(3, 95L, 5)
    time.advance(10001L)
    p.updateFollowerFetchState(2, 100L, 5)
    p.maybeShrinkIsr()
    assert(p.inSyncReplicas == Set(1, 2))
    assert(p.currentHighWatermark == 100L)
    p.updateFollowerFetchState(3, 100L, 5)
    assert(p.inSyncReplicas == Set(1, 2, 3))
    assert(changes == Seq(Set(1, 2), Set(1, 2, 3)))
  }

  test("acks=all is refused while the ISR is below min.insync.replicas") {
    val p = leader(new MockTime(), mutable.Buffer.empty, initialIsr = Set(1))
    val e = intercept[ApiException](p.checkEnoughReplicasForAppend(-1))
    assert(e.error == ErrorCode.NOT_ENOUGH_REPLICAS)
    p.checkEnoughReplicasForAppend(1)
  }

  test("fetches from an older leader epoch are fenced") {
    val p = leader(new MockTime(), mutable.Buffer.empty)
    assert(intercept[ApiException](p.updateFollowerFetchState(2, 100L, 4)).error == ErrorCode.FENCED_LEADER_EPOCH)
  }
}
