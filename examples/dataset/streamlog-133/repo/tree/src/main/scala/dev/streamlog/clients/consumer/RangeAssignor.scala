package dev.streamlog.clients.consumer

import dev.streamlog.common.TopicPartition

/**
 * Assigns partitions topic by topic: members subscribed to a topic, sorted by member id,
 * each get a contiguous range; the first `partitions % members` get one extra.
 */
object RangeAssignor {
  val Name = "range"

  def assign(partitionsPerTopic: Map[String, Int], subscriptions: Map[String, Set[String]]): Map[String, Seq[TopicPartition]] = {
    val empty = subscriptions.keys.map(_ -> Seq.empty[TopicPartition]).toMap
    partitionsPerTopic.toSeq.sortBy(_._1).foldLeft(empty) { case (acc, (topic, numPartitions)) =>
      val members = subscriptions.collect { case (member, topics) if topics.contains(topic) => member }.toSeq.sorted
      if (members.isEmpty) acc
      else {
        val perMember = numPartitions / members.size
        val extra = numPartitions % members.size
        members.zipWithIndex.foldLeft(acc) { case (a, (member, i)) =>
          val start = perMember * i + math.min(i, extra)
          val length = perMember + (if (i < extra) 1 else 0)
          a.updated(member, a(member) ++ (start until start + length).map(TopicPartition(topic, _)))
        }
      }
    }
  }
}
