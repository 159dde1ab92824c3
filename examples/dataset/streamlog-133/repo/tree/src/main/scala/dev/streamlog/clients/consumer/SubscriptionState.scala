package dev.streamlog.clients.consumer

import scala.collection.mutable

import dev.streamlog.common.TopicPartition

sealed trait OffsetResetStrategy
object OffsetResetStrategy {
  case object Earliest extends OffsetResetStrategy
  case object Latest extends OffsetResetStrategy
  case object NoReset extends OffsetResetStrategy

  def parse(value: String): OffsetResetStrategy = value.toLowerCase match {
    case "earliest" => Earliest
    case "latest" => Latest
    case "none" => NoReset
    case other => throw new IllegalArgumentException(s"Invalid value $other for auto.offset.reset")
  }
}

final class NoOffsetForPartitionException(tp: TopicPartition)
    extends RuntimeException(s"Undefined offset with no reset policy for partition: $tp")

/**
 * The consumer's view of what it reads: the subscribed topics, the partitions the group
 * assigned to it, and per partition the fetch position. A partition without a position
 * gets one from its committed offset or, if there is none, from the reset strategy.
 */
final class SubscriptionState(defaultReset: OffsetResetStrategy) {
  private final class PartitionState {
    var position: Option[Long] = None
    var paused = false
    var resetRequested: Option[OffsetResetStrategy] = None
  }

  private var subscribed = Set.empty[String]
  private val assignment = mutable.LinkedHashMap.empty[TopicPartition, PartitionState]

  def subscribe(topics: Set[String]): Boolean = synchronized {
    val changed = topics != subscribed
    subscribed = topics
    changed
  }

  def subscription: Set[String] = synchronized(subscribed)

  /** Replaces the assignment after a rebalance; positions of partitions we keep are kept. */
  def assignFromSubscribed(partitions: Seq[TopicPartition]): Unit = synchronized {
    partitions.find(tp => !subscribed.contains(tp.topic)).foreach { tp =>
      throw new IllegalArgumentException(s"Assigned partition $tp for non-subscribed topic; subscription is $subscribed")
    }
    val kept = assignment.filter { case (tp, _) => partitions.contains(tp) }
    assignment.clear()
    partitions.foreach(tp => assignment(tp) = kept.getOrElse(tp, new PartitionState))
  }

  def assignedPartitions: Seq[TopicPartition] = synchronized(assignment.keys.toSeq)

  def isAssigned(tp: TopicPartition): Boolean = synchronized(assignment.contains(tp))

  def position(tp: TopicPartition): Option[Long] = synchronized(assignment.get(tp).flatMap(_.position))

  def seek(tp: TopicPartition, offset: Long): Unit = synchronized {
    val state = assignment.getOrElse(tp, throw new IllegalStateException(s"No current assignment for partition $tp"))
    state.position = Some(offset)
    state.resetRequested = None
  }

  def requestReset(tp: TopicPartition, strategy: OffsetResetStrategy): Unit = synchronized {
    assignment.get(tp).foreach(_.resetRequested = Some(strategy))
  }

  /** Partitions that need their position looked up (by reset strategy) before fetching. */
  def partitionsNeedingReset: Map[TopicPartition, OffsetResetStrategy] = synchronized {
    assignment.collect {
      case (tp, s) if s.resetRequested.isDefined => tp -> s.resetRequested.get
      case (tp, s) if s.position.isEmpty =>
        if (defaultReset == OffsetResetStrategy.NoReset) throw new NoOffsetForPartitionException(tp)
        tp -> defaultReset
    }.toMap
  }

  def pause(tp: TopicPartition): Unit = synchronized(assignment.get(tp).foreach(_.paused = true))
  def resume(tp: TopicPartition): Unit = synchronized(assignment.get(tp).foreach(_.paused = false))

  def fetchablePartitions: Seq[TopicPartition] = synchronized {
    assignment.collect { case (tp, s) if !s.paused && s.position.isDefined && s.resetRequested.isEmpty => tp }.toSeq
  }

  /** Positions of every assigned partition, for committing. */
  def allConsumed: Map[TopicPartition, Long] = synchronized {
    assignment.collect { case (tp, s) if s.position.isDefined => tp -> s.position.get }.toMap
  }
}
