package dev.streamlog.admin

import org.scalatest.funsuite.AnyFunSuite

class TopicCommandSpec extends AnyFunSuite {

  test("replicas of a partition are on different brokers and leaders are spread evenly") {
    val assignment = TopicCommand.assignReplicas(Seq(1, 2, 3, 4), partitions = 8, replicationFactor = 3, startIndex = 0)
    assert(assignment.size == 8)
    assert(assignment.values.forall(_.distinct.size == 3))
    assert(assignment.values.map(_.head).groupBy(identity).values.map(_.size).toSet == Set(2))
  }

  test("the replication factor cannot exceed the number of brokers") {
    assertThrows[IllegalArgumentException](TopicCommand.assignReplicas(Seq(1, 2), partitions = 3, replicationFactor = 3, startIndex = 0))
  }
}
