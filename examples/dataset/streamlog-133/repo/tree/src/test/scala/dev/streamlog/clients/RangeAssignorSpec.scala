package dev.streamlog.clients

import dev.streamlog.clients.consumer.RangeAssignor
import dev.streamlog.clients.producer.Partitioner
import dev.streamlog.common.TopicPartition
import org.scalatest.funsuite.AnyFunSuite

class RangeAssignorSpec extends AnyFunSuite {

  test("ranges are contiguous and the first members get the extra partitions") {
    val members = Map("c-1" -> Set("orders"), "c-2" -> Set("orders"), "c-3" -> Set("orders"))
    val assignment = RangeAssignor.assign(Map("orders" -> 11), members)
    assert(assignment("c-1").map(_.partition) == (0 to 3))
    assert(assignment("c-2").map(_.partition) == (4 to 7))
    assert(assignment("c-3").map(_.partition) == (8 to 10))
  }

  test("members only get partitions of the topics they subscribe to") {
    val assignment = RangeAssignor.assign(Map("orders" -> 2, "payments" -> 2), Map("a" -> Set("orders"), "b" -> Set("orders", "payments")))
    assert(assignment("a") == Seq(TopicPartition("orders", 0)))
    assert(assignment("b") == Seq(TopicPartition("orders", 1), TopicPartition("payments", 0), TopicPartition("payments", 1)))
  }

  test("records with the same key go to the same partition") {
    val partitioner = new Partitioner
    val key = Some("customer-40417".getBytes)
    val first = partitioner.partition("orders", key, 12)
    assert((1 to 5).forall(_ => partitioner.partition("orders", key, 12) == first))
    assert(first >= 0 && first < 12)
  }
}
