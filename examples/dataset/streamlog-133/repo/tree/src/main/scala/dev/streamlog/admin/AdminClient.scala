package dev.streamlog.admin

import dev.streamlog.common.{ErrorCode, TopicPartition}

final case class TopicDescription(name: String, partitions: Seq[PartitionDescription], configs: Map[String, String])
final case class PartitionDescription(partition: Int, leader: Int, replicas: Seq[Int], isr: Seq[Int])
final case class GroupMemberDescription(memberId: String, clientId: String, host: String, partitions: Seq[TopicPartition])
final case class GroupDescription(groupId: String, state: String, generation: Int, members: Seq[GroupMemberDescription])

/** The admin requests the command-line tools need; implemented over the NetworkClient. */
trait AdminClient extends AutoCloseable {
  def brokerIds(): Seq[Int]
  def listTopics(): Seq[String]
  def describeTopics(names: Seq[String]): Seq[TopicDescription]
  def createTopic(name: String, assignment: Map[Int, Seq[Int]], configs: Map[String, String]): ErrorCode
  def deleteTopic(name: String): ErrorCode
  def createPartitions(name: String, newAssignments: Map[Int, Seq[Int]]): ErrorCode
  def describeGroup(groupId: String): GroupDescription
  def committedOffsets(groupId: String): Map[TopicPartition, Long]
  def logEndOffsets(partitions: Seq[TopicPartition]): Map[TopicPartition, Long]
  def logStartOffsets(partitions: Seq[TopicPartition]): Map[TopicPartition, Long]
  def alterCommittedOffsets(groupId: String, offsets: Map[TopicPartition, Long]): Map[TopicPartition, ErrorCode]
}
